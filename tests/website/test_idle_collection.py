"""The live preview's garbage collector: paused while a rebuild runs, and what a rebuild dropped is
still freed, in the idle moment after it or, when rebuilds come too close together, at the start
of a later one."""

from __future__ import annotations

import gc
import time
import weakref
from collections.abc import Iterator

import pytest

from incident_kb.website.mkdocs.idle_collection import MAX_WAITING, IdleCollection


class _Cycle:
    """Garbage only the cyclic collector frees (as MkDocs' pages and files, which refer to each other)."""

    def __init__(self) -> None:
        self.me = self


def _dropped_cycle() -> weakref.ref[_Cycle]:
    return weakref.ref(_Cycle())


@pytest.fixture
def collection() -> Iterator[IdleCollection]:
    collection = IdleCollection(delay=0.2)
    try:
        yield collection
    finally:
        collection.stop()
        gc.enable()


def _wait_until(condition, timeout: float = 5) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.02)
    return condition()


def test_a_rebuild_runs_without_the_collector_and_its_garbage_goes_once_idle(collection):
    collection.rebuild_started()
    assert not gc.isenabled()
    cycle = _dropped_cycle()
    made = [[] for _ in range(100_000)]  # enough allocations for many automatic collections
    assert cycle() is not None  # none ran in the middle of the rebuild
    del made
    collection.rebuild_ended()
    assert cycle() is not None and not gc.isenabled()  # the browser reloads first
    assert _wait_until(lambda: cycle() is None and gc.isenabled()), "the rebuild's garbage was never freed"


def test_a_rebuild_that_starts_before_the_idle_moment_keeps_the_collector_paused(collection):
    collection.rebuild_started()
    cycle = _dropped_cycle()
    collection.rebuild_ended()
    collection.rebuild_started()  # the next save came quickly
    time.sleep(0.5)
    assert not gc.isenabled() and cycle() is not None
    collection.rebuild_ended()
    assert _wait_until(lambda: cycle() is None and gc.isenabled())


def test_garbage_of_rebuilds_in_quick_succession_is_freed_at_the_start_of_a_later_one(collection):
    cycles = []
    for _ in range(MAX_WAITING):
        collection.rebuild_started()
        cycles.append(_dropped_cycle())
        collection.rebuild_ended()
    assert all(cycle() is not None for cycle in cycles)
    collection.rebuild_started()  # before any idle moment came
    assert all(cycle() is None for cycle in cycles)
    assert not gc.isenabled()


def test_stopping_gives_the_collector_back(collection):
    collection.rebuild_started()
    collection.stop()  # a failed build, or the end of the serve
    assert gc.isenabled()


@pytest.fixture
def generations() -> Iterator[list[int]]:
    """The generation of every collection that starts meanwhile (0 and 1 young, 2 full)."""
    started: list[int] = []

    def note(phase: str, info: dict) -> None:
        if phase == "start":
            started.append(info["generation"])
    gc.callbacks.append(note)
    try:
        yield started
    finally:
        gc.callbacks.remove(note)


class _Held:
    """An object that lives across rebuilds until dropped, then garbage only a full collection frees."""

    def __init__(self) -> None:
        self.cycle = _Cycle()


def _old_cycle() -> tuple[_Held, weakref.ref[_Cycle]]:
    held = _Held()
    gc.collect()  # it survived full collections: it is in the oldest generation
    return held, weakref.ref(held.cycle)


def test_a_save_built_without_mkdocs_whole_build_frees_its_garbage_without_a_full_collection(collection, generations):
    """A full collection walks every object that lives on (0.4 s at 2,000 records); a quick save's
    garbage is its own, and the young generations hold it."""
    collection.rebuild_started()
    cycle = _dropped_cycle()
    generations.clear()
    collection.rebuild_ended(drops_older=False)
    assert _wait_until(lambda: cycle() is None and gc.isenabled()), "the save's garbage was never freed"
    assert generations[0] < 2, generations  # the first since the pause is the idle one (Python's may follow)


def test_a_whole_build_frees_what_it_dropped_of_the_last_one(collection, generations):
    """MkDocs' whole build drops the last build's pages and files: old objects, which only a full
    collection frees."""
    held, cycle = _old_cycle()
    generations.clear()
    collection.rebuild_started()
    del held
    collection.rebuild_ended()
    assert _wait_until(lambda: cycle() is None and gc.isenabled()), "the last build's garbage was never freed"
    assert generations[0] == 2, generations


def test_in_quick_succession_one_whole_build_among_quick_saves_gets_its_full_collection(collection, generations):
    held, old = _old_cycle()
    collection.rebuild_started()
    del held
    collection.rebuild_ended()  # a whole build
    for _ in range(MAX_WAITING - 1):
        collection.rebuild_started()
        collection.rebuild_ended(drops_older=False)
    generations.clear()
    collection.rebuild_started()  # before any idle moment came
    assert old() is None and generations == [2]
