"""Git plumbing: small functions over git's machine-readable output, through gitpython's `repo.git`.

Each function runs one git command (or one `git cat-file --batch` process) and returns plain
dataclasses. Paths are repository-relative, '/'-separated, as git prints them. This module knows
nothing of knobs, incidents or docs, and never decides what a change means.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import IO

from ..repository.files import copy_if_there, real_path, resolved
from .git_reads import refuse_what_git_opens_at_top, refuse_what_git_would_wait_on
from .git_view import (
    COMMIT_ID,
    GitView,
    config_entries,
    ignore_and_attributes_files,
    kb_git_environment,
    refuse_dubious_ownership,
)

try:  # gitpython refuses to import when no git executable can be found
    import git
    from git.exc import GitCommandError, GitCommandNotFound, InvalidGitRepositoryError, NoSuchPathError
    _IMPORT_PROBLEM: str | None = None
except ImportError as exc:  # pragma: no cover - only on a machine without git
    git = None  # type: ignore[assignment]
    _IMPORT_PROBLEM = str(exc).splitlines()[0]

NULL_ID = "0" * 40


class NotARepository(Exception):
    """The folder is not inside a git work tree (or git cannot run)."""


class ObjectsMissing(Exception):
    """git needed objects that a partial clone does not have, and may not fetch them (GIT_NO_LAZY_FETCH)."""


class IndexNotCommittable(Exception):
    """The index cannot be written as a tree (unmerged paths): git's own words."""


@dataclass(frozen=True, slots=True)
class PendingTree:
    """The tree the next commit would record, and the environment under which git can read it."""

    tree: str
    env: Mapping[str, str]


@dataclass(frozen=True, slots=True)
class RepoState:
    toplevel: Path
    prefix: str  # the opened folder relative to the top level: '' or 'sub/dir/'
    head: str | None  # HEAD's commit id; None in a repository with no commits yet
    branch: str | None  # None when HEAD is detached
    shallow: bool


@dataclass(frozen=True, slots=True)
class FileChange:
    status: str  # A, M, D, R, T (one letter, as in `git diff --raw`)
    path: str  # the path after the change (for D: the deleted path)
    old_path: str | None  # for R: the path before the rename
    new_blob: str  # NULL_ID when deleted, or when the new content is only in the work tree
    similarity: int | None  # for R: 0-100, 100 when the content did not change


@dataclass(frozen=True, slots=True)
class Commit:
    id: str
    date: datetime | None  # committer date, with its time zone; None when the commit's date line is unreadable
    changes: tuple[FileChange, ...]

    @property
    def short_id(self) -> str:
        return self.id[:7]


@dataclass(frozen=True, slots=True)
class Oversized:
    """A blob over the reader's size limit, left unread (passed over in chunks): only its size."""

    size: int


@dataclass(frozen=True, slots=True)
class TreeEntry:
    mode: str
    kind: str  # blob, tree, commit (submodule)
    blob: str
    path: str


@contextmanager
def open_repository(folder: Path, view: GitView | None = None) -> Iterator[git.Repo]:
    """The repository whose work tree contains `folder`, closed (with its git processes) on exit.
    `view`: git's view of it as this run read it already (`git_view.read_git_view` of `folder`), whose
    answers git is not asked again (HEAD, the index's place, a partial clone)."""
    if git is None:
        raise NotARepository(f"git cannot run here ({_IMPORT_PROBLEM})")
    try:
        repo = git.Repo(folder, search_parent_directories=True)
    except (InvalidGitRepositoryError, NoSuchPathError):
        raise NotARepository(f"{folder} is not inside a git repository") from None
    except GitCommandNotFound as exc:
        raise NotARepository(f"git cannot run here ({exc})") from None
    with repo:
        repo.git.update_environment(**kb_git_environment())  # --no-optional-locks: reading never rewrites .git/index
        if view is not None and view.git_dir != real_path(str(repo.git_dir)):
            view = None  # another repository's view (GIT_DIR pointing elsewhere for one of them): asked here
        head = (view.head_facts if view is not None else None) or _head_facts(repo)
        if head is None:  # asked one by one, as git's refusal is told (or no commit yet: repository_state says)
            try:
                repo.git.rev_parse("--git-dir")
            except GitCommandError as exc:
                refuse_dubious_ownership(str(exc.stderr))
                raise NotARepository(f"git cannot read the repository at {folder} ({str(exc.stderr).strip()})") \
                    from None
        if repo.bare:
            raise NotARepository(f"{folder} is in a bare repository, which has no work tree")
        refuse_what_git_opens_at_top(resolved(Path(str(repo.working_tree_dir))))
        _opened[id(repo)] = _Opened(head, view.partial_clone if view is not None else None,
                                    view.index if view is not None and view.index else None)
        try:
            yield repo
        finally:
            del _opened[id(repo)]


