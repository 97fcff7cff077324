"""Why a file or folder was not read, in a few words the caller puts after its name ('permission
denied', 'it is 2.0 MiB, over the limit of 1.0 MiB'). Wording only: `files` does the looking."""

from __future__ import annotations

import errno
import stat

FILE_OUT = "it is a symbolic link to a file outside the repository, which kb never reads"
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


class UnreadableFile(Exception):
    """Why a file was not read, in a few words ('permission denied')."""


class TooLarge(UnreadableFile):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"it is {_size(size)}, over the limit of {_size(limit)}")
        self.size = size
        self.limit = limit


def describe_error(exc: BaseException) -> str:
    """A few words for an error from the file system ('permission denied'), without the path."""
    if isinstance(exc, RuntimeError):
        return "its symbolic links form a loop"
    if isinstance(exc, OSError):
        if exc.errno == errno.ELOOP:
            return "its symbolic links form a loop"
        if exc.errno in (errno.EACCES, errno.EPERM):
            return "permission denied"
        if exc.errno == errno.ENOENT:
            return "it does not exist"
        if exc.strerror:
            return exc.strerror[:1].lower() + exc.strerror[1:]
    return str(exc) or type(exc).__name__


def _size(n: int) -> str:
    return f"{n / (1 << 20):.1f} MiB" if n >= 1 << 20 else f"{n // 1024} KiB" if n >= 1024 else f"{n} bytes"


def links_out(target: str) -> str:
    """Why a folder reached through a link to `target` outside the repository is not read."""
    return f"it is a symbolic link to {target}, a folder outside the repository, which kb never reads"


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, from its mode ('a named pipe (FIFO)')."""
    return next((name for test, name in _KINDS if test(mode)), "something else")
