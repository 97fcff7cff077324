"""Reading the repository's files: only regular files inside it, and never more than a bound.

Every reader of the knowledge base's files (records, docs, deploy files, settings, the authoring
commands) goes through `read_bounded`. A FIFO would block forever, `/dev/zero` never ends, a link
may point out of the repository (to /etc/passwd): each is refused before a byte is read, as is a
file over the caller's limit, checked again while reading (a file can grow): `UnreadableFile` (see
`unreadable`). Folders are walked through links only inside the repository. Nothing here decides
what a file means. The one module of stages 1 to 4 that looks at the file system
(`tests/architecture/test_layering.py`): every look at a path and every folder listed is written down while
`probes_recorded()` is active (`signature`, `listing`); `check/memo.py` reuses a result only while each
look sees the same.
"""

from __future__ import annotations

import errno
import functools
import hashlib
import os
import shutil
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .unreadable import FILE_OUT, TooLarge, UnreadableFile, describe_error, kind_of, links_out  # (callers: from here)

_CHUNK = 1 << 16


Signature = str  # what tells a path's state apart without reading it (see `signature`)


@dataclass
class Probes:
    """Every look at the repository a run made: each path looked at, by its `signature` at the first
    look, and each folder listed, by its `listing`."""

    changed_after: int  # ns since the epoch: a file changed after this is signed by its content too
    files: dict[str, Signature] = field(default_factory=dict)
    listings: dict[str, Signature] = field(default_factory=dict)

    def changed(self) -> tuple[list[str], list[str]]:
        """The paths and the folders whose state is no longer the one written down."""
        files = [path for path, seen in self.files.items() if signature(path, self.changed_after) != seen]
        folders = [folder for folder, seen in self.listings.items() if listing(folder) != seen]
        return files, folders


_recorders: list[Probes] = []


@contextmanager
def probes_recorded(changed_after: int) -> Iterator[Probes]:
    """Every path looked at and every folder listed inside the block, written down at its first look."""
    recorded = Probes(changed_after)
    _recorders.append(recorded)
    try:
        yield recorded
    finally:
        _recorders.remove(recorded)


def looks_recorded() -> bool:
    """Whether the looks at the repository are being written down (`probes_recorded`)."""
    return bool(_recorders)


def noted(path: str | Path) -> None:
    """Write down a look at `path` (every helper here does; `resolved` and `exists` too)."""
    if _recorders:
        where = _plain(path)
        for recorded in _recorders:
            if where not in recorded.files:
                recorded.files[where] = signature(where, recorded.changed_after)


def _plain(path: str | Path) -> str:
    where = os.fspath(path)
    if not where.startswith(os.sep) or f"{os.sep}." in where:  # relative, or with . or ..: made plain
        where = os.path.abspath(where)
    return where


def signature(path: str | Path, changed_after: int) -> Signature:
    """A path's state without reading it: its own status (kind, place, size, change times) and, for a
    link, the link's target and the status of what it names; or why it cannot be looked at. A file
    last changed after `changed_after` (ns since the epoch) is also read and hashed: a second change
    within the clock's granularity would not show in its times. Starts with the last change time."""
    own = status(path)
    named, link = own, ""
    if isinstance(own, tuple) and stat.S_ISLNK(own[0]):
        named, link = status(path, follow_links=True), _link(path) or ""
    if isinstance(named, tuple) and stat.S_ISDIR(named[0]):  # a folder's times move with its entries:
        return f"0:{_shown(own[:3] if isinstance(own, tuple) else own)}|{_shown(named[:3])}|{link}"  # its listing tells
    changed = last_change(named) if isinstance(named, tuple) else 0
    text = f"{changed}:{_shown(own)}|{_shown(named) if link else ''}|{link}"
    digest = _digest_if_changed(path, named, changed_after)
    return f"{text}#{digest}" if digest is not None else text


def _shown(found: tuple[int, ...] | str) -> str:
    return ",".join(map(str, found)) if isinstance(found, tuple) else found


def resigned(seen: Signature, changed_after: int) -> Signature:
    """`seen` as `signature(path, changed_after)` gives it, for a later `changed_after`: without the
    digest of a file last changed before that."""
    text, hashed, _ = seen.partition("#")
    if hashed and int(text.partition(":")[0]) <= changed_after:
        return text
    return seen


