"""The remembered `kb check` result: printed again only while nothing it was computed from changed.

Each case checks the knowledge base twice (the second run must come from memory), changes one
input, and checks again: the result must be a cold run's, and must differ from before, so a stale
memory cannot pass. Changes come right after the first check, within the same second, as an
editor's save does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from generator import pipeline, recheck
from generator.records import disk_cache

from .conftest import SEED_KNOB, edit
from .gitrepo import GitRepo
from .test_rules import _seed_mid_investigation


@pytest.fixture(autouse=True)
def own_cache_key(tmp_path, monkeypatch, git_env):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.delenv("INCIDENT_KB_CACHE", raising=False)
    monkeypatch.setattr(disk_cache, "_key", None)


@pytest.fixture
def repo(seed_kb):
    """The seed story with a stale doc: the knob's value changed after the design docs last did."""
    git = GitRepo(seed_kb, init=False)
    git.git("init", "-q", "-b", "main")
    git.git("add", "-A")
    git.git("commit", "-q", "-m", "the story", when="2026-11-07T00:00:00Z")
    edit(seed_kb / SEED_KNOB, "value: 512", "value: 640")
    edit(seed_kb / "deploy/decode.sh", "TARGET_CTAS=512", "TARGET_CTAS=640")
    git.git("commit", "-q", "-am", "640 now", when="2026-11-08T00:00:00Z")
    return seed_kb


def cold(kb, root, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setenv("INCIDENT_KB_CACHE", "off")
        return kb("check", "--root", root)


def checks_run(monkeypatch) -> list[int]:
    """Counts the checks that run from now on, whole or a re-check of what an edit reaches (a
    remembered result runs none)."""
    runs: list[int] = []
    original, partial = pipeline.check_knowledge_base, recheck.recheck
    monkeypatch.setattr(pipeline, "check_knowledge_base", lambda *a, **k: runs.append(1) or original(*a, **k))

    def counted(*args, **kwargs):
        done = partial(*args, **kwargs)
        if done is not None:
            runs.append(1)
        return done

    monkeypatch.setattr(recheck, "recheck", counted)
    return runs


def git(root: Path, *args: str) -> None:
    GitRepo(root, init=False).git(*args, when="2026-11-09T00:00:00Z")


def replace_keeping_times(path: Path, old: str, new: str) -> None:
    """An edit of the same size that puts the file's times back (only its change time moves)."""
    status = path.stat()
    edit(path, old, new)
    os.utime(path, ns=(status.st_atime_ns, status.st_mtime_ns))


CHANGES: dict[str, Callable[[Path], None]] = {
    "a record edited, same size": lambda root: edit(root / SEED_KNOB, "value: 640", "value: 641"),
    "a record edited, times put back": lambda root: replace_keeping_times(root / SEED_KNOB, "value: 640", "value: 641"),
    "the deploy file a record names": lambda root: edit(root / "deploy/decode.sh", "CTAS=640", "CTAS=641"),
    "the deploy file replaced by a link out of the repository": lambda root: (
        shutil.copy(root / "deploy/decode.sh", root.parent / "outside.sh"),
        (root / "deploy/decode.sh").unlink(), (root / "deploy/decode.sh").symlink_to(root.parent / "outside.sh")),
    "a record added": lambda root: (root / "knobs/new-knob.yaml").write_text(
        "id: new-knob\nname: NEW_KNOB\nsummary: New.\nvalue: 1\nstatus: active\nkind: env\n"
        "history:\n  - date: 2026-11-08\n    status: active\n    incident: no-such-incident\n"),
    "a record removed": lambda root: (root / "incidents/multi-round-harness-hang.yaml").unlink(),
    "a record renamed": lambda root: (root / SEED_KNOB).rename(root / "knobs/renamed.yaml"),
    "a record moved into a subfolder, then broken": lambda root: (
        (root / "knobs/team").mkdir(), (root / SEED_KNOB).rename(root / "knobs/team/x.yaml")),
    "a doc edited (no longer stale)": lambda root: edit(root / "docs/design/DSV4_DECODE_PERF_PLAN.md", "512", "640"),
    "a doc removed": lambda root: (root / "docs/design/DSV4_PD_DEADLOCK_ISSUE.md").unlink(),
    "the doc edit committed": lambda root: (
        edit(root / "docs/design/DSV4_DECODE_PERF_PLAN.md", "512", "640"), git(root, "commit", "-q", "-am", "docs")),
    "pyproject.toml written": lambda root: (root / "pyproject.toml").write_text(
        "[tool.incident-kb.severity]\nstale-doc = \"warning\"\n"),
    "a path a record names appears": lambda root: (root / "deploy/decode.sh").rename(root / "deploy/gone.sh"),
    "HEAD moved back": lambda root: git(root, "reset", "-q", "--hard", "HEAD~1"),
}


@pytest.mark.parametrize("change", CHANGES)
def test_a_change_to_any_input_is_seen(kb, repo, monkeypatch, change):
    first = kb("check", "--root", repo)
    assert first == cold(kb, repo, monkeypatch) and "stale-doc" in first.out
    runs = checks_run(monkeypatch)
    assert kb("check", "--root", repo) == first and runs == []  # remembered
    CHANGES[change](repo)
    after = kb("check", "--root", repo)
    assert runs == [1]
    assert after == cold(kb, repo, monkeypatch)
    assert after != first


def test_the_date_and_the_arguments_are_part_of_the_key(kb, seed_kb, monkeypatch):
    repo = seed_kb
    _seed_mid_investigation(repo)  # reverted on 2026-11-04 to test a hypothesis: overdue two weeks later
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "the story")
    first = kb("check", "--root", repo)
    monkeypatch.setenv("KB_TODAY", "2026-12-30")
    later = kb("check", "--root", repo)
    assert "revert-overdue" in later.out and "revert-overdue" not in first.out
    assert later == cold(kb, repo, monkeypatch)
    assert kb("check", "--root", repo, "--today", "2026-11-08") == first
    assert kb("check", "--root", repo, "--format", "json").out.startswith("{")


