"""Checks that keep no store (--staged, --base) share the walk over the mainline within one process
(`memo.walks_shared`): `kb check --staged` walks up to HEAD for the commit being made and again for
HEAD. A shared walk is git's one `git log`, and each caller continues its own copy of it."""

from __future__ import annotations

import pytest

from incident_kb.history import memo
from incident_kb.history.gitio import FileChange, open_repository, repository_state
from incident_kb.history.walk import Moment

from ..conftest import SEED_KNOB, edit
from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")
SPECS = [":(top,literal)knobs", ":(top,literal)incidents", ":(top,literal)docs"]


def _walks(root, times):
    with open_repository(root) as repo:
        state = repository_state(repo, root)
        return [memo.committed_walk(repo, None, None, state, state.head, SPECS) for _ in range(times)]


def _as_values(walk):
    return ({path: [(v.at.index, v.at.commit, v.at.date, v.blob, v.path) for v in walk.lineages[path]]
             for path in sorted(walk.lineages)},
            {path: (at.index, at.commit, at.date) for path, at in sorted(walk.doc_changes.items())})


def test_a_shared_walk_is_read_once_and_each_caller_continues_its_own_copy(seed_kb, monkeypatch):
    repo = GitRepo(seed_kb)
    repo.commit("the seed", "2026-11-01T00:00:00Z")
    edit(seed_kb / SEED_KNOB, "\nvalue: 512\n", "\nvalue: 384\n")
    repo.commit("384", "2026-11-02T00:00:00Z")
    logs = []
    read_log = memo.read_log
    monkeypatch.setattr(memo, "read_log", lambda *args: logs.append(args) or read_log(*args))

    (alone,) = _walks(seed_kb, 1)
    assert len(logs) == 1
    with memo.walks_shared():
        (first, first_count), (second, second_count) = _walks(seed_kb, 2)
        assert len(logs) == 2  # one more: the second walk was the first's
        first.apply([FileChange("M", SEED_KNOB, None, "0" * 39 + "1", None)], Moment(first_count, None, None))
        (third, _) = _walks(seed_kb, 1)[0]
    assert len(logs) == 2
    assert first_count == second_count == alone[1] == 2
    assert _as_values(second) == _as_values(third) == _as_values(alone[0])  # the first's continuation is its own
    assert len(first.lineages[SEED_KNOB]) == len(second.lineages[SEED_KNOB]) + 1
    _walks(seed_kb, 1)
    assert len(logs) == 3  # the scope is over