@dataclass(slots=True)
class _Opened:
    """What git said of a repository `open_repository` holds open, asked once."""

    head: tuple[str, bool, str | None] | None  # for `repository_state` (one git process, not four), once
    partial_clone: bool | None = None  # `is_partial_clone`'s answer, once asked
    index: str | None = None  # the index git uses, when known (`_private_index`)


_opened: dict[int, _Opened] = {}  # by the open repository object's id


def _head_facts(repo: git.Repo) -> tuple[str, bool, str | None] | None:
    """HEAD's commit, whether the clone is shallow, and HEAD's branch (None: detached), in one git
    process; None when git does not answer so (no commit yet, a repository git refuses)."""
    try:
        lines = repo.git.rev_parse("HEAD^{commit}", "--is-shallow-repository", "--symbolic-full-name", "HEAD")
    except GitCommandError:
        return None
    answer = lines.splitlines()
    if len(answer) != 3 or answer[1] not in ("true", "false") or not COMMIT_ID.fullmatch(answer[0]):
        return None
    head, shallow, ref = answer
    return head, shallow == "true", None if ref == "HEAD" else ref.removeprefix("refs/heads/")


def repository_state(repo: git.Repo, folder: Path) -> RepoState:
    toplevel = resolved(Path(str(repo.working_tree_dir)))
    relative = resolved(folder).relative_to(toplevel).as_posix()
    prefix = "" if relative == "." else relative + "/"
    opened = _opened.get(id(repo))
    if opened is not None and opened.head is not None:
        (head, shallow, branch), opened.head = opened.head, None  # once: a later look asks git again
        return RepoState(toplevel, prefix, head, branch, shallow)
    shallow = repo.git.rev_parse("--is-shallow-repository") == "true"
    try:
        branch = repo.git.symbolic_ref("-q", "--short", "HEAD")
    except GitCommandError:
        branch = None
    return RepoState(toplevel, prefix, resolve_commit(repo, "HEAD"), branch, shallow)


def resolve_commit(repo: git.Repo, ref: str) -> str | None:
    """The commit id `ref` names, or None when it names no commit here."""
    if ref.startswith("-"):
        return None
    try:
        return repo.git.rev_parse("--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}") or None
    except GitCommandError:
        return None


def read_log(repo: git.Repo, rev: str, paths: Iterable[str], ahead: LogAhead | None = None) -> list[Commit]:
    """Mainline (first-parent) commits up to `rev` that touch `paths`, oldest first, with their
    changes to those paths; merges show what they changed relative to their first parent. `ahead`:
    the same command's output, when it was started early (`LogAhead`) in the same repository."""
    # --full-history --sparse: list every mainline commit instead of simplifying history by the paths,
    # which costs git a second tree comparison per commit (measured: about half the time of the
    # pass). Commits that touch none of the paths come back with no changes and are left out.
    paths = list(paths)
    out = ahead.output(repo, rev, paths) if ahead is not None else None
    try:
        if out is None:
            out = repo.git.log(*_log_arguments(rev, paths), stdout_as_string=False)
    except GitCommandError as exc:
        if is_partial_clone(repo):  # rename detection needs contents the clone lacks
            raise ObjectsMissing(" ".join(str(exc.stderr).replace("stderr:", "").split()).strip("' ")) from None
        raise
    commits = []
    for chunk in out.decode("utf-8", "surrogateescape").split("\x01")[1:]:
        tokens = chunk.split("\0")
        if len(tokens) > 3:
            commits.append(Commit(tokens[0], commit_date(tokens[1]), tuple(_parse_raw(tokens[2:]))))
    commits.reverse()
    return commits


def _log_arguments(rev: str, paths: list[str]) -> list[str]:
    return ["--first-parent", "--diff-merges=first-parent", "--full-history", "--sparse", "--raw", "-z", "-M",
            "--no-abbrev", "--no-color", "--format=%x01%H%x00%cI %ct%x00", rev, "--", *paths]


