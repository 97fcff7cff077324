"""Loaded and validated records remembered between runs, by content.

Parsing and validating 10,000 records costs seconds; most runs change none or one of them. Each
record file's result (the model as JSON, or the findings, and its source map) is kept in the
knowledge base's store (`incident_kb.cache`: outside the repository, JSON that runs no code) keyed by
its kind, path and git blob id (computed here from the bytes read, without git). A file whose bytes
changed is parsed again; a model is kept only when reading it back gives the same model, so a
cached result is exactly what parsing would give, and findings never depend on the cache. Knows
nothing of what comes after validation.

A site build's cold check uses the other core three ways: the files parsed ahead by a forked child
from MkDocs' start (`parse_ahead`), the rest split with one (`forked.split_map`), each result handed
back as the store keeps it; and the store's entry written by a child of its own (`saves_in_background`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..cache import ProcessMemo, Store, open_store
from ..findings import Finding, finding_from_json
from ..forked import Ahead, in_background, join_background, split_map
from ..repository.files import SETTLE_NS, UnreadableFile, last_change, read_bounded, regular_file_status
from .schema import MODELS, Incident, Knob
from .validate import validate_record
from .vocabulary import RecordKind
from .yaml_source import MAX_BYTES, Key, LoadedYaml, SourceMap, parse_yaml, parse_yaml_bytes, read_yaml_file

_NAME, _KEY = "records", "validated records, statuses"


@dataclass(frozen=True, slots=True)
class LoadedRecord:
    """One record file as loaded and validated: the model, or the findings saying why not."""

    record: Knob | Incident | None
    problems: tuple[Finding, ...]
    source_map: SourceMap
    raw_id: str | None  # the file's 'id' as written, when it is text (named in duplicate and broken ids)
    # The result as the store keeps it, when this one was read from it (or carried from the parse's child)
    saved: list[Any] | None = field(default=None, compare=False, repr=False)


# As stored: the model as JSON (None: no model, or one JSON does not give back), the findings as
# lists, the source map as JSON text (read when first asked), the raw id.
_Saved = list[Any]


class _PackedSourceMap(SourceMap):
    """A source map read from its JSON when first asked (most records never are: only findings need lines)."""

    __slots__ = ("_packed",)

    def __init__(self, packed: str) -> None:  # noqa: D107 - `positions` is filled on first use
        self._packed = packed

    @property
    def positions(self) -> dict[Key, tuple[int, int]]:  # type: ignore[override]
        try:
            return _POSITIONS.__get__(self)  # type: ignore[no-any-return]
        except AttributeError:
            _POSITIONS.__set__(self, {tuple(key): (line, column) for key, line, column in json.loads(self._packed)})
            return _POSITIONS.__get__(self)  # type: ignore[no-any-return]

    def __eq__(self, other: object) -> bool:  # as a source map parsed: by its positions
        return self.positions == other.positions if isinstance(other, SourceMap) else NotImplemented

    __hash__ = None  # type: ignore[assignment]


_POSITIONS: Any = SourceMap.__dict__["positions"]  # the slot's descriptor


def blob_id(data: bytes) -> str:
    """Git's id for a file with this content (`git hash-object`), without running git."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class RecordCache:
    """Loads record files, from the cache where a file's bytes are unchanged. `save()` keeps the
    results of this run's files (and forgets files that are gone) once enough changed to be worth
    rewriting the entry: a few changed records are parsed again, in less time than the rewrite.

    A file whose status (inode, size, change times) is what it was when its bytes were last read,
    long enough ago that a later change would show in its times, is not read again: its blob id is
    the one remembered with that status (as git's index does)."""

    def __init__(self, root: Path, enabled: bool = True) -> None:
        self.root = root
        self.store: Store | None = open_store(root) if enabled else None
        join_background()  # an entry still being written (`saves_in_background`) is read whole
        self.enabled = self.store is not None
        held = _HELD.get(str(root)) if self.enabled else None
        saved = self.store.read(_NAME, _KEY) if self.store is not None and held is None else None
        if held is not None:
            rows, statuses, self.held = held
        elif isinstance(saved, dict) and isinstance(saved.get("rows"), dict):
            rows, statuses, self.held = saved["rows"], saved.get("statuses") or {}, {}
        else:
            rows, statuses, self.held = {}, {}, {}
        self.rows: dict[str, _Saved] = rows  # 'kind\0path\0blob' -> the stored result
        self.used: dict[str, LoadedRecord] = {}
        self.statuses: dict[str, list[Any]] = statuses  # rel path -> [status, blob id]
        self.seen: dict[str, list[Any]] = {}

    def load(self, kind: RecordKind, rel_path: str, path: str, text: str | None = None,
             raw: bytes | None = None) -> LoadedRecord:
        """The file at `path` (or `text` in its place, never cached) loaded and validated; `raw`: the
        file's bytes, known to be what it holds (a file kb laid out itself), not read again."""
        return self.load_all([(kind, rel_path, path, text, raw)])[0]

    def load_all(self, files: Sequence[tuple[RecordKind, str, str, str | None, bytes | None]]) -> list[LoadedRecord]:
        """Each of `files` (kind, rel path, path, text, raw: as `load` takes them) loaded, in order. The
        files to parse (whose bytes no earlier run parsed) are parsed on two cores when there are many
        (`forked.split_map`): the results are the same."""
        found: list[LoadedRecord | _Unparsed] = [self._known(*file) for file in files]
        unparsed = [item for item in found if isinstance(item, _Unparsed)]
        parsed = iter(self._parse(unparsed))
        loaded: list[LoadedRecord] = []
        for item in found:
            if isinstance(item, _Unparsed):
                result = next(parsed)
                if item.key is not None:
                    (item.remembered if item.remembered is not None else self.used)[item.key] = result
                loaded.append(result)
            else:
                loaded.append(item)
        return loaded

    def _parse(self, unparsed: list[_Unparsed]) -> list[LoadedRecord]:
        """Each of `unparsed` parsed: on two cores when there are many, or beside the child `parse_ahead` started."""
        ahead = _AHEAD.pop(str(self.root), None)
        if ahead is None or not self.enabled:
            if ahead is not None:
                ahead.cancel()
            return split_map(_parsed, unparsed, weight=_size, carry=(_carried, _uncarried))
        theirs = {(kind, rel_path) for kind, rel_path, _ in ahead.items}
        mine = {index: _parsed(item) for index, item in enumerate(unparsed) if (item.kind, item.rel_path) not in theirs}
        found = dict(result for result in ahead.results() if result is not None)  # the child went on meanwhile
        return [mine[index] if index in mine else _uncarried(found[item.key]) if item.key in found else _parsed(item)
                for index, item in enumerate(unparsed)]  # the last: a file changed since the child read it

    def _known(self, kind: RecordKind, rel_path: str, path: str, text: str | None = None,
               raw: bytes | None = None) -> LoadedRecord | _Unparsed:
        """The file loaded, where that needs no parse (unchanged since a run parsed it, or unreadable);
        else the bytes to parse, and where the result is kept."""
        if text is not None:
            return _loaded(kind, rel_path, parse_yaml(text))
        if raw is not None and not self.enabled and len(raw) <= MAX_BYTES:  # larger: read, and refused
            return _uncached(kind, rel_path, raw)
        status = regular_file_status(path) if self.enabled else None
        known = self.statuses.get(rel_path)
        if status is not None and known is not None and tuple(known[0]) == status:
            found = self._reuse(f"{kind.value}\0{rel_path}\0{known[1]}", kind)
            if found is not None:
                self.seen[rel_path] = known
                return found
        try:  # a regular file inside the repository, bounded (a str path: pathlib costs more than the read)
            raw = read_bounded(path, MAX_BYTES, self.root)
        except UnreadableFile:  # the loader says what is wrong
            return _loaded(kind, rel_path, read_yaml_file(Path(path), self.root))
        if not self.enabled:
            return _uncached(kind, rel_path, raw)
        blob = blob_id(raw)
        key = f"{kind.value}\0{rel_path}\0{blob}"
        if status is not None and last_change(status) < time.time_ns() - SETTLE_NS:
            self.seen[rel_path] = [list(status), blob]  # read after it settled: a later change shows in its times
        found = self._reuse(key, kind)
        return found if found is not None else _Unparsed(kind, rel_path, raw, key)

    def _reuse(self, key: str, kind: RecordKind) -> LoadedRecord | None:
        """The stored result under `key`, or None."""
        found = self.held.get(key)
        if found is None:
            row = self.rows.get(key)
            if row is None:
                return None
            found = _from_row(row, kind)
        self.used[key] = found
        return found

    def save(self) -> None:
        if self.store is None:
            return
        fresh = sum(1 for key in self.used if key not in self.rows)
        gone = len(self.rows) - (len(self.used) - fresh)
        restated = sum(1 for path, known in self.seen.items() if self.statuses.get(path) != known)
        changed = fresh + gone + restated
        if changed == 0:
            return
        worth = changed * 100 >= len(self.used)  # under 1%: reading those again costs less than rewriting the entry
        if _holding:
            rows = self._rows()
            _HELD[str(self.root)] = (rows, self.seen, dict(self.used))
            if worth:
                self._write(rows)
        elif worth and not (_in_background and in_background(self._write)):
            self._write()

    def _rows(self) -> dict[str, _Saved]:
        rows: dict[str, _Saved] = {}
        for key, loaded in self.used.items():
            row = self.rows.get(key) or loaded.saved or _row(loaded)
            if row is not None:
                rows[key] = row
        return rows

    def _write(self, rows: dict[str, _Saved] | None = None) -> None:
        assert self.store is not None
        self.store.write(_NAME, _KEY, {"rows": self._rows() if rows is None else rows, "statuses": self.seen})