def listing(folder: str | Path) -> Signature:
    """What a folder holds: each entry's name and kind (folder, file, link, other), sorted; or why it
    cannot be listed."""
    try:
        with os.scandir(folder) as entries:
            return _listed(entries)
    except OSError as exc:
        return "!" + errno.errorcode.get(exc.errno or 0, "error")


def _listed(entries: Iterable[os.DirEntry[str]]) -> Signature:
    return "\n".join(sorted(f"{entry.name}\0{_entry_kind(entry)}" for entry in entries))


def _entry_kind(entry: os.DirEntry[str]) -> str:
    try:
        if entry.is_symlink():
            return "l"
        return "d" if entry.is_dir(follow_symlinks=False) else "f" if entry.is_file(follow_symlinks=False) else "o"
    except OSError:
        return "?"


def folder_entries(folder: str | Path, skip_unlistable: bool = False, inside: str | Path | None = None,
                   skipped: list[tuple[str, str]] | None = None) -> list[tuple[str, bool]]:
    """Every entry under `folder`, as (path relative to it, '/'-separated; whether it is a folder
    walked), each listing written down. With `inside`, links to folders inside it are walked (once per
    real folder); `skipped` gets (path, why) for each folder not walked: a link out of `inside` (`folder`
    itself too: ''), to nothing or to one walked already, or with `skip_unlistable` one that cannot be
    listed (else OSError)."""
    found: list[tuple[str, bool]] = []
    top = _real_root(os.path.abspath(inside)) if inside is not None else None
    start = os.path.realpath(folder)
    if top is not None and not _is_within(start, top):  # the folder itself leads out: no name in it is read
        noted(folder)
        if skipped is not None:
            skipped.append(("", links_out(_link(folder) or start)))
        return []
    shown = os.path.relpath(folder, inside).replace(os.sep, "/") if inside is not None else "."
    walked = {start: shown}  # real folder -> the path it was walked as (relative to `inside`)
    pending = [("", start)]
    links: list[tuple[str, str]] = []  # followed once every folder reached without a link is walked
    while pending or links:
        if not pending:
            rel, path = links.pop(0)
            target, why = _linked_folder(path, top or "", walked, f"{shown}/{rel}")
            if target is not None:
                pending.append((rel, target))
            elif why is not None and skipped is not None:
                skipped.append((rel, why))
            found.append((rel, target is not None))
            continue
        current, real = pending.pop()
        where = os.path.join(folder, current) if current else os.fspath(folder)
        try:
            with os.scandir(where) as listed:
                entries = sorted(listed, key=lambda entry: entry.name)
        except OSError as exc:
            for recorded in _recorders:
                recorded.listings.setdefault(_plain(where), "!" + errno.errorcode.get(exc.errno or 0, "error"))
            if not skip_unlistable:
                raise
            if skipped is not None:  # ('' for `folder` itself)
                skipped.append((current, f"kb cannot list this folder ({describe_error(exc)})"))
            continue
        for recorded in _recorders:
            recorded.listings.setdefault(_plain(where), _listed(entries))
        for entry in entries:
            rel = f"{current}/{entry.name}" if current else entry.name
            kind = _entry_kind(entry)
            if kind == "l" and top is not None:
                noted(entry.path)  # where it leads is an input
                links.append((rel, entry.path))
                continue
            if kind == "d":
                walked.setdefault(os.path.join(real, entry.name), f"{shown}/{rel}")
                pending.append((rel, os.path.join(real, entry.name)))
            found.append((rel, kind == "d"))
    return found


def note_every_file(path: Path) -> None:
    """Write down a look at `path` and at every file under it, as git walks it (links are not followed):
    what git reads of them (rename pairing compares contents) is an input, whether or not kb reads them."""
    noted(path)
    if not _recorders or not is_folder(path):
        return
    for rel, walked in folder_entries(path, skip_unlistable=True):
        if not walked:
            noted(os.path.join(path, rel))


