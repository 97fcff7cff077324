"""Property: `kb init` over hostile folder states. Whatever stands where it puts its files (links in
and out of the repository, dangling links, link loops, FIFOs, /dev/zero, huge files, read-only files
and folders) and whatever the folder is called (spaces, a line break, a bidirectional control, HTML,
bytes that are not UTF-8, words YAML reads as something else), `kb init`

- completes fully (every file in place, .gitignore ignoring what it should, nothing else changed,
  and a second run changes nothing), or refuses with one line and writes nothing at all;
- never writes outside the repository (the folder beside it, where links point, stays as it was);
- never ends in a traceback or a hang.

The everyday run tries a few dozen states; the `slow` one digs deeper.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from incident_kb.adoption.init import IGNORED
from incident_kb.cli import main

from ..gitrepo import git_environment
from .test_init_hostile import snapshot

# Where kb init puts something: relative to the knowledge base, or (True) to the repository's top.
PLACES = {
    "mkdocs.yml": False, "docs": False, "docs/about.md": False, "knobs": False, "knobs/.gitkeep": False,
    "incidents": False, "schemas": False, "schemas/knob.schema.json": False, ".gitignore": False,
    ".github": True, ".github/workflows": True, ".github/workflows/kb-check.yml": True,
    ".pre-commit-config.yaml": True,
}
STARTER = ("knobs/.gitkeep", "incidents/.gitkeep", "docs/about.md", "schemas/knob.schema.json",
           "schemas/incident.schema.json", "mkdocs.yml", ".gitignore")
AT_TOP = (".github/workflows/kb-check.yml", ".pre-commit-config.yaml")
STATES = ["file", "empty file", "read-only file", "folder", "read-only folder", "fifo", "link to a file inside",
          "link to a folder inside", "link to a file outside", "link to a folder outside", "dangling link inside",
          "dangling link outside", "link loop", "link to /dev/zero", "huge file", "gitignore with entries"]
NAMES = [".", "kb", "team kb", "a\nb", "x\u202ey", "<img src=x onerror=alert(1)>", "caf\u00e9 \U0001f600",
         os.fsdecode(b"caf\xe9"), "yes", "null", "$(touch pwned)", "it's", "#x", "- a", "-dash", "kb/sub",
         ".git", ".git/kb"]


def make(path: Path, state: str, base: Path) -> None:
    """Put `state` at `path`."""
    inside, outside = base / "repo/.inside", base / "outside"
    if state in ("file", "read-only file"):
        path.write_text("ours\n")
        if state == "read-only file":
            path.chmod(0o444)
    elif state == "empty file":
        path.write_bytes(b"")
    elif state == "gitignore with entries":
        path.write_text("*.pyc\n/site/\n.cache/")
    elif state in ("folder", "read-only folder"):
        path.mkdir()
        if state == "read-only folder":
            path.chmod(0o555)
    elif state == "fifo":
        os.mkfifo(path)
    elif state == "link to a file inside":
        inside.mkdir(exist_ok=True)
        (inside / "file").write_text("inside\n")
        path.symlink_to(os.path.relpath(inside / "file", path.parent))
    elif state == "link to a folder inside":
        (inside / "folder").mkdir(parents=True, exist_ok=True)
        path.symlink_to(os.path.relpath(inside / "folder", path.parent), target_is_directory=True)
    elif state == "link to a file outside":
        path.symlink_to(outside / "file")
    elif state == "link to a folder outside":
        path.symlink_to(outside / "folder", target_is_directory=True)
    elif state == "dangling link inside":
        path.symlink_to("missing-inside")
    elif state == "dangling link outside":
        path.symlink_to(outside / "missing")
    elif state == "link loop":
        path.symlink_to(path.name)
    elif state == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    elif state == "huge file":
        path.write_bytes(b"#" * (2 << 20))


def lay_out(base: Path, name: str, in_git: bool, states: dict[str, str]) -> Path:
    """The repository with `states` at kb init's places; returns the knowledge base's folder."""
    (base / "outside/folder").mkdir(parents=True)
    (base / "outside/file").write_text("theirs\n")
    repo = base / "repo"
    repo.mkdir()
    if in_git:
        subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, env=git_environment(), check=True)
    root = repo if name == "." else repo / name
    for place in sorted(states, key=lambda p: p.count("/")):
        where = (repo if PLACES[place] and in_git else root) / place
        parent = where.parent
        try:
            if parent != repo and not parent.is_symlink() and not parent.exists():
                parent.mkdir(parents=True)
            if not parent.is_dir() or parent.is_symlink() or not os.access(parent, os.W_OK) \
                    or not parent.stat().st_mode & 0o200:
                continue  # a parent in a state that holds no child
        except (OSError, UnicodeEncodeError):
            continue
        make(where, states[place], base)
    return root


def writable_again(base: Path) -> None:
    for dirpath, dirnames, _ in os.walk(base):
        for name in dirnames:
            path = os.path.join(dirpath, name)
            if not os.path.islink(path):
                os.chmod(path, 0o755)


def run_init(name: str, cwd: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    previous = os.getcwd()
    os.chdir(cwd)
    signal.alarm(60)  # a FIFO read without care would wait forever
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["init", name])
    finally:
        signal.alarm(0)
        os.chdir(previous)
    return code, out.getvalue(), err.getvalue()


def check_init(name: str, in_git: bool, states: dict[str, str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        try:
            root = lay_out(base, name, in_git, states)
            repo = base / "repo"
            before = snapshot(base)
            outside = snapshot(base / "outside")
            code, out, err = run_init(name, repo)
            after = snapshot(base)
            assert snapshot(base / "outside") == outside, "kb init wrote outside the repository"
            assert "Traceback" not in err and code in (0, 2), (code, err)
            if code == 2:
                assert err.count("\n") == 1 and err.startswith("kb: "), err
                assert after == before, "a refused kb init wrote something"
                return
            assert err == "", err
            top = repo if in_git else root
            for rel in STARTER:
                assert os.path.isfile(root / rel), rel
            for rel in AT_TOP:
                assert os.path.isfile(top / rel), rel
            ignored = {line.strip().lstrip("/")
                       for line in (root / ".gitignore").read_text(errors="replace").splitlines()}
            assert set(IGNORED) <= ignored
            gitignore = os.path.relpath(os.path.realpath(root / ".gitignore"), base)
            changed = {path for path in before if after.get(path) != before[path]}
            assert changed <= {gitignore}, f"kb init changed what it keeps: {changed}"
            assert not [path for path in after if path.endswith(".tmp")], "a temporary file was left"
            again = run_init(name, repo)
            assert again[0] == 0 and snapshot(base) == after, again
        finally:
            writable_again(base)


HOSTILE_STATES = st.dictionaries(st.sampled_from(sorted(PLACES)), st.sampled_from(STATES), max_size=4)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), in_git=st.booleans(), states=HOSTILE_STATES)
def test_kb_init_completes_or_writes_nothing_and_never_writes_outside(name, in_git, states):
    check_init(name, in_git, states)


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(NAMES), in_git=st.booleans(), states=HOSTILE_STATES)
def test_kb_init_over_many_more_hostile_states(name, in_git, states):
    check_init(name, in_git, states)


@pytest.mark.parametrize("states", [
    {".github": "link to a folder outside"},
    {"mkdocs.yml": "dangling link outside"},
    {".gitignore": "link to a file outside"},
    {".gitignore": "fifo"},
    {"docs": "read-only folder"},
    {"docs": "link to a folder inside", ".gitignore": "link to a file inside"},
    {".gitignore": "gitignore with entries", "mkdocs.yml": "read-only file"},
])
def test_the_states_the_issue_names(states):
    check_init("kb", True, states)
    check_init(".", True, states)