def _from_row(row: _Saved, kind: RecordKind) -> LoadedRecord:
    """A result as the store gave it back (or the parse's child: `_carried`)."""
    model, problems, positions, raw_id = row
    record = MODELS[kind].model_validate_json(model) if model is not None else None
    return LoadedRecord(record, tuple(finding_from_json(item) for item in problems), _PackedSourceMap(positions),
                        raw_id, row)


_KINDS = {model: kind for kind, model in MODELS.items()}


def _carried(loaded: LoadedRecord) -> LoadedRecord | tuple[str, _Saved]:
    """What the parse's forked child hands back: the result as the store keeps it (a few strings, read
    back here in a fifth of the time the models and source maps take; a row the store need not make
    again; and the same result a warm run reads), or the result itself when the store could not keep it."""
    row = _row(loaded)
    if row is None:
        return loaded
    kind = _KINDS[type(loaded.record)] if loaded.record is not None else RecordKind.KNOB  # no model: any kind
    return kind.value, row


def _uncarried(carried: LoadedRecord | tuple[str, _Saved]) -> LoadedRecord:
    return carried if isinstance(carried, LoadedRecord) else _from_row(carried[1], RecordKind(carried[0]))


def _row(loaded: LoadedRecord) -> _Saved | None:
    """A result as stored; None when its model would not read back as the same model."""
    model = None
    if loaded.record is not None:
        # The fields as written (a default need not validate: `runs` is at least one run, or absent).
        model = loaded.record.model_dump_json(exclude_unset=True)
        try:
            if type(loaded.record).model_validate_json(model) != loaded.record:
                return None
        except ValueError:  # pydantic's ValidationError: a model JSON cannot give back stays uncached
            return None
    positions = [[list(key), line, column] for key, (line, column) in loaded.source_map.positions.items()]
    return [model, [item.to_json() for item in loaded.problems], json.dumps(positions, separators=(",", ":")),
            loaded.raw_id]


