"""Records' and docs' history from git: each record's material changes, each doc's last change.

One pass over the mainline (first-parent) history of knobs/, incidents/ and the docs, following
renames; each version of a record is read once (one `git cat-file --batch` process), parsed with
`parse_yaml`, and compared with the version before it on its material fields only (knob: status,
value, default; incident: status, root cause, each hypothesis's status). Uncommitted changes in the
work tree count as the newest change. Reads git and the work tree; judges nothing (the stale-doc
rule does) and never reports findings. The pass over committed history and each committed
version's material fields are kept between runs (see `_committed_walk`), so a re-check reads only
the commits since the last run.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ..findings import KbError
from .gitio import (
    NULL_ID,
    FileChange,
    NotARepository,
    RepoState,
    is_on_mainline,
    open_repository,
    read_blobs,
    read_log,
    repository_state,
    resolve_commit,
    uncommitted_changes,
)
from ..records.disk_cache import read_entry, write_entry
from ..records.schema import DOCS_FOLDER, RecordKind, record_kind_of
from ..records.yaml_source import MAX_BYTES, parse_yaml

RecordKey = tuple[RecordKind, str]  # (kind, record id)
class HistoryUnavailable(Exception):
    """There is no history to read (not a repository, no commits yet); the message says the fix."""


@dataclass(frozen=True, slots=True)
class Moment:
    """A point on the mainline: a commit, or the uncommitted state of the work tree (the newest)."""

    index: int  # position among the commits read, oldest first; the work tree comes after them all
    commit: str | None  # None for uncommitted changes
    date: datetime | None

    @property
    def short_id(self) -> str | None:
        return self.commit[:7] if self.commit else None

    def __str__(self) -> str:
        if self.commit is None:
            return "uncommitted changes in the work tree"
        assert self.date is not None
        return f"commit {self.commit[:7]} ({self.date.date().isoformat()})"


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


@dataclass(slots=True)
class _Version:
    at: Moment
    blob: str | None  # None: read the work tree's file
    path: str


def read_history(root: Path, records: Mapping[str, RecordKey], extra_docs: Iterable[str] = (), *,
                 repo_folder: Path | None = None, rev: str | None = None,
                 allow_shallow: bool = False, cache: bool = True) -> History:
    """Material changes of `records` (root-relative path -> (kind, id)) and docs' last changes.

    History is read at `rev` (default: HEAD plus the work tree's uncommitted changes) from the
    repository containing `repo_folder` (default: `root`), whose files stand for those of `root`.
    `extra_docs` are doc paths outside docs/ whose changes matter. Raises HistoryUnavailable when
    there is no history, KbError for a shallow clone unless `allow_shallow`. `cache`: continue
    from the pass an earlier run kept under `root`'s .cache/incident-kb/ (see below)."""
    repo_folder = repo_folder or root
    try:
        with open_repository(repo_folder) as repo:
            state = repository_state(repo, repo_folder)
            notes = _check_state(state, rev is None, allow_shallow)
            paths = [*(kind.folder for kind in RecordKind), DOCS_FOLDER, *(d for d in extra_docs if not d.startswith(DOCS_FOLDER + "/"))]
            pathspecs = [f":(top,literal){state.prefix}{p}" for p in paths]
            head = resolve_commit(repo, rev) if rev is not None else state.head
            walk, count = _committed_walk(repo, root if cache else None, state, head or rev or "HEAD", pathspecs)
            uncommitted = uncommitted_changes(repo, pathspecs) if rev is None else []
            if uncommitted:
                walk.apply(uncommitted, Moment(count, None, None), from_work_tree=True)
            wanted = {path: walk.lineages[path] for path in records if path in walk.lineages}
            fields = _FieldsMemo(root if cache else None)
            blobs = read_blobs(repo, [v.blob for path, lineage in wanted.items() for v in lineage
                                      if v.blob and not fields.knows(records[path][0], v.blob)])
    except NotARepository as exc:
        raise HistoryUnavailable(f"{exc}; run kb inside a clone of the knowledge base's repository "
                                 "(or `git init` and commit it)") from None
    changes = {records[path]: _material_changes(records[path], lineage, blobs, root, fields)
               for path, lineage in wanted.items()}
    fields.save()
    return History(changes, walk.doc_changes, state, notes)


# The history pass is remembered between runs under .cache/incident-kb/ (see records.disk_cache:
# signed entries, ignored when they do not verify): the walk over the committed mainline up to a
# commit, continued from there when the mainline has grown, and each committed record version's
# material fields by blob id (a blob id is a hash of the content, so its fields never change).
# Uncommitted changes are never cached: they are applied anew on every run.


@dataclass(slots=True)
class _SavedWalk:
    """The walk, packed: a few large strings unpickle in no time where 60,000 small objects would not."""

    head: str
    commits: str  # commit ids by moment index, '\0'-separated
    dates: str  # their committer dates in ISO 8601, likewise
    lineages: dict[str, str]  # path -> 'index\0blob\0path then' per version, '\0'-joined ('' blob: none)
    doc_changes: dict[str, int]  # doc path -> moment index

    def moments(self) -> list[tuple[str, str]]:
        return list(zip(self.commits.split("\0"), self.dates.split("\0"))) if self.commits else []


def _committed_walk(repo: Any, root: Path | None, state: RepoState, head: str, pathspecs: list[str]) -> tuple[_Walk, int]:
    """The walk over the mainline up to commit `head`, and how many commits it read."""
    scope = ("walk", str(state.toplevel), state.prefix, tuple(pathspecs))
    name = "history-" + hashlib.sha256(repr(scope).encode()).hexdigest()[:16] + ".pickle"
    saved = read_entry(root, name, scope) if root is not None else None
    if isinstance(saved, _SavedWalk) and saved.head == head:
        return _restored(saved, state.prefix), saved.commits.count("\0") + bool(saved.commits)
    if isinstance(saved, _SavedWalk) and is_on_mainline(repo, saved.head, head):
        walk, moments = _restored(saved, state.prefix), saved.moments()
        commits = read_log(repo, f"{saved.head}..{head}", pathspecs)
    else:
        walk, moments = _Walk(state.prefix), []
        commits = read_log(repo, head, pathspecs)
    for commit in commits:
        walk.apply(commit.changes, Moment(len(moments), commit.id, commit.date))
        moments.append((commit.id, commit.date.isoformat()))
    if root is not None and len(head) == 40:  # a commit id, not a name that may move
        write_entry(root, name, scope, _SavedWalk(
            head, "\0".join(c for c, _ in moments), "\0".join(d for _, d in moments),
            _packed_lineages(walk.lineages),
            {path: at.index for path, at in walk.doc_changes.items()}))
    return walk, len(moments)


def _packed_lineages(lineages: dict[str, list[_Version]]) -> dict[str, str]:
    kept = lineages.packed if isinstance(lineages, _Lineages) else {}  # never unpacked: as they were
    return {path: kept[path] if path in kept else
            "\0".join(f"{v.at.index}\0{v.blob or ''}\0{v.path}" for v in lineages[path]) for path in lineages}


def _restored(saved: _SavedWalk, prefix: str) -> _Walk:
    """The saved walk, unpacked: its docs now, each record's lineage when it is first asked for."""
    commits, dates = saved.commits.split("\0"), saved.dates.split("\0")
    made: dict[int, Moment] = {}

    def moment(index: int) -> Moment:
        found = made.get(index)
        if found is None:
            found = made[index] = Moment(index, commits[index], datetime.fromisoformat(dates[index]))
        return found

    def lineage(packed: str) -> list[_Version]:
        parts = packed.split("\0")
        return [_Version(moment(int(parts[i])), parts[i + 1] or None, parts[i + 2]) for i in range(0, len(parts), 3)]

    walk = _Walk(prefix)
    walk.lineages = _Lineages(saved.lineages, lineage)
    walk.doc_changes = {path: moment(i) for path, i in saved.doc_changes.items()}
    return walk


class _Lineages(dict[str, list["_Version"]]):
    """Record lineages that unpack on first access (a check asks for a few hundred of 10,000)."""

    def __init__(self, packed: dict[str, str], unpack: Callable[[str], list[_Version]]) -> None:
        super().__init__()
        self.packed, self._unpack = dict(packed), unpack

    def __setitem__(self, path: str, lineage: list[_Version]) -> None:
        self.packed.pop(path, None)
        super().__setitem__(path, lineage)

    def __missing__(self, path: str) -> list[_Version]:
        if path not in self.packed:
            raise KeyError(path)
        found = self[path] = self._unpack(self.packed.pop(path))
        return found

    def __contains__(self, path: object) -> bool:
        return super().__contains__(path) or path in self.packed

    def get(self, path: str, default: Any = None) -> Any:  # type: ignore[override]
        return self[path] if path in self else default

    def pop(self, path: str, *default: Any) -> Any:  # type: ignore[override]
        if path in self.packed:
            self[path]
        return super().pop(path, *default)

    def __iter__(self) -> Iterator[str]:
        yield from super().__iter__()
        yield from self.packed

    def __len__(self) -> int:
        return super().__len__() + len(self.packed)

    def keys(self) -> Any:  # type: ignore[override]
        return list(self)

    def items(self) -> Any:  # type: ignore[override]
        return [(path, self[path]) for path in list(self)]


class _FieldsMemo:
    """Material fields of committed record versions, by (kind, blob id), kept between runs."""

    _NAME, _KEY = "material-fields.pickle", "material fields"

    def __init__(self, root: Path | None) -> None:
        self.root = root
        saved = read_entry(root, self._NAME, self._KEY) if root is not None else None
        self.known: dict[tuple[str, str], tuple[tuple[str, str | None], ...] | None] = \
            saved if isinstance(saved, dict) else {}
        self.added = False

    def knows(self, kind: RecordKind, blob: str) -> bool:
        return (kind.value, blob) in self.known

    def get(self, kind: RecordKind, blob: str) -> dict[str, str | None] | None:
        fields = self.known[(kind.value, blob)]
        return dict(fields) if fields is not None else None

    def put(self, kind: RecordKind, blob: str, fields: dict[str, str | None] | None) -> None:
        self.known[(kind.value, blob)] = tuple(fields.items()) if fields is not None else None
        self.added = True

    def save(self) -> None:
        if self.added and self.root is not None:
            write_entry(self.root, self._NAME, self._KEY, self.known)


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


class _Walk:
    """Replays the commits' changes: each record path's lineage of versions, each doc's last change."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.lineages: dict[str, list[_Version]] = {}
        self.doc_changes: dict[str, Moment] = {}

    def apply(self, changes: Iterable[FileChange], at: Moment, from_work_tree: bool = False) -> None:
        changes = list(changes)
        moved_records: dict[str, list[_Version]] = {}
        moved_docs: dict[str, Moment] = {}
        for change in changes:  # first take away what was deleted or renamed
            old = self._relative(change.old_path if change.status == "R" else change.path)
            if old is None or change.status not in "RD":
                continue
            if old in self.lineages:
                moved_records[old] = self.lineages.pop(old)
            if old in self.doc_changes:
                moved_docs[old] = self.doc_changes.pop(old)
        for change in changes:
            path = self._relative(change.path)
            if path is None or change.status == "D":
                continue
            old = self._relative(change.old_path) if change.status == "R" else None
            unchanged = change.status == "R" and change.similarity == 100 and not from_work_tree
            if _is_record(path):
                if change.status == "R":
                    lineage = moved_records.get(old or "", [])
                elif change.status == "A":
                    lineage = []
                else:
                    lineage = self.lineages.get(path, [])
                if not (unchanged and lineage):
                    lineage.append(_Version(at, None if from_work_tree else change.new_blob, path))
                self.lineages[path] = lineage
            elif unchanged and old in moved_docs:
                self.doc_changes[path] = moved_docs[old]
            else:
                self.doc_changes[path] = at

    def _relative(self, path: str | None) -> str | None:
        if path is None or not path.startswith(self.prefix):
            return None
        return path[len(self.prefix):]


def _is_record(path: str) -> bool:
    return record_kind_of(path) is not None


def _material_changes(key: RecordKey, lineage: list[_Version], blobs: Mapping[str, bytes],
                      root: Path, memo: _FieldsMemo) -> list[MaterialChange]:
    kind, record_id = key
    changes: list[MaterialChange] = []
    previous: dict[str, str | None] | None = None
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
            created = tuple(FieldChange(name, None, value) for name, value in fields.items())
            changes.append(MaterialChange(kind, record_id, version.path, version.at, created, created=True))
        else:
            differ = tuple(FieldChange(name, previous.get(name), fields.get(name))
                           for name in dict.fromkeys([*previous, *fields])
                           if previous.get(name) != fields.get(name))
            if differ:
                changes.append(MaterialChange(kind, record_id, version.path, version.at, differ))
        previous = fields
    return changes


def _version_text(version: _Version, blobs: Mapping[str, bytes], root: Path) -> str | None:
    if version.blob is None:
        try:
            path = root / version.path
            return path.read_text(encoding="utf-8-sig") if path.stat().st_size <= MAX_BYTES else None
        except (OSError, UnicodeDecodeError):
            return None
    raw = blobs.get(version.blob) if version.blob != NULL_ID else None
    if raw is None or len(raw) > MAX_BYTES:
        return None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None


def material_fields(kind: RecordKind, value: Any) -> dict[str, str | None] | None:
    """The fields whose change is material, as display strings; None when `value` is no record."""
    if not isinstance(value, dict):
        return None
    if kind == RecordKind.KNOB:
        return {name: _shown(value.get(name)) for name in ("status", "value", "default")}
    cause = value.get("root_cause")
    fields = {"status": _shown(value.get("status")),
              "root cause": _shown(cause.get("hypothesis") if isinstance(cause, dict) else cause)}
    hypotheses = value.get("hypotheses")
    for hypothesis in hypotheses if isinstance(hypotheses, list) else []:
        if isinstance(hypothesis, dict) and isinstance(hypothesis.get("id"), str):
            fields[f"hypothesis '{hypothesis['id']}'"] = _shown(hypothesis.get("status"))
    return fields


def _shown(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, default=str)

