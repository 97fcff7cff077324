"""Checking again after a few record files were edited: only what the edit can reach.

Records depend on each other only through the ids they name (the fields the schema marks
`RefersTo`, `records.links`). So the findings in a record file depend on the records connected to
it through such names, and on nothing else of the other records: the edited files' connected
records, before and after the edit, are loaded and checked as a small catalog of their own, and
every other file keeps its findings from the last check's `Ledger`. Docs see a record through its
id, names and `docs:`; while those stay as they were, the same docs refer to the same records, and
only the stale-doc findings about the edited records are decided again (from their history, which
the edit extends; what is material is the schema's `Material` mark).

History has one dependency that is not an id: git pairs a deleted file with the most similar added
one as a rename, so the content of a record that is new in the work tree decides whose history it
continues. An edit of such a record (`Ledger.pairable`, from git's own answer) is checked whole;
a record git already tracks at its path is never a candidate, so its edits stay local.

When git's view moved (a commit, a checkout, a configuration change) and no file did, only history
can have changed: every finding stands but the stale docs, which are decided again for every record
docs refer to, from history read as a whole check reads it (the remembered pass, continued), and
the findings of the records whose rules asked git for their old versions (`Ledger.consults_git`,
written down by `history.versions`), which are checked again with the records they reach.

Anything else (a file added, removed or broken, an id or name changed, a doc's or git's state, a
large part of the catalog reached) is no job for a re-check: `recheck` returns None and the
caller checks everything.
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Collection, Iterable, Mapping
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from ..findings import Finding, KbError
from ..history.versions import versions_from
from ..records.model import Catalog
from ..records.vocabulary import RecordKey
from ..repository.files import is_file
from ..rules.references import DocReference
from ..settings.kb_settings import Settings, read_settings
from ..settings.reference_date import reference_date
from .ledger import FileFacts, Ledger
from .pipeline import (
    CheckMode,
    KnowledgeBase,
    collector_paused,
    configured,
    history_pass,
    load_records,
    read_records,
    run_rules,
)

if TYPE_CHECKING:  # git history is read lazily
    from ..history.timelines import History

# A re-check parses every record it reaches from its file (no record cache, about 0.7 ms each): a
# bound on that work, well under a whole check's cost at the sizes where a re-check matters. Past it
# the whole check, with its caches, runs instead.
MAX_REACHED = 200


@collector_paused
def recheck(root: Path, ledger: Ledger, edited: Collection[str], today: date, allow_shallow: bool,
            history_moved: bool = False, repo_folder: Path | None = None,
            rev: str | None = None,
            unwritten: Mapping[str, bytes] | None = None) -> tuple[tuple[Finding, ...], Ledger] | None:
    """The findings of a whole check after the record files `edited` (root-relative) changed, or git's
    view (`history_moved`: a commit, a checkout, a configuration...), or both, and the ledger that goes
    with them; None when the change is not one a re-check can follow. History as `CheckMode` says:
    of `root` (HEAD and the work tree), or with `repo_folder` of that repository at commit `rev`
    (`root` a temporary copy of its files there, which keeps no store; `unwritten`: its record files
    held in memory, as `read_records` takes them)."""
    if not edited and not history_moved:
        return None
    # Records whose findings asked git for old versions stand on history too: when it moved, they are
    # decided again with the edited ones.
    again = [*edited, *(sorted(ledger.consults_git - set(edited)) if history_moved else ())]
    settings = read_settings(root)
    files, by_file, consults_git = dict(ledger.files), dict(ledger.by_file), ledger.consults_git
    edited_ids: set[str | None] = set()
    if again:
        part = _records_again(root, ledger, again, set(edited), today, repo_folder, rev, unwritten)
        if part is None:
            return None
        facts, found_by_file, consulted = part
        files.update(facts)
        by_file.update(found_by_file)
        consults_git = (consults_git - set(found_by_file)) | consulted
        edited_ids = {ledger.files[path].record_id for path in edited}
    found = _stale_docs(root, settings, ledger, files, None if history_moved else edited_ids, allow_shallow,
                        repo_folder, rev)
    if found is None:
        return None
    stale, notes, pairable = found
    if pairable & set(edited):
        return None  # the pairing decides whose history an edited record continues: checked whole
    others = (*(item for item in ledger.others if not _decided_again(item, history_moved, edited_ids)), *stale)
    findings = configured(settings.config, [*(item for found in by_file.values() for item in found), *others])
    return findings, Ledger(files, by_file, others, ledger.broken_ids, ledger.references, ledger.summary, notes,
                            pairable, consults_git)


@collector_paused
def rechecked_knowledge_base(kb: KnowledgeBase, edited: Collection[str], mode: CheckMode) -> KnowledgeBase | None:
    """`check_knowledge_base(kb.root, mode)` after only the record files `edited` (root-relative) changed
    since `kb` was checked with its ledger, as `mode` says, the same day, git's view unchanged, no other
    file changed (the caller knows: `mkdocs serve` from what the last build looked at): the findings
    from `recheck`, the catalog of every record (`kb`'s, the edited records read again), the same
    docs' references, and history read again for the edited records (the site shows every record's
    timeline: `_history_again`).
    None when a re-check cannot follow."""
    today = reference_date(mode.today)
    if kb.ledger is None or kb.today != today or not edited or mode.repo_folder is not None or mode.pending:
        return None
    done = recheck(kb.root, kb.ledger, edited, today, mode.allow_shallow)
    if done is None:
        return None
    findings, ledger = done
    # The last catalog with the edited records read again: a look at each of 2,000 files through the
    # record cache took a tenth of the live preview's save.
    catalog = kb.catalog.replacing(read_records(kb.root, {}, False, only=edited, settings=kb.settings).records)
    traced = [r for r in kb.references if is_file(kb.root / r.doc)]
    history, notes = _history_again(kb, catalog, traced, _keys_of(ledger, edited), mode)
    if history is None or history.missing or notes != kb.notes:
        return None  # as a whole check would find it: it says why
    return KnowledgeBase(kb.root, catalog, kb.settings, findings, notes, kb.references, history, today, ledger)


def _keys_of(ledger: Ledger, paths: Iterable[str]) -> set[RecordKey]:
    return {(facts.kind, facts.record_id) for facts in map(ledger.files.__getitem__, paths) if facts.record_id}


def _history_again(kb: KnowledgeBase, catalog: Catalog, traced: list[DocReference], edited: set[RecordKey],
                   mode: CheckMode) -> tuple[History | None, tuple[str, ...]]:
    """`history_pass` after only the records `edited` changed in the work tree, git's view the same:
    read for those records alone (git's walk continued from the store and the work tree's changes
    listed again, as a whole pass does), every other record's timeline kept from `kb`'s pass. A
    record's material changes depend on git's view, its own file and, for a file new to git, on
    which deleted file git pairs it with (an edit of such a file is checked whole: `recheck`)."""
    before = kb.history
    if before is None or before.missing:
        return history_pass(kb.root, catalog, kb.settings, traced, mode, every_record=mode.timelines)
    history, notes = history_pass(kb.root, catalog, kb.settings, traced, mode, every_record=mode.timelines,
                                  only=edited)
    if history is None:
        return None, notes
    changes = {key: found for key, found in before.changes.items() if key not in edited}
    changes.update(history.changes)
    return dataclasses.replace(history, changes=changes), notes


def _decided_again(item: Finding, history_moved: bool, edited_ids: set[str | None]) -> bool:
    """Whether the re-check decides `item` again (so the ledger's is dropped): the stale docs about
    the edited records, and with history moved every stale doc and every doc git has no history of."""
    if item.code == "stale-doc":
        return history_moved or item.subject in edited_ids
    return item.code == "unjudged-doc" and history_moved


def _records_again(root: Path, ledger: Ledger, again: Collection[str], edited: Collection[str], today: date,
                   repo_folder: Path | None, rev: str | None, unwritten: Mapping[str, bytes] | None = None
                   ) -> tuple[dict[str, FileFacts], dict[str, tuple[Finding, ...]], set[str]] | None:
    """The facts of the files `again` (the `edited` ones among them), and the findings of every file
    connected to them, loaded and checked again, with the files whose rules asked git for old
    versions; None when the edit is not one a re-check can follow."""
    if any(path not in ledger.files or not ledger.files[path].in_catalog for path in again) or \
            any(reference.doc in edited for reference in ledger.references) or ledger.pairable & set(edited):
        return None
    edited_now = load_records(root, {}, cache=False, only=again, broken_elsewhere=ledger.broken_ids,
                              with_facts=True, unwritten=unwritten).facts
    for path in again:
        now, before = edited_now.get(path), ledger.files[path]
        if now is None or not now.in_catalog or \
                (now.record_id, now.seen_by_docs) != (before.record_id, before.seen_by_docs):
            return None
    files = {**ledger.files, **edited_now}
    by_key = _files_by_key(ledger.files)
    reached = _connected(ledger.files, by_key, again)
    for path in again:  # the same index, after the edit
        for key in _keys(ledger.files[path]):
            by_key[key].remove(path)
        for key in _keys(files[path]):
            by_key.setdefault(key, []).append(path)
    reached |= _connected(files, by_key, again)
    if len(reached) > MAX_REACHED:
        return None
    part = load_records(root, {}, cache=False, only=reached, broken_elsewhere=ledger.broken_ids, unwritten=unwritten)
    with versions_from(repo_folder, rev) if repo_folder is not None else contextlib.nullcontext():
        consulted = run_rules(part, root, today)
    if not set(part.by_file) <= reached:
        return None
    return edited_now, {path: tuple(part.by_file.get(path, ())) for path in reached}, consulted


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


def _stale_docs(root: Path, settings: Settings, ledger: Ledger, files: Mapping[str, FileFacts],
                ids: set[str | None] | None, allow_shallow: bool, repo_folder: Path | None, rev: str | None
                ) -> tuple[list[Finding], tuple[str, ...], frozenset[str]] | None:
    """The stale-doc findings about the records with `ids` (of either kind, as the findings name them;
    None: every record docs refer to), from their history read as a whole check reads it, with the
    history's notes and the record files new to git; None when it cannot be read as then."""
    about = [r for r in ledger.references if (ids is None or r.record_id in ids) and is_file(root / r.doc)]
    if not about and ids is not None:
        return [], ledger.notes, ledger.pairable
    from ..history.timelines import HistoryUnavailable, read_history
    from ..rules.stale_docs import find_stale_docs

    where = {(facts.kind, facts.record_id): path for path, facts in files.items() if facts.in_catalog}
    records = {where[(r.kind, r.record_id)]: (r.kind, r.record_id) for r in about}
    extra_docs = [doc for doc in settings.outside_docs(r.doc for r in ledger.references) if is_file(root / doc)]
    try:  # read as a whole check reads it (the same paths: the same cached pass)
        history = read_history(root, records, settings.folders, extra_docs, repo_folder=repo_folder, rev=rev,
                               allow_shallow=allow_shallow, cache=repo_folder is None)
    except (HistoryUnavailable, KbError):
        return None  # a whole check says why, as a note or as the error that stops it
    notes = tuple(history.notes)
    if history.missing:
        return None  # versions a partial clone lacks: a whole check says so
    if ids is not None and (notes != ledger.notes or history.uncommitted_new != ledger.pairable):
        return None
    # Whether git has a doc's history changes only with git's view (then `ids` is None), never with an edit.
    return (list(find_stale_docs(root, history, about, unjudged=ids is None, left_out=settings.config.left_out_by)),
            notes, history.uncommitted_new)
