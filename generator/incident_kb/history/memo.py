"""The history pass remembered between runs, in the knowledge base's store (`incident_kb.cache`): the
walk over the committed mainline up to a commit, continued from there when the mainline has grown,
and each committed record version's material fields by blob id (a blob id is a hash of the
content, so its fields never change; the marks that say which fields are material are code, in the
store's fingerprint). The walk's key holds git's view of history (`git_view.GitView.history`: the
shallow boundary, grafts, the configuration that changes rename detection, the git program), so a
walk remembered before `git fetch --unshallow` or a configuration change is never continued.
Uncommitted changes are never cached: the caller applies them anew on every run.

Checks that keep no store (the temporary folders of --staged and --base) share the walk within one
process instead, while `walks_shared()` is active: --staged reads the mainline up to HEAD for the
commit being made and again for HEAD itself.
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from ..cache import ProcessMemo, Store
from ..records.materiality import MaterialFields
from ..records.vocabulary import RecordKind
from .git_view import GitView
from .gitio import LogAhead, RepoState, is_on_mainline, read_log
from .walk import Moment, Version, Walk


@dataclass(slots=True)
class _SavedWalk:
    """The walk, packed: a few large strings read in no time where 60,000 small objects would not."""

    head: str
    commits: str  # commit ids by moment index, '\0'-separated
    dates: str  # their committer dates in ISO 8601, likewise
    lineages: dict[str, str]  # path -> 'index\0blob\0path then' per version, '\0'-joined ('' blob: none)
    doc_changes: dict[str, int]  # doc path -> moment index

    def moments(self) -> list[tuple[str, str]]:
        return list(zip(self.commits.split("\0"), self.dates.split("\0"))) if self.commits else []

    @classmethod
    def read(cls, store: Store, name: str, key: object) -> _SavedWalk | None:
        found = store.read(name, key)
        try:
            return cls(**found) if isinstance(found, dict) else None
        except TypeError:
            return None


_KEPT = 3  # the walks kept (by head): after an amend, a reset or a switch back, one is continued

# Walks made while `walks_shared()` is active, packed, by repository, folder, paths and head commit.
_shared: ProcessMemo[tuple[str, str, tuple[str, ...], str], _SavedWalk] = ProcessMemo()


@contextlib.contextmanager
def walks_shared() -> Iterator[None]:
    """Within it, a walk that no store keeps is made once per repository, folder, paths and head commit
    (a walk depends on nothing else while one process runs), and each caller gets its own copy to
    continue (the commit being made is applied to one of them)."""
    with _shared.active():
        yield


def _walks_entry(pathspecs: list[str]) -> str:
    return "history-" + hashlib.sha256(repr(pathspecs).encode()).hexdigest()[:16]


def may_continue_walk(store: Store, pathspecs: list[str]) -> bool:
    """Whether `store` holds walks over `pathspecs` that `committed_walk` may continue (kept under
    some view of history: which one, only the walk's own key says)."""
    return store.holds(_walks_entry(pathspecs))


def committed_walk(repo: Any, store: Store | None, view: GitView | None, state: RepoState, head: str,
                   pathspecs: list[str], ahead: LogAhead | None = None) -> tuple[Walk, int]:
    """The walk over the mainline up to commit `head`, and how many commits it read (remembered in
    `store` under git's `view` of history, when both are given: the last few walks, by head, so a
    walk is continued from any of them that lies on `head`'s mainline). `ahead`: the whole walk's
    `git log`, started early (see `gitio.LogAhead`)."""
    shared = (str(state.toplevel), state.prefix, tuple(pathspecs), head)
    walks = _shared.entries
    if store is None and walks is not None and len(head) == 40 and shared in walks:
        kept_here = walks[shared]
        return _restored(kept_here, state.prefix), kept_here.commits.count("\0") + bool(kept_here.commits)
    scope = ["walk", str(state.toplevel), state.prefix, pathspecs, view.history if view is not None else None]
    base = _walks_entry(pathspecs)
    found = store.read(base, scope) if store is not None and view is not None else None
    heads = [h for h in found if isinstance(h, str)] if isinstance(found, list) else []
    old = head if head in heads else next((h for h in heads if is_on_mainline(repo, h, head)), None)
    saved = _SavedWalk.read(store, f"{base}-{old}", scope) if store is not None and old is not None else None
    if saved is not None and saved.head == head:
        return _restored(saved, state.prefix), saved.commits.count("\0") + bool(saved.commits)
    if saved is not None:
        walk, moments = _restored(saved, state.prefix), saved.moments()
        commits = read_log(repo, f"{saved.head}..{head}", pathspecs)
    else:
        walk, moments = Walk(state.prefix), []
        commits = read_log(repo, head, pathspecs, ahead)
    for commit in commits:
        walk.apply(commit.changes, Moment(len(moments), commit.id, commit.date))
        moments.append((commit.id, commit.date.isoformat() if commit.date else ""))  # '': unreadable (gitio)
    if store is None and walks is not None and len(head) == 40:  # packed now: the caller continues this one
        walks[shared] = _packed(head, moments, walk)
    if store is not None and view is not None and len(head) == 40:  # a commit id, not a name that may move
        packed = _packed(head, moments, walk)
        if store.write(f"{base}-{head}", scope, {"head": packed.head, "commits": packed.commits, "dates": packed.dates,
                                                 "lineages": packed.lineages, "doc_changes": packed.doc_changes}):
            kept = [head, *(h for h in heads if h != head)]
            store.write(base, scope, kept[:_KEPT])
            for dropped in kept[_KEPT:]:
                store.remove(f"{base}-{dropped}")
    return walk, len(moments)


def _packed(head: str, moments: list[tuple[str, str]], walk: Walk) -> _SavedWalk:
    return _SavedWalk(head, "\0".join(c for c, _ in moments), "\0".join(d for _, d in moments),
                      _packed_lineages(walk.lineages), {path: at.index for path, at in walk.doc_changes.items()})


def _packed_lineages(lineages: dict[str, list[Version]]) -> dict[str, str]:
    kept = lineages.packed if isinstance(lineages, _Lineages) else {}  # never unpacked: as they were
    return {path: kept[path] if path in kept else
            "\0".join(f"{v.at.index}\0{v.blob or ''}\0{v.path}" for v in lineages[path]) for path in lineages}


def _restored(saved: _SavedWalk, prefix: str) -> Walk:
    """The saved walk, unpacked: its docs now, each record's lineage when it is first asked for."""
    commits, dates = saved.commits.split("\0"), saved.dates.split("\0")
    made: dict[int, Moment] = {}

    def moment(index: int) -> Moment:
        found = made.get(index)
        if found is None:
            found = made[index] = Moment(index, commits[index],
                                         datetime.fromisoformat(dates[index]) if dates[index] else None)
        return found

    def lineage(packed: str) -> list[Version]:
        parts = packed.split("\0")
        return [Version(moment(int(parts[i])), parts[i + 1] or None, parts[i + 2]) for i in range(0, len(parts), 3)]

    walk = Walk(prefix)
    walk.lineages = _Lineages(saved.lineages, lineage)
    walk.doc_changes = {path: moment(i) for path, i in saved.doc_changes.items()}
    return walk


class _Lineages(dict[str, list["Version"]]):
    """Record lineages that unpack on first access (a check asks for a few hundred of 10,000)."""

    def __init__(self, packed: dict[str, str], unpack: Callable[[str], list[Version]]) -> None:
        super().__init__()
        self.packed, self._unpack = dict(packed), unpack

    def __setitem__(self, path: str, lineage: list[Version]) -> None:
        self.packed.pop(path, None)
        super().__setitem__(path, lineage)

    def __missing__(self, path: str) -> list[Version]:
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


class FieldsMemo:
    """Material fields of committed record versions, by (kind, blob id), kept between runs."""

    _NAME, _KEY = "material-fields", "material fields"

    def __init__(self, store: Store | None) -> None:
        self.store = store
        saved = store.read(self._NAME, self._KEY) if store is not None else None
        self.known: dict[str, Any] = saved if isinstance(saved, dict) else {}  # 'kind:blob' -> fields, or None
        self.added = False

    def knows(self, kind: RecordKind, blob: str) -> bool:
        return f"{kind.value}:{blob}" in self.known

    def get(self, kind: RecordKind, blob: str) -> MaterialFields | None:
        fields = self.known[f"{kind.value}:{blob}"]
        return MaterialFields.from_json(fields) if fields is not None else None

    def put(self, kind: RecordKind, blob: str, fields: MaterialFields | None) -> None:
        self.known[f"{kind.value}:{blob}"] = fields.to_json() if fields is not None else None
        self.added = True

    def save(self) -> None:
        if self.added and self.store is not None:
            self.store.write(self._NAME, self._KEY, self.known)
