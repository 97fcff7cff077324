"""Work shared with a forked copy of this process: the second core.

A cold check parses every record file on one core, and the site's build renders every record's page
on one core, while the other core idles until MkDocs writes pages (Pagefind indexes them there).
`split_map(function, items)` gives the last part of `items` to a forked child, which hands its
results back pickled through a pipe, while this process does the first part: the same results, in
the same order, as `[function(item) for item in items]`.

Only where it pays and is safe: on Linux (fork elsewhere is unsafe beside system libraries, or
missing), with at least `least` items, and never in a forked child (no nesting). The child runs
only `function`, never writes a file, and leaves with `os._exit` (no exit handlers, no stdio flushed
twice). Whatever goes wrong in the child (an exception, a result pickle cannot carry, its death, no
answer long after this process's part was done), this process does the child's part itself.
`function` must be pure: its result may not depend on which process ran it.

`in_background(function)` runs work nobody waits for (a site build's record cache written) in a
forked child at a low priority, waited for before the store is read again and when this process exits.
"""

from __future__ import annotations

import atexit
import gc
import os
import pickle
import select
import signal
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from typing import Any, Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")
# What crosses the pipe instead of a result: `pack` in the child, `unpack` here (unpack(pack(r)) == r)
Carry = tuple[Callable[[Any], Any], Callable[[Any], Any]]

_in_child = False
_background: list[tuple[int, float]] = []  # the children of `in_background` not yet waited for, and when started
_LEAST_WAIT = 60.0  # seconds the child is waited for at least, past this process's own part


def split_map(function: Callable[[Item], Result], items: Sequence[Item], least: int = 200,
              weight: Callable[[Item], int] | None = None, share: float = 0.5,
              carry: Carry | None = None) -> list[Result]:
    """`[function(item) for item in items]`, the last `share` of the items (by count, or by `weight`)
    computed in a forked child while this process computes the rest. `carry`: how a result crosses
    the pipe, when something smaller than the result pickles and reads back faster."""
    if len(items) < least:
        return [function(item) for item in items]
    cut = _cut(items, weight, share)
    ahead = Ahead.start(function, items[cut:], carry)
    if ahead is None:
        return [function(item) for item in items]
    try:
        mine = [function(item) for item in items[:cut]]
    except BaseException:
        ahead.cancel()
        raise
    return mine + ahead.results()


class Ahead(Generic[Item, Result]):
    """A map computed by a forked child from now on, its results collected later (`results`): the
    child's part of `split_map`, or work started before the process needs it."""

    def __init__(self, function: Callable[[Item], Result], items: Sequence[Item], carry: Carry | None,
                 pid: int, reader: int) -> None:
        self.function, self.items, self.carry = function, items, carry
        self._child: tuple[int, int] | None = (pid, reader)
        self._started = time.monotonic()
        _ahead.add(self)

    @classmethod
    def start(cls, function: Callable[[Item], Result], items: Sequence[Item],
              carry: Carry | None = None) -> Ahead[Item, Result] | None:
        """The child started; None where none can be (see `_fork`)."""
        child = _start(function, items, carry[0] if carry is not None else None)
        return cls(function, items, carry, *child) if child is not None else None

    def results(self) -> list[Result]:
        """`[function(item) for item in items]`: the child's, or computed here when it failed."""
        child, self._child = self._child, None
        _ahead.discard(self)
        if child is None:
            return [self.function(item) for item in self.items]
        # A child stuck (a lock another thread held at the fork) is given up on, long after it should be done.
        deadline = time.monotonic() + max(_LEAST_WAIT, 10 * (time.monotonic() - self._started))
        theirs = _collect(*child, len(self.items), deadline)
        if theirs is None:
            return [self.function(item) for item in self.items]
        return [self.carry[1](result) for result in theirs] if self.carry is not None else theirs

    def cancel(self) -> None:
        """The child stopped, its results unwanted."""
        child, self._child = self._child, None
        _ahead.discard(self)
        if child is not None:
            _stop(*child)


_ahead: set[Ahead[Any, Any]] = set()  # started and not yet collected: stopped at exit (a child blocks on a full pipe)


@atexit.register
def _stop_uncollected() -> None:
    for ahead in list(_ahead):
        ahead.cancel()


def in_background(function: Callable[[], object]) -> bool:
    """`function()` run by a forked child at a low priority while this process goes on, for work whose
    result nobody waits for (a cache entry written); False when no child started (then run it here).
    The child is waited for by `join_background`, at the latest when this process exits."""
    pid = _fork()
    if pid is None:
        return False
    if pid == 0:
        _run_alone(function)
    _background.append((pid, time.monotonic()))
    return True


