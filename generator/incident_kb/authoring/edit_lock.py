"""One writer at a time per knowledge base: the lock every command that writes records holds.

A command takes it before it reads the record it edits and lets it go after its write is renamed
into place, so each command reads what the one before it wrote and no edit is lost. It is an
advisory `flock` on the knowledge base's folder itself: no lock file to leave behind, commit or
plant a link at, and the kernel drops it when a process dies. A command that cannot have it within
LOCK_TIMEOUT seconds stops with one line, having changed nothing. Knows nothing of records.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..findings import KbError
from ..locks import HAS_FLOCK, flock_within

LOCK_TIMEOUT = 60.0  # seconds; 50 commands editing one record at once finish well within it


@contextmanager
def editing_lock(folder: Path) -> Iterator[None]:
    """Hold the knowledge base's edit lock for the duration of the block."""
    if not HAS_FLOCK:  # pragma: no cover - Windows: a lock file, which filelock removes on release there
        from filelock import FileLock, Timeout

        try:
            with FileLock(folder / ".kb-edit.lock", timeout=LOCK_TIMEOUT):
                yield
        except Timeout:
            raise KbError(_busy(folder)) from None
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except (FileNotFoundError, NotADirectoryError):
        raise KbError(f"{folder} is not a folder; pass the knowledge base's repository with --root") from None
    except OSError as exc:
        raise KbError(f"{folder}: cannot open the folder to lock it for editing ({exc.strerror or exc}); "
                      "nothing changed") from None
    try:
        try:
            held = flock_within(fd, LOCK_TIMEOUT)
        except OSError as exc:
            raise KbError(f"{folder}: cannot lock the folder for editing ({exc.strerror or exc}); "
                          "nothing changed") from None
        if not held:
            raise KbError(_busy(folder))
        yield
    finally:
        os.close(fd)  # closing the last descriptor releases the lock


def _busy(folder: Path) -> str:
    return (f"{folder}: another kb command has been writing records there for {LOCK_TIMEOUT:g} s; nothing "
            "changed, run the command again when it is done")
