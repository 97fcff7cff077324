"""Where a path lies: inside a folder (real paths taken), and the repository that holds it, found as
git finds it. One answer for the cache, the crash log, `--root`'s default and kb's writer.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path


def is_inside(path: str | Path, folder: str | Path) -> bool:
    """Whether the real path of `path` is `folder`'s real path or lies under it."""
    inner, outer = os.path.realpath(path), os.path.realpath(folder)
    return inner == outer or inner.startswith(outer.rstrip(os.sep) + os.sep)


def repository_top(start: Path) -> Path | None:
    """The nearest folder from `start` up holding `.git`: as git looks (not across a file system's
    boundary, past $HOME if need be), but never into a folder every user may write to (a /tmp/.git
    someone left is nobody's repository)."""
    for folder in ancestors(start, None, home=False):
        if os.path.lexists(folder / ".git"):
            return folder
    return None


def ancestors(start: Path, top: Path | None, home: bool = True) -> Iterator[Path]:
    """`start` and the folders above it, up to `top` when given; else not past $HOME (`home`), not
    across a file system's boundary, and not into a folder every user may write to."""
    limit = _home() if home and top is None else None
    folder = start
    while True:
        yield folder
        parent = folder.parent
        if folder == top or folder == limit or parent == folder:
            return
        if top is None and (_device(parent) != _device(folder) or _writable_by_all(parent)):
            return
        folder = parent


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError, OSError):  # no $HOME and no passwd entry
        return None


def _device(folder: Path) -> int | None:
    try:
        return os.stat(folder).st_dev
    except OSError:
        return None


def _writable_by_all(folder: Path) -> bool:
    try:
        return bool(os.stat(folder).st_mode & stat.S_IWOTH)
    except OSError:
        return False
