"""Loaded and validated records remembered between runs, by content.

Parsing and validating 10,000 records costs seconds; most runs change none or one of them. Each
record file's result (the model or the findings, and its source map) is kept under
`.cache/incident-kb/` keyed by its kind, path and git blob id (computed here from the bytes read,
without git), in an entry `disk_cache` signs and checks. A file whose bytes changed is parsed
again; a cached result is exactly what parsing would give, so findings never depend on the cache.
Knows nothing of what comes after validation.
"""

from __future__ import annotations

import pickle
import stat
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..findings import Finding
from .disk_cache import blob_id, read_entry, write_entry
from .files import SETTLE_NS, UnreadableFile, last_change, read_bounded, status
from .schema import Incident, Knob
from .vocabulary import RecordKind
from .validate import validate_record
from .yaml_source import MAX_BYTES, Key, LoadedYaml, SourceMap, parse_yaml, parse_yaml_bytes, read_yaml_file

_NAME, _KEY = "records.pickle", "validated records, statuses"


@dataclass(frozen=True, slots=True)
class LoadedRecord:
    """One record file as loaded and validated: the model, or the findings saying why not."""

    record: Knob | Incident | None
    problems: tuple[Finding, ...]
    source_map: SourceMap
    raw_id: str | None  # the file's 'id' as written, when it is text (named in duplicate and broken ids)


_Saved = tuple[Knob | Incident | None, tuple[Finding, ...], bytes, str | None]  # source map pickled apart


class _PackedSourceMap(SourceMap):
    """A source map unpickled when first asked (most records never are: only findings need lines)."""

    __slots__ = ("_packed",)

    def __init__(self, packed: bytes) -> None:  # noqa: D107 - `positions` is filled on first use
        self._packed = packed

    @property
    def positions(self) -> dict[Key, tuple[int, int]]:  # type: ignore[override]
        try:
            return _POSITIONS.__get__(self)  # type: ignore[no-any-return]
        except AttributeError:
            _POSITIONS.__set__(self, pickle.loads(self._packed))
            return _POSITIONS.__get__(self)  # type: ignore[no-any-return]


_POSITIONS: Any = SourceMap.__dict__["positions"]  # the slot's descriptor


class RecordCache:
    """Loads record files, from the cache where a file's bytes are unchanged. `save()` keeps the
    results of this run's files (and forgets files that are gone) once enough changed to be worth
    rewriting the entry: a few changed records are parsed again, in less time than the rewrite.

    A file whose status (inode, size, change times) is what it was when its bytes were last read,
    long enough ago that a later change would show in its times, is not read again: its blob id is
    the one remembered with that status (as git's index does)."""

    def __init__(self, root: Path, enabled: bool = True) -> None:
        self.root = root
        self.enabled = enabled
        saved = (_HELD.get(str(root)) or read_entry(root, _NAME, _KEY)) if enabled else None
        entries, statuses = saved if isinstance(saved, tuple) and len(saved) == 2 else ({}, {})
        if enabled and _holding:
            _HELD[str(root)] = (entries, statuses)
        self.saved: dict[tuple[str, str, str], _Saved] = entries
        self.used: dict[tuple[str, str, str], _Saved | LoadedRecord] = {}
        self.statuses: dict[str, tuple[tuple[int, ...], str]] = statuses  # rel path -> (status, blob id)
        self.seen: dict[str, tuple[tuple[int, ...], str]] = {}

    def load(self, kind: RecordKind, rel_path: str, path: str, text: str | None = None) -> LoadedRecord:
        """The file at `path` (or `text` in its place, never cached) loaded and validated."""
        if text is not None:
            return _loaded(kind, rel_path, parse_yaml(text))
        status = _regular_file_status(path) if self.enabled else None
        known = self.statuses.get(rel_path)
        if status is not None and known is not None and known[0] == status:
            saved = self.saved.get((kind.value, rel_path, known[1]))
            if saved is not None:
                self.seen[rel_path] = known
                return self._reuse((kind.value, rel_path, known[1]), saved)
        try:  # a regular file inside the repository, bounded (a str path: pathlib costs more than the read)
            raw = read_bounded(path, MAX_BYTES, self.root)
        except UnreadableFile:  # the loader says what is wrong
            return _loaded(kind, rel_path, read_yaml_file(Path(path), self.root))
        if not self.enabled:
            return _loaded(kind, rel_path, parse_yaml_bytes(raw))
        key = (kind.value, rel_path, blob_id(raw))
        if status is not None and last_change(status) < time.time_ns() - SETTLE_NS:
            self.seen[rel_path] = (status, key[2])  # read after it settled: a later change shows in its times
        saved = self.saved.get(key)
        if saved is not None:
            return self._reuse(key, saved)
        found = self.used[key] = _loaded(kind, rel_path, parse_yaml_bytes(raw))
        return found

    def _reuse(self, key: tuple[str, str, str], saved: _Saved) -> LoadedRecord:
        self.used[key] = saved
        record, problems, packed, raw_id = saved
        return LoadedRecord(record, problems, _PackedSourceMap(packed), raw_id)

    def save(self) -> None:
        if not self.enabled:
            return
        fresh = sum(1 for key in self.used if key not in self.saved)
        gone = len(self.saved) - (len(self.used) - fresh)
        restated = sum(1 for path, known in self.seen.items() if self.statuses.get(path) != known)
        changed = fresh + gone + restated
        if changed == 0:
            return
        entries: dict[tuple[str, str, str], _Saved] = {}
        for key, entry in self.used.items():
            if isinstance(entry, LoadedRecord):
                entry = (entry.record, entry.problems, pickle.dumps(entry.source_map.positions, 5), entry.raw_id)
            entries[key] = entry
        if _holding:
            _HELD[str(self.root)] = (entries, self.seen)
        if changed * 100 >= len(self.used):  # under 1%: reading those again costs less than rewriting the entry
            write_entry(self.root, _NAME, _KEY, (entries, self.seen))


# The entries this process last read or kept, by root, once `hold_in_memory()` was called: a process
# that checks again and again (`mkdocs serve` rebuilding after each save) reads 10,000 records'
# entry once. Its own, so trusted.
_HELD: dict[str, tuple[dict[tuple[str, str, str], _Saved], dict[str, tuple[tuple[int, ...], str]]]] = {}
_holding = False


def hold_in_memory() -> None:
    """Keep the entries in this process between checks (for a long-lived process)."""
    global _holding
    _holding = True

def _regular_file_status(path: str) -> tuple[int, ...] | None:
    """A regular file's own status (a link, anything else or an error: None, and the file is read)."""
    found = status(path)
    return found if isinstance(found, tuple) and stat.S_ISREG(found[0]) else None


def _loaded(kind: RecordKind, rel_path: str, loaded: LoadedYaml) -> LoadedRecord:
    record, problems = validate_record(kind, rel_path, loaded)
    raw_id = loaded.value.get("id") if isinstance(loaded.value, dict) else None
    assert record is None or isinstance(record, Knob | Incident)
    return LoadedRecord(record, tuple(problems), loaded.source_map, raw_id if isinstance(raw_id, str) else None)
