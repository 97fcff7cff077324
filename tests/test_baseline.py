"""PR mode: `kb check --base REF` fails only on what the change introduced."""

from __future__ import annotations

import json

import pytest

from .conftest import SEED_KNOB
from .story import DEADLOCK, INCIDENT, KNOB, PERF_PLAN, story_until

pytestmark = pytest.mark.usefixtures("git_env")


def check(kb, root, *extra):
    result = kb("check", "--root", root, "--format", "json", *extra)
    return result.code, json.loads(result.out)["findings"]


def test_the_commit_that_records_the_root_cause_fails_until_the_docs_are_updated(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 3)
    code, found = check(kb, root, "--base", ids[2])
    assert code == 1
    assert [(f["code"], f["severity"], f["path"]) for f in found] == [
        ("stale-doc", "error", PERF_PLAN), ("stale-doc", "error", DEADLOCK), ("reclaimable-knob", "error", SEED_KNOB)]
    assert not any(f["message"].startswith("pre-existing") for f in found)


def test_findings_already_at_the_base_do_not_fail_the_run(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 3)
    repo.write("docs/index.md", (root / "docs/index.md").read_text() + "\nAn unrelated edit.\n")
    repo.commit("Unrelated", "2026-11-07T12:00:00Z")
    result = kb("check", "--root", root, "--base", ids[3])
    assert result.code == 0
    assert f"{PERF_PLAN}:8:1: warning stale-doc: pre-existing at {ids[3]} (error): this doc refers" in result.out
    assert f"{SEED_KNOB}:8:1: warning reclaimable-knob: pre-existing at {ids[3]} (error): knob" in result.out
    assert result.out.endswith(f"0 errors, 3 warnings in 3 files (1 knob, 1 incident checked; 3 findings "
                               f"pre-existing at {ids[3]} do not fail the run)\n")


def test_a_new_change_to_a_record_a_stale_doc_refers_to_is_new(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 4)
    code, found = check(kb, root, "--base", ids[3])
    assert code == 1
    new = [(f["path"], f["subject"]) for f in found if f["severity"] == "error"]
    old = [(f["path"], f["subject"]) for f in found if f["message"].startswith(f"pre-existing at {ids[3]}")]
    assert new == [(PERF_PLAN, KNOB), (DEADLOCK, KNOB)]  # the restore is this change's doing
    assert old == [(PERF_PLAN, INCIDENT), (DEADLOCK, INCIDENT)]  # the root cause was recorded before


def test_a_finding_that_only_moved_is_still_pre_existing(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 3)
    knob = root / SEED_KNOB
    knob.write_text(knob.read_text().replace("\nkind: env\n", "\n# The setting:\nkind: env\n", 1)
                    .replace("\nvalue: 512\n", "\n# tuned\nvalue: 512\n"))
    repo.commit("Comments", "2026-11-07T12:00:00Z")
    code, found = check(kb, root, "--base", ids[3])
    reclaimable = [f for f in found if f["code"] == "reclaimable-knob"]
    assert reclaimable[0]["line"] == 9 and reclaimable[0]["severity"] == "warning"
    assert code == 0


def test_a_base_without_a_knowledge_base_makes_everything_new(kb, tmp_path):
    root = tmp_path / "kb"
    from .gitrepo import GitRepo

    repo = GitRepo(root)
    repo.write("README.md", "# A service\n")
    first = repo.commit("Start", "2026-11-01T10:00:00Z")
    from .story import step

    for number in (1, 2, 3):
        step(repo, number)
    code, found = check(kb, root, "--base", first)
    assert code == 1 and all(f["severity"] == "error" for f in found if f["code"] != "correlation-only-revert")


def test_the_work_tree_is_untouched_by_the_base_check(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 4)
    before = repo.git("status", "--porcelain", "--ignored")
    worktrees = repo.git("worktree", "list")
    check(kb, root, "--base", ids[1])
    assert repo.git("status", "--porcelain", "--ignored") == before
    assert repo.git("worktree", "list") == worktrees
