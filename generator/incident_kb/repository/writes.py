"""Writing the repository's files: only inside it, never through a link that leads out, all at once.

Every writer of kb (`kb init`, the editing commands, `kb render --out`) writes through `write_file`.
The folder a file goes into is reached from the boundary (the repository, or the output folder) one
name at a time, each opened without following a link (`O_NOFOLLOW`, relative to the folder before
it), so what was checked is what is written into: a link along the way is followed only where it
resolves inside the boundary (never, with `links=False`), and a dangling one, or one that leaves, is
refused before anything is made. The file itself is written to a temporary file `.NAME.*.tmp` beside
it and renamed into place (a new file is linked into place, so it never replaces one that appeared
meanwhile): a reader sees the old bytes or the new, never half. A link at the file's own name is
replaced, never written through. Refusals are `Unwritable`, naming the path that stops the write.
Nothing here decides what a file says, or whether a command may write it.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..places import is_inside

_changes = 0  # files this process wrote or removed: see `changes_made`
_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
_NO_FOLLOW = getattr(os, "O_NOFOLLOW", 0)


class Unwritable(Exception):
    """Why a file may not be written: `path` (the file, or the link or file on its way that stops the
    write) and a few words the caller puts after it ('is a symbolic link to /x, outside ...')."""

    def __init__(self, path: Path, why: str) -> None:
        super().__init__(f"{path} {why}")
        self.path = path
        self.why = why


class Changed(Unwritable):
    """The file no longer holds what the caller read: someone changed it meanwhile."""


def way_out(boundary: Path, path: Path) -> Unwritable | None:
    """Why writing at `path` would follow a link out of `boundary` (or through a dangling one): the
    first such link on the way, or None when every link on the way resolves inside."""
    parts = _parts(boundary, path)
    here = Path(boundary)
    for part in parts:
        here = here / part
        try:
            if not stat.S_ISLNK(os.lstat(here).st_mode):
                continue
        except (FileNotFoundError, NotADirectoryError):
            return None  # made from here on (or not at all: the caller finds the file in the way)
        except OSError as exc:
            return Unwritable(here, f"cannot be looked at ({_words(exc)})")
        target = _target(here)
        if not os.path.exists(here):
            return Unwritable(here, f"is a symbolic link to {target}, which leads nowhere; kb writes through no "
                                    "dangling link")
        if not is_inside(here, boundary):
            return Unwritable(here, f"is a symbolic link to {target}, outside {boundary}; kb writes nothing "
                                    "through a link that leaves it")
    return None


@contextmanager
def opened_folder(boundary: Path, folder: Path, *, create: bool = False, links: bool = True,
                  made: list[Path] | None = None) -> Iterator[int]:
    """A descriptor of `folder` (`boundary` itself, or a folder under it), reached from `boundary`
    one name at a time without following a link: a link on the way is followed only where it
    resolves inside `boundary` (`links`; never without it). With `create`, missing folders are
    made (and appended to `made`)."""
    parts = _parts(boundary, folder)
    top = os.path.realpath(boundary)
    if links:
        problem = way_out(boundary, folder)
        if problem is not None:
            raise problem
        real = os.path.realpath(Path(boundary).joinpath(*parts))
        parts = () if real == top else Path(real).relative_to(top).parts
    try:
        fd = os.open(top, _FOLDER_FLAGS)
    except OSError as exc:
        raise Unwritable(Path(boundary), f"cannot be opened ({_words(exc)})") from None
    here = Path(top)
    try:
        for part in parts:
            here = here / part
            inner = _step(fd, part, here, create, made)
            os.close(fd)  # each folder on the way is left once the next is open: none stays open
            fd = inner
        yield fd
    finally:
        os.close(fd)


def _step(fd: int, name: str, path: Path, create: bool, made: list[Path] | None) -> int:
    """The folder `name` in the folder open as `fd`, opened without following a link."""
    try:
        try:
            inner = os.open(name, _FOLDER_FLAGS | _NO_FOLLOW, dir_fd=fd)
        except FileNotFoundError:
            if not create:
                raise
            os.mkdir(name, 0o777, dir_fd=fd)
            if made is not None:
                made.append(path)
            inner = os.open(name, _FOLDER_FLAGS | _NO_FOLLOW, dir_fd=fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP or (exc.errno == errno.ENOTDIR and _is_link(name, fd)):
            raise Unwritable(path, "is a symbolic link; kb writes through none here") from None
        if exc.errno == errno.ENOTDIR:
            raise Unwritable(path, "is a file, where a folder belongs") from None
        raise Unwritable(path, f"cannot be opened as a folder ({_words(exc)})") from None
    return inner


def write_file(boundary: Path, path: Path, data: bytes, *, replace: bool = False, expected: bytes | None = None,
               mode: int | None = None, links: bool = True, durable: bool = True,
               made: list[Path] | None = None) -> None:
    """Write `data` as the file `path` under `boundary`, all at once, creating missing folders (into
    `made`). A new file unless `replace`; with `expected`, the file must still hold exactly those
    bytes (else `Changed`). `mode`: the file's permissions (default: 0o666 less the umask);
    `durable`: on disk (fsync) before it takes the old one's place."""
    with opened_folder(boundary, path.parent, create=True, links=links, made=made) as folder:
        if expected is not None and _current(folder, path, len(expected)) != expected:
            raise Changed(path, "changed while kb was writing it; nothing was written, run the command again")
        temporary = f".{path.name}.{secrets.token_hex(4)}.tmp"
        try:
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NO_FOLLOW | getattr(os, "O_CLOEXEC", 0),
                         0o666, dir_fd=folder)
        except OSError as exc:
            raise Unwritable(path, f"cannot be written ({_words(exc)})") from None
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
                if durable:
                    handle.flush()
                    os.fsync(handle.fileno())
            if replace:
                os.replace(temporary, path.name, src_dir_fd=folder, dst_dir_fd=folder)
            else:
                _link_new(folder, temporary, path)
            _count_change()
        except FileExistsError:
            raise Unwritable(path, "exists; kb writes a new file only where there is none") from None
        except OSError as exc:
            raise Unwritable(path, f"cannot be written ({_words(exc)})") from None
        finally:
            try:
                os.unlink(temporary, dir_fd=folder)
            except FileNotFoundError:
                pass  # renamed into place


