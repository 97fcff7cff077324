"""Reading the repository's files: only regular files inside it, and never more than a bound.

Every reader of the knowledge base's files (records, docs, deploy files, pyproject.toml,
mkdocs.yml, the work tree's versions of records, the authoring commands) goes through
`read_bounded`. A FIFO would block forever, `/dev/zero` never ends, a symbolic link may point
out of the repository (to /etc/passwd): each is refused before a byte is read, as is a file over
the caller's size limit, which is checked again while reading (a file can grow). Refusals are
`UnreadableFile` with a few words the caller puts after the file's name. Nothing here decides
what a file means.

Every look at a path (a read, `is_file`, `is_folder`, `noted`) is also written down while
`probes_recorded()` is active, with the path's `signature`: `check_memo` reuses a result only while
every path it looked at is unchanged.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_CHUNK = 1 << 16
_KINDS = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISSOCK, "a socket"),
          (stat.S_ISCHR, "a device"), (stat.S_ISBLK, "a device"))


class UnreadableFile(Exception):
    """Why a file was not read, in a few words ('permission denied')."""


class TooLarge(UnreadableFile):
    def __init__(self, size: int, limit: int) -> None:
        super().__init__(f"it is {_size(size)}, over the limit of {_size(limit)}")
        self.size = size
        self.limit = limit


Signature = tuple[object, ...]
_recorders: list[tuple[dict[str, Signature], tuple[str, ...], int]] = []


@contextmanager
def probes_recorded(covered: tuple[str, ...], changed_after: int) -> Iterator[dict[str, Signature]]:
    """Absolute path -> `signature(path, changed_after)`, for every path looked at inside the block (at
    its first look), but those inside the `covered` folders (absolute; the caller watches them whole)."""
    recorded: dict[str, Signature] = {}
    entry = (recorded, tuple(folder.rstrip(os.sep) + os.sep for folder in covered), changed_after)
    _recorders.append(entry)
    try:
        yield recorded
    finally:
        _recorders.remove(entry)


def noted(path: str | Path) -> None:
    """Write down a look at `path` made without the helpers here (a `resolve()`, an `exists()`)."""
    if _recorders:
        where = os.fspath(path)
        if not where.startswith(os.sep) or f"{os.sep}." in where:  # relative, or with . or ..: made plain
            where = os.path.abspath(where)
        for recorded, covered, changed_after in _recorders:
            if where not in recorded and not where.startswith(covered):
                recorded[where] = signature(where, changed_after)


def signature(path: str | Path, changed_after: int, whole: bool = True) -> Signature:
    """What tells a path's state apart without reading it: its status (kind, size, change times), and
    with `whole` also the file it names (links followed), the link's target and its real path; or
    why it cannot be looked at. A file last changed after `changed_after` (ns since the epoch) is also
    read and hashed: a second change within the clock's granularity would not show in its times."""
    own = status(path)
    if not whole and not (isinstance(own, tuple) and stat.S_ISLNK(own[0])):
        return (own, _digest_if_changed(path, own, changed_after))
    named = status(path, follow_links=True)
    return (named, own, _link(path), os.path.realpath(path), _digest_if_changed(path, named, changed_after))


def resigned(seen: Signature, changed_after: int) -> Signature:
    """`seen` as `signature(path, changed_after)` gives it, for a later `changed_after`: without the
    digest of a file last changed before that."""
    named, digest = seen[0], seen[-1]
    if digest is not None and isinstance(named, tuple) and last_change(named) <= changed_after:
        return (*seen[:-1], None)
    return seen


# Wider than any file system's time granularity (FAT's is 2 s): a file changed less than this ago may
# change again within the same tick of its clock, so its times alone cannot tell (git's racy files).
SETTLE_NS = 3_000_000_000


def last_change(found: tuple[int, ...]) -> int:
    """When a `status` last changed (content or metadata), in ns since the epoch."""
    return max(found[4], found[5])


