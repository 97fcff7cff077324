"""A check runs with Python's cyclic garbage collector paused (`pipeline.collector_paused`): its
full passes over the loaded records' objects cost a quarter of a check and free nothing. The
decorator once sat on the `CheckMode` class instead, so checks ran with the collector on."""

from __future__ import annotations

import gc
from collections.abc import Callable
from pathlib import Path

import pytest

from incident_kb.check.pipeline import CheckMode, check_knowledge_base

from ..gitrepo import GitRepo


@pytest.fixture
def many_knobs(empty_kb: Path) -> Path:
    """Enough records that loading them allocates far past the collector's first threshold."""
    for number in range(200):
        (empty_kb / f"knobs/knob-{number}.yaml").write_text(
            f"id: knob-{number}\nname: KNOB_{number}\nsummary: A setting.\nvalue: {number}\nstatus: active\n"
            "history:\n  - date: 2026-11-01\n    status: active\n")
    repo = GitRepo(empty_kb)
    repo.git("add", "-A")
    repo.git("commit", "-qm", "knobs")
    return empty_kb


def _collections_during(run: Callable[[], object]) -> int:
    started: list[int] = []

    def count(phase: str, info: dict) -> None:
        if phase == "start":
            started.append(info["generation"])

    assert gc.isenabled()
    gc.callbacks.append(count)
    try:
        run()
    finally:
        gc.callbacks.remove(count)
    assert gc.isenabled(), "the collector was left paused"
    return len(started)


def test_a_check_runs_without_a_collector_pass(many_knobs: Path):
    assert _collections_during(lambda: check_knowledge_base(many_knobs, CheckMode(cache=False))) == 0


def test_the_same_check_with_the_collector_on_does_collect(many_knobs: Path):
    """The premise of the test above: this check allocates enough to trigger passes."""
    assert _collections_during(lambda: check_knowledge_base.__wrapped__(many_knobs, CheckMode(cache=False))) > 0
