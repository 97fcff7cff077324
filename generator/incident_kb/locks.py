"""Waiting for an exclusive advisory lock (`flock`), up to a deadline: one poll loop for kb's two
locks, the edit lock on a knowledge base's folder (authoring/edit_lock.py) and the lock on an org
site's clone (org/sources.py). The kernel drops a lock when its process dies, so none outlives a
crash. On a system without `fcntl` (Windows) each caller takes a lock file through filelock."""

from __future__ import annotations

import time
from collections.abc import Callable

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: see the callers
    fcntl = None  # type: ignore[assignment]

HAS_FLOCK = fcntl is not None


def flock_within(fd: int, timeout: float, poll: float = 0.02,
                 waiting: Callable[[], None] | None = None) -> bool:
    """Take an exclusive lock on the open file or folder `fd`, polling every `poll` seconds (a blocking
    `flock` could not give up at a deadline); False when another held it for `timeout` seconds.
    `waiting` is called once, when the lock is first found held (to say why nothing happens). An
    OSError other than "held" (a file system without locks) is the caller's to word."""
    assert fcntl is not None, "flock_within needs fcntl: check HAS_FLOCK first"
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if waiting is not None:
                waiting()
                waiting = None  # said once
            if time.monotonic() >= deadline:
                return False
            time.sleep(poll)
