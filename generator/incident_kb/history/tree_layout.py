"""Lay out chosen paths of a git tree (a commit's, or the one the index would commit) into a private
temporary folder, as a checkout would: regular files from git's objects, symbolic links as links,
a submodule (a gitlink) as the empty folder a checkout that does not clone it leaves, so a gitlink
where a record goes fails the staged commit as it fails the same commit checked out in CI.

PR mode (`--base`) and pre-commit mode (`--staged`) check such a folder instead of the work tree, so
what a link leads to must be there as in a checkout: a link is written with its own target, and when
that target lies inside the folder, what the tree holds there is laid out too (the check then
follows it, or refuses it, exactly as in the work tree, where links out are refused by the readers).
Every path is checked first: an entry with '..', an absolute path or an empty part stops the run
(git refuses to check such a tree out), and nothing is written beyond a link (git would not either),
so nothing lands outside the folder. Knows nothing of records.

With a work tree (--staged: the repository's own), a regular file's bytes are taken from the work
tree's file at its path when they hash to the entry's blob id (they are then the blob's bytes: no
stat information is trusted, so an unstaged edit, a racy index entry or a clean filter changes
nothing); the others are read from git's objects, in one `git cat-file --batch` process.

A caller may hold chosen regular files in memory instead of writing them (`add`'s `keep`: --staged's
record files, which the loader reads from `unwritten`; creating them was most of its cost); any later
`add` of one, a link's target for instance, writes it.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Collection, Iterable, Mapping
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from ..findings import KbError
from ..records.record_cache import blob_id
from ..repository.files import UnreadableFile, lexists, read_bounded, real_path, status
from ..repository.writes import (
    Unwritable,
    remove_file,
    write_new_file,
    write_new_folder,
    write_new_folders,
    write_new_link,
)
from .gitio import Oversized, TreeEntry, iter_blobs, list_tree, missing_objects

if TYPE_CHECKING:
    import git

# Above every reader's limit (deploy files: 10 MiB): a larger file is laid out by its size alone, so
# the check refuses it as it would in the work tree, and git's bytes are never held.
MAX_BLOB = 64 << 20
_FILE_MODES = ("100644", "100755")
_LINK_MODE = "120000"
_MAX_TARGET = 4096  # a link's target is a path: PATH_MAX


class TreeLayout:
    """The folder `dest` filled from tree `rev` (under `prefix`, the knowledge base's folder in the
    repository); `mode` names the command in messages ('--base main', '--staged')."""

    def __init__(self, repo: git.Repo, rev: str, prefix: str, dest: Path, mode: str,
                 env: Mapping[str, str] | None = None, work_tree: Path | None = None) -> None:
        self.repo, self.rev, self.prefix, self.dest, self.mode, self.env = repo, rev, prefix, dest, mode, env
        self.work_tree = work_tree  # the folder whose files stand for the tree's where their bytes are the same
        self.written: set[str] = set()  # files and links laid out, relative to dest
        self.linked = False  # whether a link was laid out (a file may then be read under two names)
        self.contents: dict[str, bytes] = {}  # the regular files laid out, by path: their bytes
        self.unwritten: dict[str, bytes] = {}  # those held in memory only (`add`'s `keep`), by path
        self._folders: set[str] = set()  # folders made here (never links: the folder is kb's own)
        self._real_dest = real_path(dest)

    def entries(self, paths: Iterable[str]) -> list[TreeEntry]:
        """The tree's entries under `paths` (relative to the knowledge base's folder)."""
        return list_tree(self.repo, self.rev, self.prefix, list(paths), self.env)

    def add(self, entries: Iterable[TreeEntry], keep: Callable[[str, bytes], bool] | None = None) -> None:
        """Lay out the regular files and links among `entries`, then what each link leads to inside
        the folder; a submodule as an empty folder. Paths already laid out are left out. `keep`: which
        regular files (by path and bytes) to hold in memory instead (`unwritten`; the folders on their
        way are made); a later `add` of one writes it."""
        files: dict[str, list[str]] = {}
        links: dict[str, list[str]] = {}
        for entry in entries:
            _refuse_escaping(entry.path, self.mode)
            if entry.path in self.written or entry.kind not in ("blob", "commit") or self._beyond_a_link(entry.path):
                continue
            if entry.kind == "commit":
                self._write_folder(entry.path)
                continue
            if entry.mode in _FILE_MODES:
                files.setdefault(entry.blob, []).append(entry.path)
            elif entry.mode == _LINK_MODE:
                links.setdefault(entry.blob, []).append(entry.path)
        gone = missing_objects(self.repo, [*files, *links])
        if gone:
            shown = sorted(path for blob in gone for path in (*files.get(blob, ()), *links.get(blob, ())))
            raise KbError(f"{self.mode}: {len(shown)} of the files kb reads at {self.rev[:7]} ({shown[0]}"
                          f"{', ...' if len(shown) > 1 else ''}) are not in this partial clone, and kb does not "
                          "fetch them (it writes nothing into .git); fetch them (`git fetch --refetch`) or use a "
                          "full clone, then run kb again")
        from_git = dict(files)
        for blob, paths in files.items():
            in_work_tree = self._as_in_work_tree(blob, paths)
            if in_work_tree is not None:
                del from_git[blob]
                for path in paths:
                    self._lay_file(path, in_work_tree, keep)
        for blob, content in iter_blobs(self.repo, from_git, MAX_BLOB):
            for path in files[blob]:
                self._lay_file(path, content, keep)
        followed: list[str] = []
        for blob, content in iter_blobs(self.repo, links, _MAX_TARGET):
            if isinstance(content, Oversized) or b"\0" in content:
                continue  # no path: git could not check it out as a link either
            for path in links[blob]:
                if not self._beyond_a_link(path):
                    self._write_link(path, os.fsdecode(content))
                    followed.append(path)
        for path in followed:
            target = self.inside(path)
            if target is not None and not (path == target or path.startswith(target + "/")):  # not a loop
                self.add(self.entries([target]))

    def replace(self, entries: Iterable[TreeEntry], unwritten: Collection[str] = ()) -> None:
        """Lay out `entries` in place of the regular files the folder holds at their paths (a file the
        folder was filled with from another tree, as this one holds it), or holds in memory only
        (`unwritten`: another layout's, which then stand for the folder's no longer)."""
        entries = list(entries)
        for entry in entries:
            _refuse_escaping(entry.path, self.mode)
            if entry.path in unwritten:
                continue
            try:
                remove_file(self.dest, self.dest / entry.path, links=False)
            except Unwritable as exc:
                raise KbError(f"{self.mode}: cannot lay out {entry.path!r} again ({exc})") from None
            self.written.discard(entry.path)
        self.add(entries)

    def add_paths(self, paths: Iterable[str]) -> None:
        """Lay out `paths` (files a record names), each reached through the links laid out already."""
        wanted: dict[str, str] = {}
        for path in paths:
            if _is_escaping(path):
                continue  # the check says so about the record that names it
            if not lexists(self.dest / path):
                real = self.inside(path)
                if real is not None:
                    wanted[real] = path
        if wanted:
            self.add(entry for entry in self.entries(sorted(wanted)) if entry.path in wanted)

    def _as_in_work_tree(self, blob: str, paths: list[str]) -> bytes | None:
        """Blob `blob`'s bytes from the work tree's file at one of `paths`, when that file holds them."""
        work_tree = self.work_tree
        if work_tree is None:
            return None
        for path in paths:
            try:
                raw = read_bounded(work_tree / path, MAX_BLOB, work_tree)
            except UnreadableFile:
                continue
            if blob_id(raw) == blob:
                return raw
        return None

    def inside(self, path: str) -> str | None:
        """`path` with the links laid out on its way resolved, relative to the folder; None when it
        leads out of it (or to the folder itself)."""
        real = real_path(self.dest / path)
        if not real.startswith(self._real_dest + os.sep):
            return None
        return Path(os.path.relpath(real, self._real_dest)).as_posix()

    def _beyond_a_link(self, path: str) -> bool:
        if not self.linked:  # the folder is kb's own: a link in it is one laid out here
            return False
        parts = path.split("/")
        return any(isinstance(found := status(self.dest.joinpath(*parts[:i])), tuple) and stat.S_ISLNK(found[0])
                   for i in range(1, len(parts)))

    def write_all(self) -> None:
        """Write the files held in memory (`unwritten`)."""
        for path, content in list(self.unwritten.items()):
            self._write_file(path, content)

    def _lay_file(self, path: str, content: bytes | Oversized, keep: Callable[[str, bytes], bool] | None) -> None:
        if keep is None or isinstance(content, Oversized) or not keep(path, content):
            self._write_file(path, content)
            return
        try:
            write_new_folders(self.dest, path, self._folders)
        except ValueError:
            raise KbError(f"{self.mode}: {path!r} would be written outside the temporary folder; refusing") from None
        except OSError as exc:
            raise KbError(f"{self.mode}: cannot lay out {path!r} from the commit's tree ({exc.strerror or exc}); "
                          "is the tree well-formed?") from None
        self.contents[path] = self.unwritten[path] = content

    def _write_file(self, path: str, content: bytes | Oversized) -> None:
        """Create `dest/path`; an oversized blob is laid out as large as it is, so readers refuse it
        alike (never read)."""
        try:
            write_new_file(self.dest, path, content.size if isinstance(content, Oversized) else content,
                           self._folders)
        except ValueError:
            raise KbError(f"{self.mode}: {path!r} would be written outside the temporary folder; refusing") from None
        except OSError as exc:
            raise KbError(f"{self.mode}: cannot lay out {path!r} from the commit's tree ({exc.strerror or exc}); "
                          "is the tree well-formed?") from None
        self.written.add(path)
        self.unwritten.pop(path, None)
        if not isinstance(content, Oversized):
            self.contents[path] = content

    def _write_folder(self, path: str) -> None:
        try:
            write_new_folder(self.dest, path)
        except ValueError:
            raise KbError(f"{self.mode}: {path!r} would be written outside the temporary folder; refusing") from None
        except OSError as exc:
            raise KbError(f"{self.mode}: cannot lay out the submodule {path!r} from the commit's tree "
                          f"({exc.strerror or exc}); is the tree well-formed?") from None
        self.written.add(path)

    def _write_link(self, path: str, target: str) -> None:
        try:
            write_new_link(self.dest, path, target)
            self.linked = True
        except ValueError:
            raise KbError(f"{self.mode}: {path!r} would be written outside the temporary folder; refusing") from None
        except OSError as exc:
            raise KbError(f"{self.mode}: cannot lay out the link {path!r} from the commit's tree "
                          f"({exc.strerror or exc}); is the tree well-formed?") from None
        self.written.add(path)

def _is_escaping(path: str) -> bool:
    return PurePosixPath(path).is_absolute() or any(part in ("", ".", "..") for part in path.split("/"))


def _refuse_escaping(path: str, mode: str) -> None:
    if _is_escaping(path):
        raise KbError(f"{mode}: the commit's tree holds a file named {path!r}, which would leave its folder; "
                      "git refuses to check such a tree out, and so does kb")