def _is_within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _linked_folder(path: str, top: str, walked: dict[str, str], walked_as: str) -> tuple[str | None, str | None]:
    """(its real folder, None) for a link to a folder inside `top` not walked yet (now in `walked`);
    else (None, why not), or (None, None) for a link to no folder (its reader judges it)."""
    shown = _link(path) or "?"
    try:
        target = os.path.realpath(path, strict=True)
        if not stat.S_ISDIR(os.stat(target).st_mode):
            return None, None
    except (OSError, RuntimeError) as exc:
        gone = isinstance(exc, OSError) and exc.errno == errno.ENOENT
        return None, f"it is a symbolic link to {shown}, " + (
            "which does not exist" if gone else f"which kb cannot follow ({describe_error(exc)})")
    if not _is_within(target, top):
        return None, links_out(shown)
    for folder, seen_as in walked.items():  # the same folder, one inside it, or one holding it
        if _is_within(folder, target) or _is_within(target, folder):
            return None, (f"it is a symbolic link to {shown}, a folder read already as {seen_as}/ (a loop, or a "
                          "second way to the same folder)")
    walked[target] = walked_as
    return target, None


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


def regular_file_status(path: str) -> tuple[int, ...] | None:
    """A regular file's own status (a link, anything else or an error: None); the look written down."""
    noted(path)
    return found if isinstance(found := status(path), tuple) and stat.S_ISREG(found[0]) else None


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


def read_bounded(path: str | Path, limit: int, root: Path | None = None, note: bool = True) -> bytes:
    """The bytes of the regular file at `path`, at most `limit` of them; with `root`, the file
    (after following symbolic links) must lie inside `root`. Raises UnreadableFile. `note=False`
    only for git's own files (git's view holds them)."""
    if note:
        noted(path)
    try:
        before = os.stat(path)  # follows links, and opens nothing: a device may act when opened
    except OSError as exc:
        raise UnreadableFile(describe_error(exc)) from None
    if not stat.S_ISREG(before.st_mode):
        if root is not None and not _resolves_inside(path, root):
            raise UnreadableFile(FILE_OUT)
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
            raise UnreadableFile(FILE_OUT)
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


def _opened_inside(fd: int, path: str | Path, root: Path) -> bool:
    """Whether the file open as `fd` lies inside `root`: where the kernel says it opened it
    (Linux), else where `path` resolves."""
    try:
        real = os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return _resolves_inside(path, root)
    return _is_within(real, _real_root(os.path.abspath(root)))


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
        raise UnreadableFile(f"it is {kind_of(status.st_mode)}, not a regular file")


def is_file(path: Path) -> bool:
    """Whether `path` is a file (following links); False, not an exception, when it cannot be told
    (a folder on the way that may not be searched)."""
    noted(path)
    try:
        return path.is_file()
    except OSError:
        return False


def is_folder(path: Path, strict: bool = False) -> bool:
    """Whether `path` is a folder (following links); with `strict`, an OSError when that cannot be
    told (permission denied on a folder on its way), else False."""
    noted(path)
    try:
        return path.is_dir()
    except OSError:
        if strict:
            raise
        return False


def exists(path: Path) -> bool:
    """Whether `path` names anything (following links); raises OSError when that cannot be told
    (permission denied on a folder on its way), as `Path.exists` does."""
    noted(path)
    return path.exists()


def lexists(path: Path) -> bool:
    """Whether `path` names anything (a link counts, whatever it points to)."""
    noted(path)
    return os.path.lexists(path)


def resolved(path: Path) -> Path:
    """`path` with every link followed (`Path.resolve`), the look written down; raises OSError,
    RuntimeError (a loop, Python 3.11) or ValueError."""
    noted(path)
    return path.resolve()


def real_path(path: str | Path) -> str:
    """`os.path.realpath(path)`, the look written down."""
    noted(path)
    return os.path.realpath(path)


def copy_if_there(path: Path, copy: Path) -> None:
    """Copy the file at `path` (a file of git's, as git would read it) to `copy`, if there is one, with
    its times: git tells a file changed within the same second as the index was written by comparing
    with the index file's own time ('racy git'), and a copy with a new time would hide such a change.
    Not written down: git's own files are part of git's view, which the key holds as git reports it."""
    try:
        shutil.copy2(path, copy)
    except FileNotFoundError:
        pass