def changes_made() -> int:
    """How many files this process has written or removed through this writer: whether a command
    changed anything before it failed (the CLI's exit code says "nothing changed" only when so)."""
    return _changes


def _count_change() -> None:
    global _changes
    _changes += 1


def _link_new(folder: int, temporary: str, path: Path) -> None:
    """Give the temporary file `path`'s name, failing if that name appeared meanwhile."""
    try:
        os.link(temporary, path.name, src_dir_fd=folder, dst_dir_fd=folder, follow_symlinks=False)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: check, then rename
        try:
            os.lstat(path.name, dir_fd=folder)
        except FileNotFoundError:
            os.rename(temporary, path.name, src_dir_fd=folder, dst_dir_fd=folder)
            return
        raise FileExistsError(path) from None


def _current(folder: int, path: Path, limit: int) -> bytes | None:
    """What the regular file `path` (in the folder open as `folder`) holds now, up to one byte past
    `limit`; None if it is not a regular file."""
    try:
        fd = os.open(path.name, os.O_RDONLY | os.O_NONBLOCK | _NO_FOLLOW | getattr(os, "O_CLOEXEC", 0), dir_fd=folder)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        chunks, total = [], 0
        while total <= limit and (chunk := os.read(fd, min(1 << 16, limit + 1 - total))):
            chunks.append(chunk)
            total += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def make_folders(folder: Path, made: list[Path]) -> None:
    """Make `folder` and the missing folders on its way (each appended to `made`), below the nearest
    folder that exists, without following a link: a folder that is not there yet has no repository
    around it to be the boundary (kb init into a new folder outside any repository)."""
    existing = Path(os.path.abspath(folder))
    while not os.path.lexists(existing) and existing.parent != existing:
        existing = existing.parent
    with opened_folder(existing, Path(os.path.abspath(folder)), create=True, links=False, made=made):
        pass