def status(path: str | Path, follow_links: bool = False) -> tuple[int, ...] | str:
    """A path's kind, place (device, inode), size and change times; or why it cannot be looked at."""
    try:
        found = os.stat(path) if follow_links else os.lstat(path)
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, "error")
    return (found.st_mode, found.st_dev, found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def _digest_if_changed(path: str | Path, status: tuple[int, ...] | str, changed_after: int) -> str | None:
    if not isinstance(status, tuple) or not stat.S_ISREG(status[0]) or last_change(status) <= changed_after:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, "error")
    digest = hashlib.sha1(usedforsecurity=False)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return "not a regular file"
        while chunk := os.read(fd, _CHUNK):
            digest.update(chunk)
    except OSError as exc:
        return errno.errorcode.get(exc.errno or 0, "error")
    finally:
        os.close(fd)
    return digest.hexdigest()


def _link(path: str | Path) -> str | None:
    try:
        return os.readlink(path)
    except OSError:
        return None


def read_bounded(path: str | Path, limit: int, root: Path | None = None) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; with `root`, the file
    (after following symbolic links) must lie inside `root`. Raises UnreadableFile."""
    noted(path)
    try:
        before = os.stat(path)  # follows links, and opens nothing: a device may act when opened
    except OSError as exc:
        raise UnreadableFile(describe_error(exc)) from None
    if not stat.S_ISREG(before.st_mode):
        if root is not None and not _resolves_inside(path, root):
            raise UnreadableFile(_OUTSIDE)
        _refuse_unless_regular(before)
    if before.st_size > limit:
        raise TooLarge(before.st_size, limit)
    try:
        # O_NONBLOCK: should a FIFO take the file's place now, opening it must not wait for a writer.
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise UnreadableFile(describe_error(exc)) from None
    try:
        status = os.fstat(fd)
        _refuse_unless_regular(status)
        if (status.st_dev, status.st_ino) != (before.st_dev, before.st_ino):
            raise UnreadableFile("it was replaced while being read")
        if root is not None and not _opened_inside(fd, path, root):
            raise UnreadableFile(_OUTSIDE)
        if status.st_size > limit:
            raise TooLarge(status.st_size, limit)
        chunks, total = [], 0
        while chunk := os.read(fd, _CHUNK):
            total += len(chunk)
            if total > limit:  # it grew while being read
                raise TooLarge(total, limit)
            chunks.append(chunk)
        return b"".join(chunks)
    except UnreadableFile:
        raise
    except OSError as exc:
        raise UnreadableFile(describe_error(exc)) from None
    finally:
        os.close(fd)


_OUTSIDE = "it is a symbolic link to a file outside the repository, which kb never reads"


def _opened_inside(fd: int, path: str | Path, root: Path) -> bool:
    """Whether the file open as `fd` lies inside `root`: where the kernel says it opened it
    (Linux), else where `path` resolves."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return _resolves_inside(path, root)
    top = _real_root(os.path.abspath(root))
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def _resolves_inside(path: str | Path, root: Path) -> bool:
    try:
        return Path(path).resolve().is_relative_to(_real_root(os.path.abspath(root)))
    except (OSError, RuntimeError, ValueError):  # RuntimeError: a symbolic link loop (Python 3.11)
        return False


@functools.lru_cache(maxsize=64)
def _real_root(root: str) -> str:
    """The repository's real path (resolved once per root: every file read is checked against it)."""
    return os.path.realpath(root)


def _refuse_unless_regular(status: os.stat_result) -> None:
    if not stat.S_ISREG(status.st_mode):
        kind = next((name for test, name in _KINDS if test(status.st_mode)), "something else")
        raise UnreadableFile(f"it is {kind}, not a regular file")


def is_file(path: Path) -> bool:
    """Whether `path` is a file (following links); False, not an exception, when it cannot be told
    (a folder on the way that may not be searched)."""
    noted(path)
    try:
        return path.is_file()
    except OSError:
        return False


def is_folder(path: Path) -> bool:
    noted(path)
    try:
        return path.is_dir()
    except OSError:
        return False


def lexists(path: Path) -> bool:
    """Whether `path` names anything (a link counts, whatever it points to)."""
    noted(path)
    return os.path.lexists(path)


def real_path(path: str | Path) -> str:
    """`os.path.realpath(path)`, the look written down."""
    noted(path)
    return os.path.realpath(path)


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
