"""`mkdocs serve`'s check after a record file's save (`recheck.rechecked_knowledge_base`): the knowledge
base a whole check gives (findings, catalog, timelines, references, notes, ledger), from a re-check of
the edited record and what it reaches; None where a re-check cannot follow, and the whole check runs."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from incident_kb.check.pipeline import SITE, KnowledgeBase, check_knowledge_base
from incident_kb.check.recheck import rechecked_knowledge_base
from incident_kb.records.vocabulary import RecordKind

from ..conftest import SEED_INCIDENT, SEED_KNOB, edit
from ..gitrepo import GitRepo
from ..site_support import copy_knowledge_base

SERVE = dataclasses.replace(SITE, ledger=True)
DEPLOY = "applies_to:\n  - path: deploy/decode.sh\n"


def _as_checked(kb: KnowledgeBase) -> tuple[object, ...]:
    assert kb.ledger is not None
    return (kb.findings, dict(kb.catalog.knobs), dict(kb.catalog.incidents), dict(kb.timelines), kb.references,
            kb.notes, kb.today, kb.summary, kb.ledger.to_json())


def _seed(tmp_path: Path, deploy: bool) -> Path:
    root = copy_knowledge_base(tmp_path / "kb").resolve()
    if not deploy:
        edit(root / SEED_KNOB, DEPLOY, "")
    GitRepo(root).commit("the seed story", when="2026-11-08T12:00:00Z")
    return root


@pytest.mark.parametrize(("path", "old", "new"), [
    (SEED_KNOB, "value: 512\n", "value: 384\n"),  # material: the stale docs, the timeline's uncommitted change
    (SEED_KNOB, "summary: Target thread-block", "summary: Freshly edited target thread-block"),
    (SEED_KNOB, "    note: Deployed in the decode service script", "    note: Deployed by hand"),
    (SEED_INCIDENT, "One of the user's client-side proxies corrupts", "One of the user's client-side proxies mangles"),
])
def test_a_record_edit_rechecked_gives_what_a_whole_check_gives(tmp_path, git_env, path, old, new):
    root = _seed(tmp_path, deploy=False)
    before = check_knowledge_base(root, SERVE)
    edit(root / path, old, new)
    again = rechecked_knowledge_base(before, [path], SERVE)
    assert again is not None, "the re-check did not follow a record's edit"
    assert _as_checked(again) == _as_checked(check_knowledge_base(root, SERVE))


def test_a_finding_outside_the_records_is_left_to_the_whole_check(tmp_path, git_env):
    """The knob's drift finding is filed under its deploy file: no re-check of the records reaches it."""
    root = _seed(tmp_path, deploy=True)
    before = check_knowledge_base(root, SERVE)
    edit(root / SEED_KNOB, "value: 512\n", "value: 384\n")
    assert rechecked_knowledge_base(before, [SEED_KNOB], SERVE) is None
    assert rechecked_knowledge_base(dataclasses.replace(before, ledger=None), [SEED_KNOB], SERVE) is None


def test_git_history_is_read_again_for_the_edited_records_alone(tmp_path, git_env):
    """git's view the same: every other record's timeline is the last pass's (the same objects), and
    series of edits of different records (material ones among them) still give the whole check's."""
    root = _seed(tmp_path, deploy=False)
    kb = check_knowledge_base(root, SERVE)
    steps = [(SEED_KNOB, "value: 512\n", "value: 384\n"),
             (SEED_INCIDENT, "One of the user's client-side proxies corrupts",
              "One of the user's client-side proxies mangles"),
             (SEED_KNOB, "value: 384\n", "value: 256\n")]
    for path, old, new in steps:
        edit(root / path, old, new)
        again = rechecked_knowledge_base(kb, [path], SERVE)
        assert again is not None and again.history is not None and kb.history is not None
        edited = next(key for key, source in again.catalog.sources.items() if source.rel_path == path)
        kept = [key for key in again.timelines if key != edited]
        assert kept and all(again.timelines[key] is kb.timelines[key] for key in kept)
        assert _as_checked(again) == _as_checked(check_knowledge_base(root, SERVE))
        kb = again
    assert kb.timelines[(RecordKind.KNOB, "sglang-sm120-mma-target-ctas")][-1].commit is None  # the work tree's