class LogAhead:
    """`read_log`'s git process for commit `rev` and `paths`, started before its output is asked for:
    git walks the history on a core of its own while kb loads the records (the walk is most of a cold
    check's git time). Its output is given only to the very same command in the same repository
    (`output`), where git's answer is the one it would give then (`rev` is a commit id); any other
    answer, or an error, is left unused and `read_log` runs git itself. Close it (`close`) when done:
    a process still running is killed."""

    def __init__(self, repo: git.Repo, rev: str, paths: list[str]) -> None:
        self._key = (str(repo.git_dir), rev, list(paths))
        self._process = repo.git.log(*_log_arguments(rev, list(paths)), as_process=True)
        self._out: bytes | None = None
        self._thread = threading.Thread(target=self._drain, daemon=True)
        self._thread.start()

    def _drain(self) -> None:
        process = self._process.proc
        if process is None:
            return
        out, _ = process.communicate()  # stderr too: git never waits on a full pipe
        if process.returncode == 0:
            # as gitpython's `execute` gives a command's output: one final newline dropped
            self._out = out[:-1] if out.endswith(b"\n") else out

    def output(self, repo: git.Repo, rev: str, paths: list[str]) -> bytes | None:
        """The output of `read_log`'s command for `rev` and `paths` in `repo`, if that is the command
        started; None otherwise (or when git failed)."""
        if (str(repo.git_dir), rev, list(paths)) != self._key:
            return None
        self._thread.join()
        return self._out

    def close(self) -> None:
        process = self._process.proc
        if process is not None and process.poll() is None:
            process.kill()
        self._thread.join()


def is_on_mainline(repo: git.Repo, ancestor: str, rev: str) -> bool:
    """Whether commit `ancestor` is on the first-parent chain of `rev` (so `ancestor..rev` with
    --first-parent lists exactly the mainline commits after it)."""
    if ancestor == rev:
        return True
    try:
        out = repo.git.rev_list("--first-parent", "--parents", f"{ancestor}..{rev}")
    except GitCommandError:
        return False
    lines = out.splitlines()
    return bool(lines) and lines[-1].split(" ")[1:2] == [ancestor]


def commit_date(text: str) -> datetime | None:
    """A commit's date from '%cI %ct': with its zone when git could write it in ISO 8601 and it has a
    UTC day in years 1..9999; else the seconds in UTC; None when neither can be read. A commit
    object can hold any date line (year 10000, zone -9999, text): none may stop a check."""
    iso, _, seconds = text.strip().rpartition(" ")
    try:
        moment = datetime.fromisoformat(iso)
        moment.astimezone(UTC)  # raises when the UTC day falls outside years 1..9999
        return moment
    except (ValueError, OverflowError):
        pass
    try:
        return datetime.fromtimestamp(int(seconds), UTC)
    except (ValueError, OverflowError, OSError):
        return None


def uncommitted_changes(repo: git.Repo, paths: Iterable[str], folders: Iterable[Path],
                        config: str | None = None, head: str = "HEAD") -> list[FileChange]:
    """Changes in the work tree and index relative to `head` (the commit the history was walked from:
    a commit made meanwhile is not half seen), plus untracked files (not ignored).
    `paths`: pathspecs; `folders`: the same places as absolute paths; `config`: `git config --list -z
    --show-origin` as this check read it already (`GitView.config_listing`), else asked here. Raises
    KbError, before git is asked, when a file git would open on the way is one it would wait on
    forever (`git_reads`)."""
    paths = list(paths)
    top = resolved(Path(str(repo.working_tree_dir)))
    entries = config_entries(config if config is not None else repo.git.config("--list", "-z", "--show-origin"))
    refuse_what_git_would_wait_on(top, folders, ignore_and_attributes_files(Path(repo.common_dir), top, entries))
    with _private_index(repo) as index:
        # A file touched (or edited and undone) differs from the index by its times only: `git diff`
        # compares its content, then refreshes the index it read, rewriting it whatever
        # --no-optional-locks says (git 2.39). So it reads a private copy, and .git/index is never written.
        out = repo.git(c="core.splitIndex=false").diff(head, "--raw", "-z", "-M", "--no-abbrev", "--no-color", "--",
                                                       *paths, stdout_as_string=False, env={"GIT_INDEX_FILE": index})
    changes = list(_parse_raw(out.decode("utf-8", "surrogateescape").split("\0")))
    untracked = repo.git.ls_files("--others", "--exclude-standard", "-z", "--", *paths,
                                  stdout_as_string=False)
    for path in untracked.decode("utf-8", "surrogateescape").split("\0"):
        if path:
            changes.append(FileChange("A", path, None, NULL_ID, None))
    return changes


