"""What kb reads from git's objects is bounded like what it reads from disk: a huge old version of a
record is passed over, never held in memory; a huge file at `--base` is laid out by its size alone,
so the base's check refuses it as the work tree's does."""

from __future__ import annotations

import tracemalloc

import pytest

from incident_kb.check.pipeline import CheckMode, check_knowledge_base
from incident_kb.history.gitio import Oversized, open_repository, read_blobs

from ..conftest import SEED_KNOB
from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")
HUGE = 40 << 20  # 40 MiB: a record (limit 1 MiB) nobody should have committed


def peak_while(run) -> int:
    """The most memory Python held while `run()` ran, in bytes."""
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


@pytest.fixture
def huge_version(seed_kb):
    """The seed, with one commit in which the knob's file was 40 MiB, then the knob again."""
    repo = GitRepo(seed_kb)
    repo.commit("the seed", "2026-11-01T00:00:00Z")
    good = (seed_kb / SEED_KNOB).read_bytes()
    (seed_kb / SEED_KNOB).write_bytes(good + b"#" * HUGE)
    repo.commit("a huge version", "2026-11-02T00:00:00Z")
    big_blob = repo.git("rev-parse", f"HEAD:{SEED_KNOB}")
    (seed_kb / SEED_KNOB).write_bytes(good)
    repo.commit("the knob again", "2026-11-03T00:00:00Z")
    return seed_kb, big_blob


def test_a_blob_over_the_limit_is_passed_over_not_held(huge_version):
    root, big_blob = huge_version
    small_blob = GitRepo(root, init=False).git("rev-parse", f"HEAD:{SEED_KNOB}")
    found: dict = {}
    with open_repository(root) as repo:
        peak = peak_while(lambda: found.update(read_blobs(repo, [big_blob, small_blob], limit=1 << 20)))
    assert found[big_blob] == Oversized(HUGE + len(found[small_blob]))
    assert found[small_blob].startswith(b"#")  # the modeline: read whole, after the huge one
    assert peak < 8 << 20, peak


def test_a_huge_old_version_of_a_record_costs_no_memory_in_a_check(huge_version):
    root, _ = huge_version
    peak = peak_while(lambda: check_knowledge_base(root, CheckMode(timelines=True)))
    assert peak < HUGE // 2, peak
    kb = check_knowledge_base(root, CheckMode(timelines=True))
    assert not [f for f in kb.findings if f.severity.value == "error"]


def test_a_huge_file_at_the_base_is_refused_there_as_in_the_work_tree(kb, seed_kb):
    repo = GitRepo(seed_kb)
    (seed_kb / "deploy/decode.sh").write_bytes(b"#" * (70 << 20))  # over every reader's limit
    repo.commit("a huge deploy file", "2026-11-01T00:00:00Z")
    here = kb("check", "--root", seed_kb, "--format", "json")
    assert "it is 70.0 MiB, over the limit of 10.0 MiB" in here.out
    based = kb("check", "--root", seed_kb, "--base", "HEAD")
    assert based.code == 0, based.out  # the same finding at the base: pre-existing, not new
    assert "pre-existing at HEAD" in based.out and "70.0 MiB" in based.out
