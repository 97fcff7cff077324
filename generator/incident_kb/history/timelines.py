"""Records' and docs' history from git: each record's material changes, each doc's last change.

One pass over the mainline (first-parent) history of knobs/, incidents/ and the docs, following
renames; each version of a record is read once (one `git cat-file --batch` process), parsed with
`parse_yaml`, and compared with the version before it on its material fields only (the fields the
schema marks `Material`, see `records.materiality`: a knob's status, value, default; an incident's
status, root cause, each hypothesis's verdict). Uncommitted changes in the work tree count as the
newest change. Reads git and the work tree; judges nothing (the stale-doc
rule does) and never reports findings. The pass over committed history and each committed
version's material fields are kept between runs (`memo`), so a re-check reads only
the commits since the last run.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from ..cache import cache_folder_warning, open_store
from ..findings import KbError
from ..records.materiality import MaterialFields, material_fields
from ..records.vocabulary import RecordKey, RecordKind
from ..records.yaml_source import MAX_BYTES, parse_yaml
from ..repository.files import UnreadableFile, note_every_file, read_bounded
from .git_view import GitView, read_git_view
from .gitio import (
    NULL_ID,
    LogAhead,
    NotARepository,
    ObjectsMissing,
    Oversized,
    PendingTree,
    RepoState,
    empty_tree,
    missing_objects,
    open_repository,
    read_blobs,
    repository_state,
    resolve_commit,
    tree_changes,
    uncommitted_changes,
)
from .memo import FieldsMemo, committed_walk, may_continue_walk
from .walk import Moment, Version, Walk


class HistoryUnavailable(Exception):
    """There is no history to read (not a repository, no commits yet); the message says the fix."""


@dataclass(frozen=True, slots=True)
class FieldChange:
    field: str  # 'status', 'value', 'default', 'root cause' or "hypothesis 'id'"
    old: str | None  # None when absent
    new: str | None

    def __str__(self) -> str:
        return f"{self.field} {self.old or 'none'} -> {self.new or 'none'}"


@dataclass(frozen=True, slots=True)
class MaterialChange:
    """One commit's change to a record's material fields (or the record's creation)."""

    kind: RecordKind
    record_id: str
    path: str  # the record's path at that commit, relative to the knowledge base's root
    at: Moment
    fields: tuple[FieldChange, ...]
    created: bool = False  # the first version of the record: fields hold its initial values

    @property
    def commit(self) -> str | None:
        return self.at.commit

    @property
    def date(self) -> datetime | None:
        return self.at.date

    @property
    def summary(self) -> str:
        """'status reverted -> active', or 'created (status active, value 512)'."""
        if self.created:
            return "created (" + ", ".join(f"{f.field} {f.new}" for f in self.fields if f.new is not None) + ")"
        return ", ".join(map(str, self.fields))


@dataclass
class History:
    changes: dict[RecordKey, list[MaterialChange]]  # oldest first, for the records asked about
    doc_changes: dict[str, Moment]  # doc path -> its last content change (a pure rename is not one)
    state: RepoState
    notes: list[str] = field(default_factory=list)  # one-line remarks for the user (detached HEAD...)
    # Record paths the uncommitted changes add (or rename to), root-relative: git pairs a deleted record
    # with the most similar of them, so their content decides whose history they continue.
    uncommitted_new: frozenset[str] = frozenset()
    # Record paths (root-relative) -> how many of their committed versions a partial clone lacks: kb does
    # not fetch them (it writes nothing into .git), so their changes cannot be told.
    missing: dict[str, int] = field(default_factory=dict)


def read_history(root: Path, records: Mapping[str, RecordKey], folders: Sequence[str],
                 extra_docs: Iterable[str] = (), *,
                 repo_folder: Path | None = None, rev: str | None = None, pending: PendingTree | None = None,
                 allow_shallow: bool = False, cache: bool = True, ahead: LogAhead | None = None,
                 view: GitView | None = None) -> History:
    """Material changes of `records` (root-relative path -> (kind, id)) and docs' last changes.

    History is read at `rev` (default: HEAD plus the work tree's uncommitted changes, or with
    `pending` HEAD plus the commit being made: `kb check --staged`) from the
    repository containing `repo_folder` (default: `root`), whose files stand for those of `root`.
    `folders` are what kb reads whole (the record folders, then the docs folder: `Settings.folders`);
    `extra_docs` are doc paths outside the docs folder whose changes matter. Raises HistoryUnavailable when
    there is no history, KbError for a shallow clone unless `allow_shallow`. `cache`: continue
    from the pass an earlier run kept in `root`'s store (`incident_kb.cache`; see `memo`). `ahead`:
    the walk's `git log`, started early by `history_read_ahead` (used only if it is the same command).
    `view`: git's view of `repo_folder` as this run read it already (the remembered result's key), else
    read here when the cache is on (the walk's key; what git would be asked again)."""
    repo_folder = repo_folder or root
    store = open_store(root) if cache else None
    if store is not None and view is None:
        view = read_git_view(repo_folder, 0)
    try:
        with open_repository(repo_folder, view) as repo:
            state = repository_state(repo, repo_folder)
            first = pending is not None and state.head is None  # the first commit, being made: all of history
            notes = _check_state(state, rev is None, allow_shallow) if not first else []
            paths = [*folders, *(d for d in extra_docs if not d.startswith(folders[-1] + "/"))]
            pathspecs = _pathspecs(state, paths)
            head = resolve_commit(repo, rev) if rev is not None else state.head
            walk, count = (Walk(state.prefix), 0) if first else \
                committed_walk(repo, store, view, state, head or rev or "HEAD", pathspecs, ahead)
            if pending is not None:  # the commit being made, as a commit: its blobs are in git already
                uncommitted = tree_changes(repo, head or empty_tree(repo), pending, pathspecs)
                if uncommitted:
                    walk.apply(uncommitted, Moment(count, None, None, staged=True))
            else:
                places = [state.toplevel / (state.prefix + p) for p in paths]
                for place in places if rev is None else ():  # git pairs renames by content: every file counts
                    note_every_file(place)
                uncommitted = uncommitted_changes(repo, pathspecs, places, view.config_listing if view else None,
                                                  head or "HEAD") if rev is None else []
                if uncommitted:
                    walk.apply(uncommitted, Moment(count, None, None), from_work_tree=True)
            new = frozenset(path[len(state.prefix):] for path in (c.path for c in uncommitted if c.status in "ARC")
                            if path.startswith(state.prefix))
            wanted = {path: walk.lineages[path] for path in records if path in walk.lineages}
            fields = FieldsMemo(store)
            needed = {path: [v.blob for v in lineage if v.blob and v.blob != NULL_ID
                             and not fields.knows(records[path][0], v.blob)] for path, lineage in wanted.items()}
            gone = missing_objects(repo, (blob for blobs in needed.values() for blob in blobs))
            missing = {path: n for path, blobs in sorted(needed.items()) if (n := sum(b in gone for b in blobs))}
            blobs = read_blobs(repo, [blob for found in needed.values() for blob in found], MAX_BYTES)
    except NotARepository as exc:
        raise HistoryUnavailable(f"{exc}; run kb inside a clone of the knowledge base's repository "
                                 "(or `git init` and commit it)") from None
    except ObjectsMissing as exc:
        raise KbError(f"git cannot read the history of {', '.join(folders)} in this partial clone without fetching "
                      f"objects ({exc}), and kb does not fetch them (it writes nothing into .git); fetch them "
                      "(`git fetch --refetch`) or use a full clone, then run kb again") from None
    changes = {records[path]: _material_changes(records[path], lineage, blobs, root, fields)
               for path, lineage in wanted.items()}
    fields.save()
    return History(changes, walk.doc_changes, state, notes, new, missing)


def _pathspecs(state: RepoState, paths: Iterable[str]) -> list[str]:
    """`paths` as git's pathspecs, the first last: git tries a path against the pathspecs from the
    last one back, for every entry of every tree it compares, so the record folders' (knobs last of
    all, the most records) are found first (at 10,000 records, the walk's git time falls by a fifth)."""
    return [f":(top,literal){state.prefix}{p}" for p in reversed(list(paths))]


@contextmanager
def history_read_ahead(root: Path, folders: Sequence[str], *, allow_shallow: bool = False,
                       cache: bool = True, view: GitView | None = None) -> Iterator[LogAhead | None]:
    """The `git log` of `read_history`'s walk over the committed mainline of `folders` (at HEAD, from
    the work tree at `root`), started now in the background, for the body of the `with` to pass to
    `read_history` once it knows what else to read; killed at the end if still running. None where
    `read_history` would not run that walk whole: no repository or no commit, a shallow clone
    refused, walks kept in the store (continued instead). `view`: as `read_history`'s. A head start
    only: whatever stops it here (git refusing the repository, a file git would wait on) `read_history`
    meets again, and says."""
    with contextlib.ExitStack() as stack:
        ahead = None
        try:
            repo = stack.enter_context(open_repository(root, view))
            state = repository_state(repo, root)
            if state.head is not None and (allow_shallow or not state.shallow):
                pathspecs = _pathspecs(state, folders)
                store = open_store(root) if cache and cache_folder_warning(root) is None else None
                if store is None or not may_continue_walk(store, pathspecs):
                    ahead = LogAhead(repo, state.head, pathspecs)
        except Exception:  # noqa: BLE001 - see the docstring: read_history reports it, in its place
            ahead = None
        try:
            yield ahead
        finally:
            if ahead is not None:
                ahead.close()


def _check_state(state: RepoState, at_head: bool, allow_shallow: bool) -> list[str]:
    if state.head is None:
        raise HistoryUnavailable(f"the git repository at {state.toplevel} has no commits yet; commit the "
                                 "knowledge base (git add -A && git commit) so its history can be read")
    notes = []
    if state.shallow:
        if not allow_shallow:
            raise KbError(f"{state.toplevel} is a shallow clone, so every file looks last changed at the clone's "
                          "oldest commit and stale docs cannot be told apart; fetch the whole history "
                          "(`git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout), or pass "
                          "--allow-shallow to check with the history the clone has")
        notes.append(f"warning: {state.toplevel} is a shallow clone; the git-based checks see only the history "
                     "it has (`git fetch --unshallow` for all of it)")
    if at_head and state.branch is None:
        notes.append(f"note: HEAD is detached at {state.head[:7]} (as in CI checkouts); history is read from "
                     "that commit (`git switch <branch>` to check a branch instead)")
    return notes


def _material_changes(key: RecordKey, lineage: list[Version], blobs: Mapping[str, bytes | Oversized],
                      root: Path, memo: FieldsMemo) -> list[MaterialChange]:
    kind, record_id = key
    changes: list[MaterialChange] = []
    previous: MaterialFields | None = None
    for version in lineage:
        if version.blob is not None and memo.knows(kind, version.blob):
            fields = memo.get(kind, version.blob)
        else:
            text = _version_text(version, blobs, root)
            fields = material_fields(kind, parse_yaml(text).value) if text is not None else None
            if version.blob is not None and (version.blob in blobs or version.blob == NULL_ID):
                memo.put(kind, version.blob, fields)
        if fields is None:
            continue  # unreadable or not a mapping: compare the next good version with the last one
        if previous is None:
            created = tuple(FieldChange(name, None, value) for name, value in fields.values.items())
            changes.append(MaterialChange(kind, record_id, version.path, version.at, created, created=True))
        else:
            differ = tuple(FieldChange(name, old, new) for name, old, new in fields.changes(previous))
            if differ:
                changes.append(MaterialChange(kind, record_id, version.path, version.at, differ))
        previous = fields
    return changes


def _version_text(version: Version, blobs: Mapping[str, bytes | Oversized], root: Path) -> str | None:
    if version.blob is None:
        try:
            return read_bounded(root / version.path, MAX_BYTES, root).decode("utf-8-sig")
        except (UnreadableFile, UnicodeDecodeError):
            return None
    raw = blobs.get(version.blob) if version.blob != NULL_ID else None
    if not isinstance(raw, bytes) or len(raw) > MAX_BYTES:  # missing, or over the limit (left unread)
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
