"""The remembered `kb check` result: printed again only while nothing it was computed from changed.

Each case checks the knowledge base twice (the second run must come from memory), changes one
input, and checks again: the result must be a cold run's, and must differ from before, so a stale
memory cannot pass. Changes come right after the first check, within the same second, as an
editor's save does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from incident_kb.check import pipeline, recheck

from ..conftest import SEED_KNOB, edit, one_fast
from ..gitrepo import GitRepo
from ..rules.test_rules import _seed_mid_investigation


@pytest.fixture(autouse=True)
def no_git_configuration(git_env):
    """Git as the tests' repositories are made (conftest gives each test its own user cache)."""


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


@pytest.mark.parametrize("change", one_fast(CHANGES))
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


def test_a_remembered_result_is_printed_without_loading_the_models_or_git(kb, repo):
    """What makes it fast: the models (pydantic), git's library and the YAML parser stay unimported."""
    first = kb("check", "--root", repo)
    code = ("import sys; from incident_kb.cli import main; code = main(['check', '--root', sys.argv[1]]); "
            "print([m for m in ('pydantic', 'git', 'ruamel.yaml', 'jinja2', 'incident_kb.check.pipeline') "
            "if m in sys.modules])")
    done = subprocess.run([sys.executable, "-c", code, str(repo)], capture_output=True, text=True,
                          env={**os.environ}, check=False)
    assert done.stdout == first.out + "[]\n"


def git_calls_logged(tmp_path: Path, monkeypatch) -> Path:
    """Every git command run from now on (kb's, and GitPython's for kb) logged, one line each, by a
    real git behind a script of the same name first on PATH."""
    log, folder = tmp_path / "git-calls", tmp_path / "logging-git"
    folder.mkdir()
    (folder / "git").write_text(f'#!/bin/sh\nprintf "%s\\n" "$*" >> "{log}"\nexec "{shutil.which("git")}" "$@"\n')
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


def test_a_check_the_memory_missed_asks_git_what_its_key_read_once(kb, repo, monkeypatch, tmp_path):
    """git's view, read for the remembered result's key (HEAD, the index's place, the configuration,
    whether the clone is partial), is what the history pass then reads: git is not asked again."""
    kb("check", "--root", repo)
    edit(repo / "docs/design/DSV4_PD_DEADLOCK_ISSUE.md", "# ", "# Edited: ")  # the memory misses
    log = git_calls_logged(tmp_path, monkeypatch)
    result = kb("check", "--root", repo)
    calls = log.read_text().splitlines()
    asked = lambda *words: [call for call in calls if set(words) <= set(call.split())]  # noqa: E731
    assert len(asked("rev-parse")) == 1 and len(asked("config")) == 1, calls
    assert len(asked("log")) == 1 and len(asked("diff")) == 1, calls  # the history pass did run
    assert result == cold(kb, repo, monkeypatch)


# What a check never needs: the site's stack and kb's own site, init and editing code. Each costs every
# `kb check` process (the pre-commit hook, CI) its start.
NOT_FOR_CHECKING = ("mkdocs", "material", "jinja2", "markdown", "pymdownx", "pygments", "yaml", "watchdog",
                    "incident_kb.website", "incident_kb.adoption", "incident_kb.authoring")


def test_a_cold_check_process_imports_nothing_a_check_does_not_need(kb, repo, monkeypatch):
    monkeypatch.setenv("INCIDENT_KB_CACHE", "off")
    first = kb("check", "--root", repo)
    code = ("import sys; from incident_kb.cli import main; code = main(['check', '--root', sys.argv[1]]); "
            f"print(sorted({{m for m in sys.modules for n in {NOT_FOR_CHECKING!r} "
            "if m == n or m.startswith(n + '.')}))")
    done = subprocess.run([sys.executable, "-c", code, str(repo)], capture_output=True, text=True,
                          env={**os.environ}, check=False)
    assert done.stdout == first.out + "[]\n", done.stderr


# ---- git's view: what changes git's answers without changing a file kb reads ---------------------------

DOCS = ("docs/design/DSV4_DECODE_PERF_PLAN.md", "docs/design/DSV4_PD_DEADLOCK_ISSUE.md")


def _docs_executable(root: Path) -> None:
    for doc in DOCS:
        (root / doc).chmod(0o755)  # a change to git while core.fileMode is on: the docs look fresh


def _docs_crlf(root: Path) -> None:
    for doc in DOCS:
        (root / doc).write_bytes((root / doc).read_bytes().replace(b"\n", b"\r\n"))  # a change, unless git normalizes


def _user_level(monkeypatch, tmp_path: Path) -> tuple[Path, Path]:
    """git reads the user's and the system's configuration from files of the test's ($HOME, $XDG_CONFIG_HOME,
    GIT_CONFIG_SYSTEM) instead of none."""
    home, xdg = tmp_path / "home", tmp_path / "xdg"
    (xdg / "git").mkdir(parents=True, exist_ok=True)
    home.mkdir(exist_ok=True)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    monkeypatch.delenv("GIT_CONFIG_NOSYSTEM", raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(xdg))
    monkeypatch.setenv("GIT_CONFIG_SYSTEM", str(tmp_path / "system-config"))
    return home, xdg


def _git_config(file: Path, key: str, value: str) -> None:
    subprocess.run(["git", "config", "--file", str(file), key, value], check=True)