def remove_file(boundary: Path, path: Path, *, links: bool = True) -> None:
    """Remove the file `path` under `boundary` (a link there is removed, never what it names)."""
    with opened_folder(boundary, path.parent, links=links) as folder:
        try:
            os.unlink(path.name, dir_fd=folder)
            _count_change()
        except OSError as exc:
            raise Unwritable(path, f"cannot be removed ({_words(exc)})") from None


def _parts(boundary: Path, path: Path) -> tuple[str, ...]:
    """`path`'s names below `boundary` (both made absolute without resolving links)."""
    inner, top = os.path.abspath(path), os.path.abspath(boundary)
    if inner != top and not inner.startswith(top.rstrip(os.sep) + os.sep):
        raise Unwritable(Path(path), f"is outside {boundary}, where kb writes nothing")
    return Path(inner).relative_to(top).parts


def _is_link(name: str, folder: int) -> bool:
    try:
        return stat.S_ISLNK(os.lstat(name, dir_fd=folder).st_mode)
    except OSError:
        return False


def _target(path: Path) -> str:
    try:
        return os.readlink(path)
    except OSError:
        return "?"


def _words(exc: OSError) -> str:
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return (exc.strerror or str(exc)).lower()


def write_new_file(folder: Path, rel_path: str, content: bytes | int, made: set[str] | None = None) -> None:
    """Create `folder/rel_path` (and the folders on its way) and write `content` (or, for a number,
    a file of that many bytes, none written): never through a link, never over an existing file,
    never outside `folder`, a private folder kb made (PR and pre-commit modes lay out a commit
    there). `made`: the folders (relative to `folder`) this caller made there already, kept up to
    date (a layout of thousands of files makes each folder once). Raises OSError, or ValueError when
    the path would leave `folder`."""
    target = _new_place(folder, rel_path, made)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o644)
    try:
        if isinstance(content, int):
            os.ftruncate(fd, content)
        else:
            view = memoryview(content)
            while view:
                view = view[os.write(fd, view):]
    finally:
        os.close(fd)


def write_new_folders(folder: Path, rel_path: str, made: set[str]) -> None:
    """Make the folders on the way to `folder/rel_path`, as `write_new_file` does, and no file."""
    _new_place(folder, rel_path, made)


def write_new_link(folder: Path, rel_path: str, target: str) -> None:
    """Create the symbolic link `folder/rel_path` to `target` (as a checkout would; it is not
    followed here), the folders on its way made as in `write_new_file`."""
    os.symlink(target, _new_place(folder, rel_path))


def write_new_folder(folder: Path, rel_path: str) -> None:
    """Create the empty folder `folder/rel_path` (what a checkout leaves for a submodule it does not
    clone), the folders on its way made as in `write_new_file`."""
    os.mkdir(_new_place(folder, rel_path))


def _new_place(folder: Path, rel_path: str, made: set[str] | None = None) -> str:
    """`folder/rel_path`, the folders on its way made one at a time, none a link (ValueError); those
    in `made` are known to be folders made here (added to it)."""
    parts = rel_path.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{rel_path!r} would be written outside {folder}")
    place = os.fspath(folder)
    for i, part in enumerate(parts[:-1], 1):
        place = os.path.join(place, part)
        inner = "/".join(parts[:i])
        if made is not None and inner in made:
            continue
        try:
            os.mkdir(place)
        except FileExistsError:
            if stat.S_ISLNK(os.lstat(place).st_mode):
                raise ValueError(f"{rel_path!r} would be written through a link in {folder}") from None
        if made is not None and os.path.isdir(place):
            made.add(inner)
    return os.path.join(place, parts[-1])