@pytest.mark.parametrize("change", ["a record edited, same size", "the deploy file a record names",
                                    "the doc edit committed"])
def test_an_input_changed_while_checking_is_seen_by_the_next_check(kb, repo, monkeypatch, change):
    original = pipeline.check_knowledge_base

    def check_then_change(*args, **kwargs):
        result = original(*args, **kwargs)  # read the old state...
        CHANGES[change](repo)  # ...which changes before the run ends (in the same second)
        return result

    monkeypatch.setattr(pipeline, "check_knowledge_base", check_then_change)
    before = kb("check", "--root", repo)
    monkeypatch.setattr(pipeline, "check_knowledge_base", original)
    after = kb("check", "--root", repo)
    assert after == cold(kb, repo, monkeypatch) and after != before


def test_a_remembered_result_is_not_taken_to_another_folder(kb, repo, tmp_path, monkeypatch):
    kb("check", "--root", repo)
    copy = tmp_path / "copy"
    shutil.copytree(repo, copy, symlinks=True)
    edit(copy / SEED_KNOB, "value: 640", "value: 641")
    runs = checks_run(monkeypatch)
    assert kb("check", "--root", copy) == cold(kb, copy, monkeypatch)
    assert runs == [1, 1]  # the copy's check, then the cold one


# Every look at the file system in what `kb check` runs, outside records/files.py (whose helpers write
# each look down) and the caches (whose entries are no input): each is inside the folders the
# remembered result watches whole, or is written down with `noted()` just before.
LOOK = re.compile(r"lexists|os\.path\.(exists|isfile|isdir|islink|realpath)|\.(exists|is_file|is_dir|is_symlink|"
                  r"resolve|rglob|glob|iterdir|read_text|read_bytes|open)\(|os\.(stat|lstat|walk|listdir|scandir|"
                  r"access|open)\(|\bopen\(|(?<![\w.])(status|signature)\(")
WATCHED_OR_NOTED = {
    ("generator/pipeline.py", "if not folder.is_dir():"): "a record folder: watched",
    ("generator/pipeline.py", "for top, folders, names in os.walk(prefix + kind.folder, onerror=problems.append)"):
        "watched",
    ("generator/pipeline.py", "if not root.is_dir():"): "the root: its path is in the key, its folders watched",
    ("generator/pipeline.py", "if not any((root / kind.folder).is_dir() for kind in RecordKind):"): "watched",
    ("generator/records/consistency.py", "(root / kind.folder / f\"{record_id}{suffix}\").is_file() for suffix in "
                                         "RECORD_SUFFIXES)"): "a record folder: watched",
    ("generator/records/consistency.py", "return catalog.exists(kind, record_id) or any("): "no look: the catalog",
    ("generator/records/record_cache.py", "found = status(path)"): "a record file: watched",
    ("generator/records/consistency.py", "resolved = (root / posix).resolve()"): "noted",
    ("generator/records/consistency.py", "if not resolved.is_relative_to(root.resolve()):"): "noted",
    ("generator/records/consistency.py", "if not resolved.exists():"): "noted",
    ("generator/checking/references.py", "found = {p.relative_to(root).as_posix() for p in (root / DOCS_FOLDER)"
                                         ".rglob(\"*.md\")"): "docs/: watched",
    ("generator/checking/references.py", "rendered = [p.parent for p in (root / DOCS_FOLDER).rglob(RENDER_MANIFEST)]"
                                         "  # kb render's pages, not docs"): "docs/: watched",
    ("generator/checking/severities.py", "if not os.path.lexists(path):"): "noted",
    ("generator/history/gitio.py", "toplevel = Path(str(repo.working_tree_dir)).resolve()"): "git's state is in the key",
    ("generator/history/gitio.py", "relative = folder.resolve().relative_to(toplevel).as_posix()"): "the root's path",
}


def test_every_look_at_the_file_system_is_watched_or_written_down():
    repo = Path(__file__).resolve().parent.parent
    modules = [repo / "generator/pipeline.py", repo / "generator/recheck.py",
               *sorted((repo / "generator").glob("[rch]*/*.py"))]
    found = set()
    for module in modules:
        name = module.relative_to(repo).as_posix()
        # writes.py: what kb writes with (init, edits, render), which `kb check` never runs
        if name in ("generator/records/files.py", "generator/records/disk_cache.py", "generator/records/writes.py") or \
                name.startswith("generator/authoring/"):
            continue
        for line in module.read_text().splitlines():
            if LOOK.search(line) and not line.strip().startswith("#"):
                found.add((name, line.strip()))
    assert found == set(WATCHED_OR_NOTED), "route new looks through records/files.py (or noted()), then list them"


def test_a_remembered_result_is_printed_without_loading_the_models_or_git(kb, repo):
    """What makes it fast: the models (pydantic), git's library and the YAML parser stay unimported."""
    first = kb("check", "--root", repo)
    code = ("import sys; from generator.cli import main; code = main(['check', '--root', sys.argv[1]]); "
            "print([m for m in ('pydantic', 'git', 'ruamel.yaml', 'jinja2', 'generator.pipeline') if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code, str(repo)], capture_output=True, text=True,
                          env={**os.environ}, check=False)
    assert done.stdout == first.out + "[]\n"