GIT_VIEWS: dict[str, tuple[Callable[[Path], None], Callable[[Path, object, Path], None]]] = {
    "core.fileMode in the repository's configuration": (
        _docs_executable, lambda root, patch, tmp: git(root, "config", "core.fileMode", "false")),
    "core.fileMode in $HOME/.gitconfig": (
        _docs_executable, lambda root, patch, tmp: _git_config(_user_level(patch, tmp)[0] / ".gitconfig",
                                                               "core.fileMode", "false")),
    "core.fileMode in $XDG_CONFIG_HOME/git/config": (
        _docs_executable, lambda root, patch, tmp: _git_config(_user_level(patch, tmp)[1] / "git/config",
                                                               "core.fileMode", "false")),
    "core.fileMode in the system's configuration": (
        _docs_executable, lambda root, patch, tmp: (_user_level(patch, tmp),
                                                    _git_config(tmp / "system-config", "core.fileMode", "false"))),
    "core.fileMode in GIT_CONFIG_* of the environment": (
        _docs_executable, lambda root, patch, tmp: (patch.setenv("GIT_CONFIG_COUNT", "1"),
                                                    patch.setenv("GIT_CONFIG_KEY_0", "core.fileMode"),
                                                    patch.setenv("GIT_CONFIG_VALUE_0", "false"))),
    "core.autocrlf": (_docs_crlf, lambda root, patch, tmp: git(root, "config", "core.autocrlf", "true")),
    ".gitattributes": (_docs_crlf, lambda root, patch, tmp: (root / ".gitattributes").write_text("*.md text\n")),
    "docs/.gitattributes": (_docs_crlf, lambda root, patch, tmp: (
        root / "docs/.gitattributes").write_text("*.md text\n")),
    ".git/info/attributes": (_docs_crlf, lambda root, patch, tmp: (
        root / ".git/info/attributes").write_text("*.md text\n")),
    "the user's attributes file": (_docs_crlf, lambda root, patch, tmp: (
        _user_level(patch, tmp)[1] / "git/attributes").write_text("*.md text\n")),
}


@pytest.mark.parametrize("change", one_fast(GIT_VIEWS))
def test_a_change_of_git_s_view_is_seen(kb, repo, monkeypatch, tmp_path, change):
    """git's configuration and attributes at every level change what it reports as uncommitted: the docs
    made executable (or CRLF) look fresh until git is told not to count that."""
    git(repo, "config", "--unset", "core.fileMode")  # `git init` writes it; a level below can then decide
    if change.startswith("core.fileMode in") and "repository" not in change:
        _user_level(monkeypatch, tmp_path)  # the same files before the change, so that only the change counts
    setup, make = GIT_VIEWS[change]
    setup(repo)
    first = kb("check", "--root", repo)
    assert first == cold(kb, repo, monkeypatch) and "stale-doc" not in first.out
    runs = checks_run(monkeypatch)
    assert kb("check", "--root", repo) == first and runs == []  # remembered
    make(repo, monkeypatch, tmp_path)
    after = kb("check", "--root", repo)
    assert after == cold(kb, repo, monkeypatch) and "stale-doc" in after.out


def test_git_s_view_in_a_linked_worktree_reads_the_common_configuration(kb, repo, monkeypatch, tmp_path):
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked), "HEAD")
    git(repo, "config", "--unset", "core.fileMode")
    _docs_executable(linked)
    first = kb("check", "--root", linked)
    assert "stale-doc" not in first.out
    git(repo, "config", "core.fileMode", "false")  # in the common folder's config, not the worktree's
    after = kb("check", "--root", linked)
    assert after == cold(kb, linked, monkeypatch) and "stale-doc" in after.out


def test_history_remembered_in_a_shallow_clone_is_not_reused_after_unshallow(kb, repo, monkeypatch, tmp_path):
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(clone))
    shallow = kb("check", "--root", clone, "--allow-shallow")
    assert "stale-doc" not in shallow.out and "shallow clone" in shallow.err  # everything at the boundary
    git(clone, "fetch", "-q", "--unshallow")  # the same HEAD, a longer history
    whole = kb("check", "--root", clone, "--allow-shallow")
    assert whole == cold(kb, clone, monkeypatch) and "stale-doc" in whole.out


def test_a_file_reached_through_a_linked_folder_is_watched(kb, repo, monkeypatch):
    """docs/ops -> ../deploy, and the knob's applies_to names docs/ops/decode.sh: an edit there is seen."""
    (repo / "docs/ops").symlink_to("../deploy")
    edit(repo / SEED_KNOB, "  - path: deploy/decode.sh", "  - path: docs/ops/decode.sh")
    first = kb("check", "--root", repo)
    assert "knob-drift" not in first.out
    edit(repo / "deploy/decode.sh", "TARGET_CTAS=640", "TARGET_CTAS=700")
    after = kb("check", "--root", repo)
    assert after == cold(kb, repo, monkeypatch) and "knob-drift" in after.out


def test_when_git_s_view_cannot_be_known_nothing_is_remembered(kb, repo, monkeypatch, user_cache):
    """An answer kb does not know (an older git refusing an option, say): no key can hold git's view,
    so every run checks, and the store keeps no result."""
    from incident_kb.history import git_view

    original = git_view.run_git
    monkeypatch.setattr(git_view, "run_git", lambda folder, *args: (129, "", "error: unknown option") if
                        args[0] == "rev-parse" else original(folder, *args))
    runs = checks_run(monkeypatch)
    first, second = kb("check", "--root", repo), kb("check", "--root", repo)
    assert first == second == cold(kb, repo, monkeypatch) and len(runs) == 3
    assert not any(path.name == "check-result" for path in user_cache.rglob("*"))
