"""`kb check --staged` marks which of the commit's findings were already at HEAD. When the commit only
edits records in place, HEAD's findings are not checked whole from a second temporary tree: the
commit's check is re-checked with those records as HEAD holds them and history read up to HEAD
(check/pr_mode.py `_head_from_commit`). Each case here takes that way (a check of HEAD laid out
whole would fail the test), and says what a check of the commit it would make says (`kb check --base
HEAD~1` in a clean checkout of that commit); the cases that must not take it still agree."""

from __future__ import annotations

import pytest

from incident_kb.check import pr_mode

from ..conftest import SEED_INCIDENT, SEED_KNOB, edit, one_fast
from .test_staged import _committed_seed, _kb, _knob_naming, _normalized
from .test_staged_variations import _commit_check, _git

pytestmark = pytest.mark.usefixtures("git_env")


def _prose(root):
    edit(root / SEED_KNOB, "\nsummary: ", "\nsummary: Edited. ")
    _git(root, "add", SEED_KNOB)


def _broken_by_the_commit(root):
    """HEAD's knob is fine; the commit breaks it: the error is the commit's own and fails it."""
    edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: [512]\n")
    _git(root, "add", SEED_KNOB)


def _fixed_by_the_commit(root):
    """HEAD's knob is broken (committed so); the commit fixes it and edits the incident's prose."""
    edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: [512]\n")
    _git(root, "commit", "-q", "-am", "broken at HEAD")
    edit(root / SEED_KNOB, "\nvalue: [512]\n", "\nvalue: 512\n")
    edit(root / SEED_INCIDENT, "\ntitle: ", "\ntitle: Edited, ")
    _git(root, "add", "-A")


def _still_broken_in_another_field(root):
    """HEAD's knob has an error the commit keeps while it breaks a second field: one is HEAD's."""
    edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: [512]\n")
    _git(root, "commit", "-q", "-am", "broken at HEAD")
    edit(root / SEED_KNOB, "\nstatus: active\n", "\nstatus: maybe-active\n")
    _git(root, "add", SEED_KNOB)


def _dates_out_of_order(root):
    """The commit makes the incident end before it started: a finding of the commit's own, not HEAD's."""
    edit(root / SEED_INCIDENT, "\nresolved: 2026-11-07\n", "\nresolved: 2026-11-01\n")
    _git(root, "add", SEED_INCIDENT)


def _material_incident_change(root):
    """A hypothesis's verdict changes in the commit: the docs about the incident are stale by it."""
    edit(root / SEED_INCIDENT, "    status: refuted\n", "    status: open\n")
    _git(root, "add", SEED_INCIDENT)


def _stale_at_head_already(root):
    """HEAD made the incident's docs stale; the commit edits its prose: the stale docs are HEAD's."""
    edit(root / SEED_INCIDENT, "    status: refuted\n", "    status: open\n")
    _git(root, "commit", "-q", "-am", "verdict changed at HEAD")
    edit(root / SEED_INCIDENT, "\ntitle: ", "\ntitle: Edited, ")
    _git(root, "add", SEED_INCIDENT)


def _two_records_and_work_tree_noise(root):
    """Both records edited (one names the other); unstaged edits and an untracked record beside them."""
    edit(root / SEED_KNOB, "\nsummary: ", "\nsummary: Edited. ")
    edit(root / SEED_INCIDENT, "\ntitle: ", "\ntitle: Edited, ")
    _git(root, "add", "-A")
    edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: [512]\n")  # unstaged
    (root / "knobs/untracked.yaml").write_text(_knob_naming("no-such-incident"))


def _a_file_the_knowledge_base_does_not_read(root):
    edit(root / SEED_KNOB, "\nsummary: ", "\nsummary: Edited. ")
    (root / "NOTES.txt").write_text("not the knowledge base's\n")
    _git(root, "add", "-A")


