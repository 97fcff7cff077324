"""forked.split_map: the last part of the items computed in a real forked child, the same results in
the same order as a plain map, and the plain map's results whatever goes wrong in the child."""

from __future__ import annotations

import os
import time

import pytest

from incident_kb import forked
from incident_kb.forked import split_map


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The children forked, by id."""
    forks: list[int] = []
    fork = os.fork

    def recorded_fork() -> int:
        pid = fork()
        if pid:
            forks.append(pid)
        return pid

    monkeypatch.setattr(os, "fork", recorded_fork)
    return forks


def _where(item: int) -> tuple[int, int]:
    return item * item, os.getpid()


def test_the_last_part_is_computed_in_a_child_and_comes_back_in_order():
    results = split_map(_where, range(300))
    assert [value for value, _ in results] == [item * item for item in range(300)]
    pids = [pid for _, pid in results]
    assert pids[:150] == [os.getpid()] * 150
    assert len(set(pids[150:])) == 1 and pids[-1] != os.getpid()


def test_a_part_by_weight():
    results = split_map(_where, list(range(300)), weight=lambda item: 1 if item < 200 else 100)
    mine = [item for item, (_, pid) in enumerate(results) if pid == os.getpid()]
    assert mine == list(range(249))  # half the weight (5,100): 200 light items and 49 heavy ones


def test_few_items_stay_in_this_process():
    assert {pid for _, pid in split_map(_where, range(199))} == {os.getpid()}
    assert {pid for _, pid in split_map(_where, range(10), least=5)} != {os.getpid()}


def test_a_child_that_fails_leaves_its_part_to_this_process():
    parent = os.getpid()

    def fails_in_child(item: int) -> int:
        if os.getpid() != parent:
            raise ValueError("in the child")
        return item + 1

    assert split_map(fails_in_child, range(300)) == list(range(1, 301))


def test_a_result_pickle_cannot_carry_is_computed_here():
    parent = os.getpid()

    def unpicklable(item: int) -> object:
        return (item, lambda: None) if os.getpid() != parent else (item, None)

    assert [item for item, _ in split_map(unpicklable, range(300))] == list(range(300))


def test_a_child_forks_no_child_of_its_own():
    def nested(item: int) -> set[int]:
        return {pid for _, pid in split_map(_where, range(300))} if item == 299 else set()

    assert len(split_map(nested, range(300))[-1]) == 1


def test_this_process_failing_stops_the_child(started):
    parent = os.getpid()

    def fails_here(item: int) -> int:
        if os.getpid() == parent and item == 5:
            raise KeyError(item)
        return item

    with pytest.raises(KeyError):
        split_map(fails_here, range(300))
    assert len(started) == 1
    with pytest.raises(ChildProcessError):  # reaped: no zombie left behind
        os.waitpid(started[0], os.WNOHANG)


def test_without_fork_a_plain_map(monkeypatch):
    monkeypatch.delattr(forked.os, "fork")
    assert {pid for _, pid in split_map(_where, range(300))} == {os.getpid()}


def test_a_child_that_does_not_answer_is_given_up_on(started, monkeypatch):
    parent = os.getpid()
    monkeypatch.setattr(forked, "_LEAST_WAIT", 0.5)

    def stuck_in_child(item: int) -> int:
        if os.getpid() != parent:
            time.sleep(3600)
        return item

    began = time.monotonic()
    assert split_map(stuck_in_child, range(300)) == list(range(300))
    assert time.monotonic() - began < 30
    with pytest.raises(ChildProcessError):  # killed and reaped
        os.waitpid(started[0], os.WNOHANG)


def test_only_on_linux(monkeypatch):
    monkeypatch.setattr(forked.sys, "platform", "darwin")
    assert {pid for _, pid in split_map(_where, range(300))} == {os.getpid()}


def test_more_files_open_than_select_takes(tmp_path):
    opened = [os.open(tmp_path, os.O_RDONLY) for _ in range(1100)]  # the pipe's numbers pass 1,024
    try:
        assert [value for value, _ in split_map(_where, range(300))] == [item * item for item in range(300)]
    finally:
        for number in opened:
            os.close(number)


def test_what_crosses_the_pipe_is_packed_there_and_unpacked_here():
    parent = os.getpid()
    packed_in = []

    def pack(result: tuple[int, int]) -> str:
        return f"{result[0]}:{result[1]}:{os.getpid()}"

    def unpack(carried: str) -> tuple[int, int]:
        value, pid, packed_by = map(int, carried.split(":"))
        packed_in.append(packed_by)
        return value, pid

    results = split_map(_where, range(300), carry=(pack, unpack))
    assert [value for value, _ in results] == [item * item for item in range(300)]
    assert len(packed_in) == 150 and parent not in packed_in  # only the child's part, packed by the child


def test_work_in_the_background_runs_in_a_child_that_is_waited_for(tmp_path):
    done = tmp_path / "done"

    def write() -> None:
        time.sleep(0.3)
        done.write_text(str(os.getpid()))

    assert forked.in_background(write)
    forked.join_background()
    assert done.read_text() != str(os.getpid())


def test_work_in_the_background_that_fails_is_nobodys_problem(tmp_path):
    def fails() -> None:
        raise OSError("disk full")

    assert forked.in_background(fails)
    forked.join_background()


def test_work_in_the_background_that_is_stuck_is_ended_not_waited_for_for_ever(tmp_path, monkeypatch):
    """A child stuck for good (a lock another thread held at the fork) would hang the build at exit."""
    monkeypatch.setattr(forked, "_LEAST_WAIT", 0.5)
    done = tmp_path / "done"

    def stuck() -> None:
        time.sleep(3600)
        done.write_text("never")

    assert forked.in_background(stuck)
    started = time.monotonic()
    forked.join_background()
    assert time.monotonic() - started < 10 and not forked._background and not done.exists()


def test_no_background_without_fork(monkeypatch):
    monkeypatch.delattr(forked.os, "fork")
    assert not forked.in_background(lambda: None)