# The entries this process last read or kept, by root, once `hold_in_memory()` was called: a process
# that checks again and again (`mkdocs serve` rebuilding after each save) reads 10,000 records'
# entry once, and keeps the models it made. Its own, so trusted.
_HELD: dict[str, tuple[dict[str, _Saved], dict[str, list[Any]], dict[str, LoadedRecord]]] = {}
_holding = False
_in_background = False  # within `saves_in_background`
# A parse started early (`parse_ahead`), by root
_AHEAD: dict[str, Ahead[tuple[RecordKind, str, str], tuple[str, Any] | None]] = {}


def parse_ahead(root: Path, files: Sequence[tuple[RecordKind, str, str]], share: float = 0.6) -> None:
    """When kb's store holds no records' entry (a cold run): the last `share` of `files` (kind, rel path,
    path) read and parsed from now on by a forked child, for the next `load_all` of `root` in this
    process (a site build starts it as MkDocs starts, which then cleans and lists folders for a
    while). `load_all` takes the child's results by the files' kind, path and blob id: a file changed
    since the child read it is parsed again."""
    store = open_store(root)
    if store is None or store.holds(_NAME) or str(root) in _AHEAD or len(files) < 200:
        return
    ahead = Ahead.start(functools.partial(_parsed_ahead, root), files[len(files) - int(len(files) * share):])
    if ahead is not None:
        _AHEAD[str(root)] = ahead