@contextmanager
def _private_index(repo: git.Repo) -> Iterator[str]:
    """A copy of the repository's index in a private temporary folder (removed afterwards), where git
    may refresh it. Split indexes are written whole there (`core.splitIndex` off for that diff), so
    nothing is written in the repository's git folder either."""
    opened = _opened.get(id(repo))
    index = Path(opened.index if opened is not None and opened.index else repo.git.rev_parse("--git-path", "index"))
    if not index.is_absolute():
        index = Path(str(repo.working_tree_dir)) / index
    with tempfile.TemporaryDirectory(prefix="kb-index-") as folder:
        copy = Path(folder) / "index"
        copy_if_there(index, copy)  # no index (nothing staged yet): none in the copy either
        yield str(copy)


@contextmanager
def index_tree(repo: git.Repo) -> Iterator[PendingTree]:
    """The tree the next commit would record: `git write-tree` of (a private copy of) the index, as
    `git commit` writes it (entries added with --intent-to-add left out; unmerged paths refused with
    IndexNotCommittable). Its tree objects go to a private object folder that borrows the
    repository's objects, so nothing is written in the repository's git folder; the tree can be read
    only with `PendingTree.env`, until the block ends."""
    objects = Path(repo.git.rev_parse("--git-path", "objects"))
    if not objects.is_absolute():
        objects = Path(str(repo.working_tree_dir)) / objects
    with _private_index(repo) as index, tempfile.TemporaryDirectory(prefix="kb-objects-") as folder:
        borrowed = [str(objects), *filter(None, [os.environ.get("GIT_ALTERNATE_OBJECT_DIRECTORIES")])]
        env = {"GIT_INDEX_FILE": index, "GIT_OBJECT_DIRECTORY": folder,
               "GIT_ALTERNATE_OBJECT_DIRECTORIES": os.pathsep.join(borrowed)}
        try:
            tree = repo.git(c="core.splitIndex=false").write_tree(env=env).strip()
        except GitCommandError as exc:
            raise IndexNotCommittable(" ".join(str(exc.stderr).replace("stderr:", "").split()).strip("' ")) from None
        yield PendingTree(tree, env)


def tree_changes(repo: git.Repo, old: str, new: PendingTree, paths: Iterable[str]) -> list[FileChange]:
    """What commit `old` to the pending tree changes under `paths`, as one commit of `read_log` shows it."""
    out = repo.git.diff_tree("-r", "--raw", "-z", "-M", "--no-abbrev", "--no-color", old, new.tree, "--", *paths,
                             stdout_as_string=False, env=dict(new.env))
    return list(_parse_raw(out.decode("utf-8", "surrogateescape").split("\0")))


def empty_tree(repo: git.Repo) -> str:
    """The id of the empty tree (what a first commit is compared with), written nowhere."""
    return str(repo.git.hash_object("-t", "tree", "/dev/null")).strip()


def staged_paths(repo: git.Repo) -> list[str]:
    """The paths the next commit changes (added, modified, deleted; both sides of a rename),
    relative to the repository's top."""
    out = repo.git.diff("--cached", "--name-only", "--no-renames", "-z", stdout_as_string=False)
    return [path for path in out.decode("utf-8", "surrogateescape").split("\0") if path]


def _parse_raw(tokens: list[str]) -> Iterator[FileChange]:
    """`--raw -z` entries: ':old_mode new_mode old_blob new_blob STATUS\\0path\\0[new_path\\0]'."""
    i = 0
    while i < len(tokens):
        meta = tokens[i].lstrip("\n")
        i += 1
        if not meta.startswith(":"):
            continue
        _, _, _, new_blob, status = meta[1:].split(" ")
        letter = status[0]
        if letter in "RC":
            old_path, path = tokens[i], tokens[i + 1]
            i += 2
            yield FileChange(letter, path, old_path, new_blob, int(status[1:] or 0))
        else:
            path = tokens[i]
            i += 1
            yield FileChange(letter, path, None, new_blob, None)


