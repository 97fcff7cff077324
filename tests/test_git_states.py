"""Where history is missing or odd: shallow clones, plain folders, no commits, detached HEAD.
Each gets one line that says what and how to fix it, never a traceback."""

from __future__ import annotations

import json

import pytest

from .gitrepo import GitRepo
from .story import step, story_until

pytestmark = pytest.mark.usefixtures("git_env")


def test_shallow_clone_is_refused_with_the_fix(kb, tmp_path):
    origin, _ = story_until(tmp_path / "origin", 4)
    clone = GitRepo(tmp_path / "clone", init=False)
    GitRepo(tmp_path).git("clone", "-q", "--depth", "1", f"file://{origin.root}", str(clone.root))
    result = kb("check", "--root", clone.root)
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1 and result.err.startswith("kb: ")
    assert "shallow clone" in result.err and "fetch-depth: 0" in result.err and "--allow-shallow" in result.err
    # With --allow-shallow it checks what it can: in one commit nothing looks changed after the docs.
    allowed = kb("check", "--root", clone.root, "--format", "json", "--allow-shallow")
    assert "shallow clone" in allowed.err
    assert [f["code"] for f in json.loads(allowed.out)["findings"]] == []
    assert allowed.code == 0


def test_outside_git_the_git_checks_are_skipped_with_a_warning(kb, seed_kb):
    result = kb("check", "--root", seed_kb)
    assert (result.code, result.out) == (0, "all good: 1 knob, 1 incident checked\n")
    assert result.err.startswith("kb: warning: ") and result.err.count("\n") == 1
    assert "not inside a git repository" in result.err and "stale-doc" in result.err and "git init" in result.err


def test_a_repository_with_no_commits(kb, seed_kb):
    GitRepo(seed_kb)
    result = kb("check", "--root", seed_kb)
    assert result.code == 0
    assert "has no commits yet" in result.err and "git commit" in result.err


def test_detached_head_reads_history_from_that_commit(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 4)
    repo.git("checkout", "-q", "--detach", ids[3])
    result = kb("check", "--root", root, "--format", "json")
    assert result.code == 1
    assert f"HEAD is detached at {ids[3]}" in result.err and result.err.count("\n") == 1
    assert {f["code"] for f in json.loads(result.out)["findings"]} == {"stale-doc", "reclaimable-knob"}


def test_base_outside_git_or_unknown_is_a_clear_error(kb, seed_kb, tmp_path):
    result = kb("check", "--root", seed_kb, "--base", "main")
    assert result.code == 2 and "--base needs the git history" in result.err and result.err.count("\n") == 1
    root = tmp_path / "repo"
    story_until(root, 1)
    result = kb("check", "--root", root, "--base", "origin/main")
    assert result.code == 2 and "no such commit" in result.err and "git fetch" in result.err


def test_knowledge_base_in_a_subfolder_of_its_repository(kb, tmp_path):
    top = GitRepo(tmp_path / "mono")
    inner = GitRepo(top.root / "kb", init=False)
    inner.commit = top.commit  # type: ignore[method-assign]
    for number in range(1, 4):
        step(inner, number)
    result = kb("check", "--root", inner.root, "--format", "json")
    stale = [f["path"] for f in json.loads(result.out)["findings"] if f["code"] == "stale-doc"]
    assert stale == ["docs/design/DSV4_DECODE_PERF_PLAN.md", "docs/design/DSV4_PD_DEADLOCK_ISSUE.md"]