def _parsed_ahead(root: Path, file: tuple[RecordKind, str, str]) -> tuple[str, Any] | None:
    """One file read and parsed by `parse_ahead`'s child: its key and the result as carried; None when
    it cannot be read (`load_all` says why)."""
    kind, rel_path, path = file
    try:
        raw = read_bounded(path, MAX_BYTES, root)
    except UnreadableFile:
        return None
    return f"{kind.value}\0{rel_path}\0{blob_id(raw)}", _carried(_parsed(_Unparsed(kind, rel_path, raw)))


@contextlib.contextmanager
def saves_in_background() -> Iterator[None]:
    """Within it, the store's entry is made and written by a forked child at a low priority
    (`forked.in_background`) while this process goes on: for a site build, whose other core idles
    while MkDocs converts the pages. Read again, the store waits for it first."""
    global _in_background
    outer, _in_background = _in_background, True
    try:
        yield
    finally:
        _in_background = outer


# Records loaded while `loads_shared()` is active, by kind, path and blob id, for checks that keep no
# store (the temporary folders of --staged and --base): the commit being made and HEAD hold mostly the
# same bytes, and each folder is loaded twice (to lay out what records name, then to check).
_remembered: ProcessMemo[str, LoadedRecord] = ProcessMemo()


@contextlib.contextmanager
def loads_shared() -> Iterator[None]:
    """Within it, a record file loaded again with the same kind, path and bytes is not parsed again
    (the result depends on nothing else: the store's key is the same)."""
    with _remembered.active():
        yield


def hold_in_memory() -> None:
    """Keep the entries in this process between checks (for a long-lived process)."""
    global _holding
    _holding = True


def _uncached(kind: RecordKind, rel_path: str, raw: bytes) -> LoadedRecord | _Unparsed:
    """`raw` to load and validate with no store: parsed once within `loads_shared`."""
    remembered = _remembered.entries
    if remembered is None:
        return _Unparsed(kind, rel_path, raw)
    key = f"{kind.value}\0{rel_path}\0{blob_id(raw)}"
    found = remembered.get(key)
    return found if found is not None else _Unparsed(kind, rel_path, raw, key, remembered)


@dataclass(frozen=True, slots=True)
class _Unparsed:
    """A record file's bytes to parse, and where the result goes under `key` (its kind, path and blob
    id): among the results of this run, to be stored, or in `remembered` (`loads_shared`); or nowhere."""

    kind: RecordKind
    rel_path: str
    raw: bytes
    key: str | None = None
    remembered: dict[str, LoadedRecord] | None = None


def _parsed(file: _Unparsed) -> LoadedRecord:
    return _loaded(file.kind, file.rel_path, parse_yaml_bytes(file.raw))


def _size(file: _Unparsed) -> int:
    return len(file.raw)


def _loaded(kind: RecordKind, rel_path: str, loaded: LoadedYaml) -> LoadedRecord:
    record, problems = validate_record(kind, rel_path, loaded)
    raw_id = loaded.value.get("id") if isinstance(loaded.value, dict) else None
    assert record is None or isinstance(record, Knob | Incident)
    return LoadedRecord(record, tuple(problems), loaded.source_map, raw_id if isinstance(raw_id, str) else None)
