"""Where a check's findings came from, kept with the remembered result so that `recheck` redoes only
what an edit reaches: each record file's facts and findings, and everything else a check found.

Kept as JSON in the store (`incident_kb.cache`); `Ledger.from_json(ledger.to_json())` is the same ledger.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from ..findings import Finding, finding_from_json
from ..records.vocabulary import RecordKey, RecordKind
from ..rules.references import DocReference


class FileFacts(NamedTuple):
    """What one record file is to the rest of the knowledge base: a re-check after an edit compares
    these to tell what the edit can have changed."""

    kind: RecordKind
    record_id: str | None  # its id (as written, for a broken record; None when not text)
    valid: bool
    in_catalog: bool  # valid, and the first with its id
    seen_by_docs: str  # what decides which docs refer to it (id, names, its docs), as JSON text
    names: frozenset[RecordKey]  # the records it names (`links.named_records`)


@dataclass(frozen=True)
class Ledger:
    """The findings of loading, consistency and rules by the record file they are in, and the rest.
    Plain mappings, not to be changed."""

    files: Mapping[str, FileFacts]  # every record file, root-relative
    by_file: Mapping[str, tuple[Finding, ...]]  # unconfigured; a file with none may be absent
    others: tuple[Finding, ...]  # unconfigured: configuration, unreadable and stale docs
    broken_ids: Mapping[RecordKind, frozenset[str]]
    references: tuple[DocReference, ...]
    summary: str
    notes: tuple[str, ...]
    # Record files git sees as added (or renamed to) in the uncommitted changes: git pairs a deleted
    # record with the most similar of them, so editing one can move another record's history.
    pairable: frozenset[str] = frozenset()
    # Record files whose findings asked git for the record's old versions (`history.versions`): when
    # git's view moves, they are decided again though no file changed.
    consults_git: frozenset[str] = frozenset()

    def to_json(self) -> dict[str, Any]:
        return {
            "files": {path: [f.kind.value, f.record_id, f.valid, f.in_catalog, f.seen_by_docs,
                             sorted([kind.value, record_id] for kind, record_id in f.names)]
                      for path, f in self.files.items()},
            "by_file": {path: [item.to_json() for item in found] for path, found in self.by_file.items()},
            "others": [item.to_json() for item in self.others],
            "broken_ids": {kind.value: sorted(ids) for kind, ids in self.broken_ids.items()},
            "references": [[r.doc, r.kind.value, r.record_id, r.how, r.word, r.line] for r in self.references],
            "summary": self.summary,
            "notes": list(self.notes),
            "pairable": sorted(self.pairable),
            "consults_git": sorted(self.consults_git),
        }

    @classmethod
    def from_json(cls, values: dict[str, Any]) -> Ledger:
        return cls(
            {path: FileFacts(RecordKind(kind), record_id, valid, in_catalog, seen,
                             frozenset((RecordKind(k), i) for k, i in names))
             for path, (kind, record_id, valid, in_catalog, seen, names) in values["files"].items()},
            {path: tuple(map(finding_from_json, found)) for path, found in values["by_file"].items()},
            tuple(map(finding_from_json, values["others"])),
            {RecordKind(kind): frozenset(ids) for kind, ids in values["broken_ids"].items()},
            tuple(DocReference(doc, RecordKind(kind), record_id, how, word, line)
                  for doc, kind, record_id, how, word, line in values["references"]),
            values["summary"], tuple(values["notes"]), frozenset(values["pairable"]),
            frozenset(values["consults_git"]))