def read_blobs(repo: git.Repo, ids: Iterable[str], limit: int | None = None) -> dict[str, bytes | Oversized]:
    """The content of each blob, read through one `git cat-file --batch` process (see `iter_blobs`)."""
    return dict(iter_blobs(repo, ids, limit))


def is_partial_clone(repo: git.Repo) -> bool:
    """Whether the repository may lack objects (a partial clone: a promisor remote); asked of git once
    while the repository is open (`open_repository`)."""
    opened = _opened.get(id(repo))
    if opened is not None and opened.partial_clone is not None:
        return opened.partial_clone
    try:
        partial = bool(repo.git.config("--get-regexp", r"^remote\..*\.promisor$|^extensions\.partialclone$"))
    except GitCommandError:  # none set
        partial = False
    if opened is not None:
        opened.partial_clone = partial
    return partial


def missing_objects(repo: git.Repo, ids: Iterable[str]) -> set[str]:
    """Those of `ids` that are not in the repository's object stores. Only a partial clone lacks objects,
    and git may not fetch them (GIT_NO_LAZY_FETCH: kb writes nothing into .git), so `cat-file` would stop
    at the first one: they are looked up among the objects there are, never asked for."""
    wanted = set(ids)
    if not wanted or not is_partial_clone(repo):
        return set()
    out = repo.git.cat_file("--batch-check=%(objectname)", "--batch-all-objects")
    return wanted - set(out.split())


def iter_blobs(repo: git.Repo, ids: Iterable[str], limit: int | None = None) -> Iterator[tuple[str, bytes | Oversized]]:
    """(id, content) of each blob in turn, from one `git cat-file --batch` process; missing ones are
    left out, and with `limit` one larger than that is `Oversized` (never held in memory: one 200 MB
    version in a record's history must not cost 200 MB). Requests are written from a thread while
    answers are read, so the pipe never stalls and no object costs a round trip."""
    wanted = list(dict.fromkeys(ids))
    missing = missing_objects(repo, wanted)
    wanted = [blob for blob in wanted if blob not in missing]
    if not wanted:
        return
    process = repo.git.cat_file("--batch", as_process=True, istream=subprocess.PIPE)
    stdin, stdout = process.proc.stdin, process.proc.stdout

    def write() -> None:
        try:
            stdin.write("".join(f"{i}\n" for i in wanted).encode())
        except BrokenPipeError:  # the reader stopped early
            pass
        finally:
            try:
                stdin.close()
            except BrokenPipeError:
                pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        for blob_id in wanted:
            header = stdout.readline().split()
            if len(header) != 3:  # '<id> missing'
                continue
            size = int(header[2])
            if limit is not None and size > limit:
                _pass_over(stdout, size + 1)
                yield blob_id, Oversized(size)
                continue
            content = stdout.read(size)
            stdout.read(1)  # the newline after each object
            yield blob_id, content
    finally:
        stdout.close()
        writer.join()
        process.proc.wait()


def _pass_over(stream: IO[bytes], count: int) -> None:
    """Read and drop `count` bytes, a chunk at a time."""
    while count > 0:
        chunk = stream.read(min(count, 1 << 20))
        if not chunk:
            return
        count -= len(chunk)


def list_tree(repo: git.Repo, rev: str, folder: str = "", paths: Iterable[str] | None = None,
              env: Mapping[str, str] | None = None) -> list[TreeEntry]:
    """Every file under `folder` ('' or 'sub/dir/') in commit (or tree) `rev`, or only those under
    `paths` (relative to `folder`) when given; paths relative to `folder`. Nothing when the folder is
    not there. Paths are taken literally (no glob patterns), and git's tree entries as they are: a
    tree made by hand can hold '..' or a link, so readers must check them. `env`: a `PendingTree`'s."""
    if paths is None:
        specs = [folder.rstrip("/")] if folder else []
    else:
        specs = [folder + path for path in paths]
        if not specs:
            return []
    out = repo.git.ls_tree("-r", "-z", "--full-tree", rev, "--", *specs, stdout_as_string=False,
                           env={**(env or {}), "GIT_LITERAL_PATHSPECS": "1"})
    entries = []
    for item in out.decode("utf-8", "surrogateescape").split("\0"):
        if item:
            meta, path = item.split("\t", 1)
            mode, kind, blob = meta.split(" ")
            if path.startswith(folder):
                entries.append(TreeEntry(mode, kind, blob, path[len(folder):]))
    return entries
