"""Checking again after a few record files were edited: only what the edit can reach.

Records depend on each other only through the ids they name (`records.links`). So the findings
in a record file depend on the records connected to it through such names, and on nothing else of
the other records: the edited files' connected records, before and after the edit, are loaded and
checked as a small catalog of their own, and every other file keeps its findings from the last
check's `Ledger`. Docs see a record through its id, names and `docs:`; while those stay as they
were, the same docs refer to the same records, and only the stale-doc findings about the edited
records are decided again (from their history, which the edit extends).

Anything else (a file added, removed or broken, an id or name changed, a doc's or git's state, a
large part of the catalog reached) is no job for a re-check: `recheck` returns None and the
caller checks everything.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from datetime import date
from pathlib import Path

from .checking.rules import RULES, RuleSettings
from .findings import Finding, KbError
from .pipeline import FileFacts, Ledger, collector_paused, configured, load_records
from .records.files import is_file
from .records.links import RecordKey
from .records.vocabulary import DOCS_FOLDER

# A re-check parses every record it reaches from its file (no record cache, about 0.7 ms each): a
# bound on that work, well under a whole check's cost at the sizes where a re-check matters. Past it
# the whole check, with its caches, runs instead.
MAX_REACHED = 200


@collector_paused
def recheck(root: Path, ledger: Ledger, edited: Collection[str], today: date,
            allow_shallow: bool) -> tuple[tuple[Finding, ...], Ledger] | None:
    """The findings of a whole check after the record files `edited` (root-relative) changed, and
    the ledger that goes with them; None when the edit is not one a re-check can follow."""
    if not edited or any(path not in ledger.files or not ledger.files[path].in_catalog for path in edited) or \
            any(reference.doc in edited for reference in ledger.references):
        return None
    edited_now = load_records(root, {}, cache=False, only=edited, broken_elsewhere=ledger.broken_ids,
                              with_facts=True).facts
    for path in edited:
        now, before = edited_now.get(path), ledger.files[path]
        if now is None or not now.in_catalog or \
                (now.record_id, now.seen_by_docs) != (before.record_id, before.seen_by_docs):
            return None
    files = {**ledger.files, **edited_now}
    by_key = _files_by_key(ledger.files)
    reached = _connected(ledger.files, by_key, edited)
    for path in edited:  # the same index, after the edit
        for key in _keys(ledger.files[path]):
            by_key[key].remove(path)
        for key in _keys(files[path]):
            by_key.setdefault(key, []).append(path)
    reached |= _connected(files, by_key, edited)
    if len(reached) > MAX_REACHED:
        return None
    part = load_records(root, {}, cache=False, only=reached, broken_elsewhere=ledger.broken_ids)
    settings = RuleSettings.of(today, part.config)
    for item in (item for rule in RULES for item in rule(part.catalog, root, settings)):
        part.by_file.setdefault(item.path, []).append(item)
    if not set(part.by_file) <= reached:
        return None
    edited_ids = {ledger.files[path].record_id for path in edited}
    found = _stale_docs(root, ledger, files, edited_ids, allow_shallow)
    if found is None:
        return None
    others = (*(item for item in ledger.others if not (item.code == "stale-doc" and item.subject in edited_ids)), *found)
    by_file = {**ledger.by_file, **{path: tuple(part.by_file.get(path, ())) for path in reached}}
    findings = configured(part.config, [*(item for found in by_file.values() for item in found), *others])
    return findings, Ledger(files, by_file, others, ledger.broken_ids,
                            ledger.references, ledger.summary, ledger.notes)


def _files_by_key(files: Mapping[str, FileFacts]) -> dict[RecordKey, list[str]]:
    """(kind, id) -> the valid record files that carry or name it."""
    by_key: dict[RecordKey, list[str]] = {}
    for path, facts in files.items():
        for key in _keys(facts):
            by_key.setdefault(key, []).append(path)
    return by_key


def _connected(files: Mapping[str, FileFacts], by_key: Mapping[RecordKey, list[str]], start: Iterable[str]) -> set[str]:
    """The record files connected to `start` through the ids they carry and name."""
    reached, pending, keys_seen = set(start), list(start), set()
    while pending:
        for key in _keys(files[pending.pop()]):
            if key not in keys_seen:
                keys_seen.add(key)
                fresh = [path for path in by_key.get(key, ()) if path not in reached]
                reached.update(fresh)
                pending.extend(fresh)
    return reached


def _keys(facts: FileFacts) -> set[RecordKey]:
    if not facts.valid or facts.record_id is None:
        return set()  # a broken record names nothing a check reads
    return {(facts.kind, facts.record_id), *facts.names}


def _stale_docs(root: Path, ledger: Ledger, files: Mapping[str, FileFacts], edited_ids: set[str | None],
                allow_shallow: bool) -> list[Finding] | None:
    """The stale-doc findings about the edited records (by id, of either kind, as the findings name
    them), from their history read as a whole check reads it; None when it cannot be read as then."""
    about = [r for r in ledger.references if r.record_id in edited_ids and is_file(root / r.doc)]
    if not about:
        return []
    from .checking.stale_docs import find_stale_docs
    from .history.timelines import HistoryUnavailable, read_history

    where = {(facts.kind, facts.record_id): path for path, facts in files.items() if facts.in_catalog}
    records = {where[(r.kind, r.record_id)]: (r.kind, r.record_id) for r in about}
    extra_docs = sorted({doc for doc in {r.doc for r in ledger.references} if not doc.startswith(DOCS_FOLDER + "/")
                         and is_file(root / doc)})
    try:  # read as a whole check reads it (the same paths: the same cached pass)
        history = read_history(root, records, extra_docs, allow_shallow=allow_shallow)
    except (HistoryUnavailable, KbError):
        return None
    if tuple(history.notes) != ledger.notes:
        return None
    return list(find_stale_docs(root, history, about))
