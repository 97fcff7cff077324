"""The history pass's `git log`, started while the records load (`timelines.history_read_ahead`): one
git walk a check, never a stale one. Its output is used only for the very command read_history runs,
so a HEAD that moved in between, other paths or a walk kept in the cache each get git's own answer."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from incident_kb.check.pipeline import PLAIN, CheckMode, check_knowledge_base
from incident_kb.history.timelines import History, history_read_ahead, read_history
from incident_kb.records.vocabulary import RecordKind

from ..conftest import SEED_KNOB, edit
from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")
FOLDERS = ("knobs", "incidents", "docs")


@pytest.fixture
def committed(seed_kb: Path) -> GitRepo:
    repo = GitRepo(seed_kb)
    repo.commit("the seed", "2026-11-01T00:00:00Z")
    edit(seed_kb / SEED_KNOB, "\nstatus: active\n", "\nstatus: reverted\n")
    repo.commit("reverted", "2026-11-02T00:00:00Z")
    return repo


@pytest.fixture
def traced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A file git writes an event into for every git command kb runs (GIT_TRACE2_EVENT)."""
    trace = tmp_path / "trace.json"
    monkeypatch.setenv("GIT_TRACE2_EVENT", str(trace))
    return trace


def started(trace: Path) -> list[dict]:
    """The start events of the git commands run, as git wrote them."""
    if not trace.exists():
        return []
    events = [json.loads(line) for line in trace.read_text().splitlines() if line.endswith("}")]
    return [event for event in events if event.get("event") == "start"]


def git_logs(trace: Path) -> list[list[str]]:
    """The `git log` commands started, as argument lists."""
    return [event["argv"] for event in started(trace) if "log" in event["argv"][1:2]]


def forked_at(event: dict) -> int:
    """The process id in a trace event's session id (`...-P0000abcd`): in the order processes were
    made (git writes its start event only once it runs, which a loaded machine may delay)."""
    return int(event["sid"].rpartition("-P")[2], 16)


def wait_for_logs(trace: Path, count: int) -> list[list[str]]:
    deadline = time.monotonic() + 60
    while len(logs := git_logs(trace)) < count and time.monotonic() < deadline:
        time.sleep(0.05)
    return logs


def seen(history: History) -> tuple[object, ...]:
    return ({key: [(c.commit, c.summary) for c in changes] for key, changes in history.changes.items()},
            {doc: moment.commit for doc, moment in history.doc_changes.items()})


def records(root: Path) -> dict[str, tuple[RecordKind, str]]:
    return {SEED_KNOB: (RecordKind.KNOB, Path(SEED_KNOB).stem)}


def test_the_walk_started_ahead_is_the_one_git_walk(committed, traced):
    root = committed.root
    expected = seen(read_history(root, records(root), FOLDERS, cache=False))
    traced.unlink()
    with history_read_ahead(root, FOLDERS, cache=False) as ahead:
        assert ahead is not None
        assert len(wait_for_logs(traced, 1)) == 1  # started with no read_history called
        history = read_history(root, records(root), FOLDERS, cache=False, ahead=ahead)
    assert seen(history) == expected
    assert len(git_logs(traced)) == 1
    assert any("status active -> reverted" in summary for changes in seen(history)[0].values()
               for _, summary in changes)


def test_a_head_moved_meanwhile_is_read_from_git_again(committed, traced):
    root = committed.root
    with history_read_ahead(root, FOLDERS, cache=False) as ahead:
        wait_for_logs(traced, 1)  # under way (else it might be killed unstarted, and not counted below)
        edit(root / SEED_KNOB, "\nstatus: reverted\n", "\nstatus: active\n")
        committed.commit("restored", "2026-11-03T00:00:00Z")
        history = read_history(root, records(root), FOLDERS, cache=False, ahead=ahead)
    assert seen(history) == seen(read_history(root, records(root), FOLDERS, cache=False))
    assert [summary for _, summary in next(iter(seen(history)[0].values()))][-1] == "status reverted -> active"
    assert len(git_logs(traced)) == 3  # ahead, again for the new HEAD, and the reference read


def test_other_paths_are_read_from_git_again(committed, traced):
    root = committed.root
    with history_read_ahead(root, FOLDERS, cache=False) as ahead:
        wait_for_logs(traced, 1)
        history = read_history(root, records(root), FOLDERS, ["README.md"], cache=False, ahead=ahead)
    logs = git_logs(traced)
    assert len(logs) == 2 and ":(top,literal)README.md" in logs[-1]
    assert seen(history) == seen(read_history(root, records(root), FOLDERS, ["README.md"], cache=False))


def test_no_walk_is_started_where_a_kept_one_is_continued(committed, traced):
    root = committed.root
    check_knowledge_base(root, PLAIN)  # keeps the walk in the cache
    with history_read_ahead(root, FOLDERS) as ahead:
        assert ahead is None
    with history_read_ahead(root, FOLDERS, cache=False) as ahead:
        assert ahead is not None


def test_nothing_is_started_without_history(seed_kb, traced):
    with history_read_ahead(seed_kb, FOLDERS, cache=False) as ahead:  # not a repository
        assert ahead is None
    GitRepo(seed_kb)
    with history_read_ahead(seed_kb, FOLDERS, cache=False) as ahead:  # no commit yet
        assert ahead is None
    assert git_logs(traced) == []


def test_a_cold_check_starts_its_one_walk_before_the_records_load(committed, traced, monkeypatch):
    monkeypatch.setenv("INCIDENT_KB_CACHE", "off")
    kb = check_knowledge_base(committed.root, CheckMode(timelines=True))
    events = sorted(started(traced), key=forked_at)
    commands = [" ".join(event["argv"][1:3]) for event in events]
    assert commands.count("log --first-parent") == 1
    # The history pass opens the repository after the records loaded (gitio.open_repository asks HEAD's
    # commit first); the walk was under way before.
    opening = "rev-parse HEAD^{commit}"
    assert commands.count(opening) == 2  # the read-ahead's and the history pass's
    assert commands.index("log --first-parent") < len(commands) - commands[::-1].index(opening) - 1
    assert kb.history is not None and kb.history.changes


def test_the_knobs_folder_is_the_pathspec_git_tries_first(committed, traced):
    """git tries a path against the pathspecs from the last back, for every entry of every tree it
    compares: the folder with the most records goes last (a fifth of the walk's time at 10,000)."""
    root = committed.root
    read_history(root, records(root), FOLDERS, ["README.md"], cache=False)
    log = git_logs(traced)[0]
    assert log[log.index("--") + 1:] == [f":(top,literal){p}" for p in ("README.md", "docs", "incidents", "knobs")]