def join_background() -> None:
    """Wait for the children of `in_background` (before reading what they write). One still running
    `_LEAST_WAIT` seconds after it started is stuck (a lock another thread held at the fork): it is
    ended, its work left undone (nobody waits for it), rather than this process waiting for ever."""
    while _background:
        pid, started = _background.pop()
        try:
            while os.waitpid(pid, os.WNOHANG) == (0, 0):
                if time.monotonic() - started > _LEAST_WAIT:
                    os.kill(pid, signal.SIGKILL)
                    os.waitpid(pid, 0)
                    break
                time.sleep(0.005)
        except ChildProcessError:
            pass


atexit.register(join_background)  # a forked child leaves with os._exit: never there


def _run_alone(function: Callable[[], object]) -> None:
    global _in_child
    _in_child = True
    status = 1
    try:
        gc.disable()  # as in `_child`
        os.nice(10)  # behind this process and its other children: the work is not waited for
        function()
        status = 0
    except BaseException:  # noqa: BLE001, S110 - nothing waits for it: a cache entry not written costs time only
        pass
    finally:
        os._exit(status)


def _cut(items: Sequence[Item], weight: Callable[[Item], int] | None, share: float) -> int:
    """Where the child's part starts: its `share` of the items, or of their weight."""
    if weight is None:
        return len(items) - int(len(items) * share)
    weights = [weight(item) for item in items]
    left, done = sum(weights) * (1 - share), 0
    for index, each in enumerate(weights):
        done += each
        if done >= left:
            return index + 1
    return len(items)


def _start(function: Callable[[Item], Result], part: Sequence[Item],
           pack: Callable[[Result], Any] | None) -> tuple[int, int] | None:
    """The child computing `part`: its id and the pipe its results come from; None when it cannot start."""
    if not _can_fork():
        return None
    try:
        reader, writer = os.pipe()
    except OSError:
        return None
    pid = _fork()
    if pid is None:
        os.close(reader)
        os.close(writer)
        return None
    if pid == 0:  # the child: never returns
        _child(function, part, pack, reader, writer)
    os.close(writer)
    return pid, reader


def _can_fork() -> bool:
    """Not in a forked child (never nested), and on Linux (fork's copy-on-write is what makes it pay)."""
    return not _in_child and hasattr(os, "fork") and sys.platform.startswith("linux")


def _fork() -> int | None:
    """`os.fork()`: 0 in the child, the child's id here; None where no child can be (`_can_fork`, or
    the system refused one)."""
    if not _can_fork():
        return None
    try:
        # Python 3.12 warns of fork beside threads: the child runs none of their code.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            return os.fork()
    except OSError:
        return None


def _child(function: Callable[[Item], Result], part: Sequence[Item], pack: Callable[[Result], Any] | None,
           reader: int, writer: int) -> None:
    global _in_child
    _in_child = True
    status = 1
    try:
        os.close(reader)
        # The collector would walk (and so copy) every page of the parent's heap: the work is short.
        gc.disable()
        results = [function(item) for item in part]
        data = pickle.dumps([pack(result) for result in results] if pack is not None else results,
                            protocol=pickle.HIGHEST_PROTOCOL)
        with os.fdopen(writer, "wb") as out:
            out.write(data)
        status = 0
    except BaseException:  # noqa: BLE001 - the parent does this part itself
        pass
    finally:
        os._exit(status)


def _stop(pid: int, reader: int) -> None:
    """The child ended unheard (this process's part failed)."""
    os.close(reader)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass
    os.waitpid(pid, 0)


def _collect(pid: int, reader: int, count: int, deadline: float) -> list[Any] | None:
    """The child's results, once it is done; None when it failed or passed `deadline` (the caller
    computes them)."""
    try:
        data = _read_until(reader, deadline)
    except BaseException:
        _stop(pid, reader)
        raise
    if data is None:
        _stop(pid, reader)
        return None
    os.close(reader)
    _, status = os.waitpid(pid, 0)
    if status != 0:
        return None
    try:
        results = pickle.loads(data)  # noqa: S301 - written by this process's own fork, just now
    except Exception:  # noqa: BLE001 - a result that does not come back whole: computed here instead
        return None
    return results if isinstance(results, list) and len(results) == count else None


def _read_until(reader: int, deadline: float) -> bytes | None:
    """Everything written to the pipe `reader` until it closes; None if that is not before `deadline`.
    (poll, not select: a process may hold more than select's 1,024 files.)"""
    waiting = select.poll()
    waiting.register(reader, select.POLLIN)
    chunks: list[bytes] = []
    while (left := deadline - time.monotonic()) > 0:
        if not waiting.poll(left * 1000):
            return None
        chunk = os.read(reader, 1 << 20)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
    return None