def _reference_by_a_file_name_breaks(root):
    """At HEAD the incident names knob 'second-knob' twice, whose file carries another id (id-mismatch,
    and the references are not dangling: the file is there); the commit makes one name no knob at all.
    The commit's record files are read from memory (--staged writes none), and still count as there."""
    (root / "knobs/second-knob.yaml").write_text(
        _knob_naming("multi-round-harness-hang").replace("id: second-knob", "id: odd-id", 1))
    edit(root / SEED_INCIDENT, "suspect: {knob: sglang-sm120-mma-target-ctas}", "suspect: {knob: second-knob}")
    edit(root / SEED_INCIDENT, "    status: open\n    knob: sglang-sm120-mma-target-ctas",
         "    status: open\n    knob: second-knob")
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "a knob named by its file's name")
    edit(root / SEED_INCIDENT, "    status: open\n    knob: second-knob", "    status: open\n    knob: no-such-knob")
    _git(root, "add", SEED_INCIDENT)


DERIVED = [_prose, _dates_out_of_order, _material_incident_change, _stale_at_head_already,
           _two_records_and_work_tree_noise, _a_file_the_knowledge_base_does_not_read,
           _reference_by_a_file_name_breaks]


def _doc_edited_too(root):
    edit(root / SEED_KNOB, "\nsummary: ", "\nsummary: Edited. ")
    doc = root / "docs/design/DSV4_DECODE_PERF_PLAN.md"
    doc.write_text(doc.read_text() + "\nEdited.\n")
    _git(root, "add", "-A")


def _id_changed(root):
    edit(root / SEED_KNOB, "id: sglang-sm120-mma-target-ctas", "id: renamed-knob")
    _git(root, "add", SEED_KNOB)


def _record_added(root):
    (root / "knobs/second-knob.yaml").write_text(_knob_naming("multi-round-harness-hang"))
    _git(root, "add", "-A")


def _value_changed_and_the_deploy_file_drifts(root):
    """A finding about a deploy file (knob-drift) is no record file's: no re-check can follow it."""
    edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: 384\n")
    _git(root, "add", SEED_KNOB)


# A record broken at HEAD or in the commit is no job for a re-check (check/recheck.py).
CHECKED_WHOLE = [_broken_by_the_commit, _fixed_by_the_commit, _still_broken_in_another_field, _doc_edited_too,
                 _id_changed, _record_added, _value_changed_and_the_deploy_file_drifts]


def _agree(tmp_path, scenario) -> None:
    root = tmp_path / "kb"
    _committed_seed(root)
    scenario(root)
    code, out, err = _kb("check", "--staged", "--format", "json", "--root", root)
    assert "Traceback" not in err, err
    made_code, made_out, made_err = _commit_check(root, tmp_path)
    context = f"--- staged ---\n{out}{err}\n--- the commit ---\n{made_out}{made_err}"
    assert code == made_code, context
    assert _normalized(out, root) == _normalized(made_out, tmp_path / "commit"), context


# Each case takes a temporary tree and two checks: one of each list runs in `make test-fast` (the one that
# mixes most: two records, unstaged and untracked files; a record broken at HEAD), the rest in the full suite.
@pytest.mark.parametrize("scenario", one_fast(DERIVED, fast=_two_records_and_work_tree_noise),
                         ids=[s.__name__.strip("_") for s in DERIVED])
def test_head_re_checked_from_the_commit_says_what_a_check_of_the_commit_says(tmp_path, monkeypatch, scenario):
    def whole(*args, **kwargs):
        raise AssertionError("HEAD was checked whole")

    monkeypatch.setattr(pr_mode, "check_at_base", whole)
    _agree(tmp_path, scenario)


@pytest.mark.parametrize("scenario", one_fast(CHECKED_WHOLE, fast=_fixed_by_the_commit),
                         ids=[s.__name__.strip("_") for s in CHECKED_WHOLE])
def test_a_commit_that_changes_more_than_records_in_place_has_head_checked_whole(tmp_path, monkeypatch, scenario):
    called = []
    original = pr_mode.check_at_base

    def whole(*args, **kwargs):
        called.append(args)
        return original(*args, **kwargs)

    monkeypatch.setattr(pr_mode, "check_at_base", whole)
    _agree(tmp_path, scenario)
    assert called, "HEAD was re-checked from the commit, which changes more than records in place"
