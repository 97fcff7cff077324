"""The pipeline: find the record files, load and validate them all, read git history once, then
check what they imply.

    load_knowledge_base   records -> validated model + consistency findings     (`kb validate`)
    check_knowledge_base  ... + rules + doc references + history + stale docs   (`kb check`, the site)

Everything is gathered before anything is judged, and a broken file never hides findings in the
others. The result is immutable, its findings already carry the configured severities (applied
here, and only here), and every consumer (the CLI, the site, the authoring commands) receives it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import gc
import json
import os
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, ParamSpec, TypeVar

from ..findings import Finding, KbError, NotAKnowledgeBase, Severity, finding
from ..history.versions import consultations_recorded, versions_from
from ..records.consistency import check_consistency
from ..records.links import named_records
from ..records.model import Catalog, RecordSource
from ..records.record_cache import RecordCache, parse_ahead
from ..records.schema import Incident, Knob
from ..records.vocabulary import RECORD_SUFFIXES, RecordKey, RecordKind, record_kind_of
from ..repository.files import describe_error, folder_entries, is_file, is_folder
from ..rules.knob_rules import RULES
from ..rules.references import DocReference, find_doc_references
from ..settings.kb_settings import Settings, read_settings
from ..settings.reference_date import reference_date
from ..settings.rule_settings import RuleSettings
from ..settings.severities import Config
from ..wording import plural, shell_word
from .ledger import FileFacts, Ledger

if TYPE_CHECKING:  # git history is read lazily: a re-check that needs none imports no git
    from ..history.git_view import GitView
    from ..history.gitio import LogAhead, PendingTree
    from ..history.timelines import History, MaterialChange

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class KnowledgeBase:
    """A knowledge base as loaded and checked: the records, and everything found about them."""

    root: Path
    catalog: Catalog
    settings: Settings  # read once, from the knowledge base's configuration files
    findings: tuple[Finding, ...]  # configured severities, sorted by place
    notes: tuple[str, ...] = ()  # one-line remarks for stderr (git checks skipped...)
    references: tuple[DocReference, ...] = ()  # which docs refer to which records (after checking)
    history: History | None = None  # read once by check_knowledge_base; None without git
    today: date | None = None  # the reference date the rules were checked against
    ledger: Ledger | None = None  # where the findings came from (CheckMode(ledger=True))

    @property
    def config(self) -> Config:
        return self.settings.config

    @property
    def rule_settings(self) -> RuleSettings:
        return self.settings.rules(self.today or reference_date())

    @property
    def timelines(self) -> Mapping[RecordKey, list[MaterialChange]]:
        """Each record's material changes from git (every record's when checked with `timelines`)."""
        return self.history.changes if self.history is not None else {}

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

    @property
    def summary(self) -> str:
        """'1 knob, 1 incident checked': broken records count too."""
        counts = [(len(self.catalog.records(kind)) + len(self.catalog.broken_ids[kind]), kind.value)
                  for kind in RecordKind]
        return ", ".join(plural(n, word) for n, word in counts) + " checked"


def record_files(root: Path, kind: RecordKind) -> list[Path]:
    """The record files of `kind`, in its folder and any subfolder of it (see `record_kind_of`),
    whatever they are: reading refuses what is not a regular file, with a finding. A folder that
    cannot be listed stops kb: every record must be read."""
    return [root / rel for rel in _record_paths(root, kind)]


def skipped_record_folders(root: Path) -> list[Finding]:
    """What `record_files` passes by in silence, as the check reports it: folders under knobs/ and
    incidents/ not read (linked out, to nothing, back) and files named like records but for the case
    of their suffix (for commands other than the check that go over every record, e.g. `kb fmt`)."""
    skipped: list[Finding] = []
    for kind in RecordKind:
        _record_paths(root, kind, skipped)
    return skipped


def _record_paths(root: Path, kind: RecordKind, skipped: list[Finding] | None = None) -> list[str]:
    """`record_files`, relative to root, in the same order (plain strings: at 10,000 records, paths
    objects cost more than the listing). Subfolders reached through a link inside the knowledge base
    are walked; a folder that is not (a link out, to nothing, or back) is a finding in `skipped`."""
    folder = root / kind.folder
    if not is_folder(folder):
        return []
    passed: list[tuple[str, str]] = []
    try:
        found = [f"{kind.folder}/{rel}" for rel, _ in folder_entries(folder, inside=root, skipped=passed)
                 if rel.lower().endswith(RECORD_SUFFIXES)]
    except OSError as exc:
        where = Path(exc.filename or folder)
        rel = where.relative_to(root).as_posix() if where.is_relative_to(root) else str(where)
        raise KbError(f"cannot list {rel}/ in {root} ({describe_error(exc)}); kb reads every record, so it "
                      "stops here: make the folder readable") from None
    records = sorted((rel for rel in found if record_kind_of(rel) is kind), key=_path_order)
    if skipped is not None:
        read = set(records)
        skipped.extend(skipped_folder(f"{kind.folder}/{rel}" if rel else kind.folder, why, f"{kind} records")
                       for rel, why in passed if f"{kind.folder}/{rel}" not in read)
        skipped.extend(_misnamed(rel) for rel in found if rel not in read and record_kind_of(rel.lower()) is kind)
    return records


def _misnamed(rel_path: str) -> Finding:
    """A file named like a record but for the case of its suffix (knobs/x.YAML): not read, and said."""
    stem, dot, suffix = rel_path.rpartition(".")
    return finding("unreadable-file", rel_path, 1, 1, None,
                   f"kb does not read this as a record: a record's name ends in {' or '.join(RECORD_SUFFIXES)} "
                   f"(lower case), this one in {dot}{suffix}, so a record in it would go unchecked. Rename it "
                   f"(git mv {shell_word(rel_path)} {shell_word(stem + dot + suffix.lower())})")


def skipped_folder(rel_path: str, why: str, what: str) -> Finding:
    """A folder under knobs/, incidents/ or docs/ that kb does not read: said, never skipped silently."""
    return finding("unreadable-file", rel_path, 1, 1, None,
                   f"kb does not read this: {why}; {what} in it would go unchecked. Move them into the "
                   "repository (a link to a folder inside it is followed), or remove the link")


def _path_order(rel: str) -> list[str]:
    return rel.split("/")  # as paths sort: part by part


def collector_paused(function: Callable[P, T]) -> Callable[P, T]:
    """Run `function` with Python's cyclic garbage collector paused: loading builds hundreds of
    thousands of objects that live on (10,000 records' models), and the collector's full passes over
    them cost a quarter of a check and free nothing."""

    @functools.wraps(function)
    def paused(*args: P.args, **kwargs: P.kwargs) -> T:
        collecting = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if collecting:
                gc.enable()

    return paused


@collector_paused
def load_knowledge_base(root: Path, replaced: Mapping[str, str] | None = None) -> KnowledgeBase:
    """Load and validate every record under `root`; raises KbError only when root is unusable.

    `replaced` maps repository-relative record paths to text read instead of the file (which need
    not exist yet): editing commands check a change this way before they write it.
    """
    loaded = load_records(root, replaced or {}, cache=False)  # authoring leaves no trace
    return KnowledgeBase(root, loaded.catalog, loaded.settings, configured(loaded.config, loaded.findings))


@dataclass(frozen=True, slots=True)
class CheckMode:
    """How one check runs, as one value that the stages read (no flag threaded through them)."""

    today: date | None = None  # the date rules count from (default: `reference_date()`)
    allow_shallow: bool = False  # check a shallow clone with the history it has
    # Where history comes from: HEAD and the work tree (the default); the repository at `repo_folder`
    # at commit `rev` (PR mode: `kb check --base`); or HEAD plus the commit being made, `pending`
    # (pre-commit mode: the root holds the index's files).
    repo_folder: Path | None = None
    rev: str | None = None
    pending: PendingTree | None = None
    timelines: bool = False  # every record's material changes (the site shows them), not only those docs name
    # Reuse and keep parsed records and the history pass in the knowledge base's store in the user's
    # cache folder (`incident_kb.cache`; never changing a result); off in PR mode, whose knowledge
    # base is a temporary copy.
    cache: bool = True
    ledger: bool = False  # keep where each finding came from (`KnowledgeBase.ledger`), for `recheck`
    # git's view of the root's repository as this run read it already (the remembered result's key:
    # `memo.check_remembering`); the history pass asks git none of it again. None: read there.
    view: GitView | None = None


PLAIN = CheckMode()  # `kb check` as a user runs it: HEAD and the work tree, the cache on
SITE = CheckMode(timelines=True, allow_shallow=True)  # what a site shows: every timeline, shallow clones too


@collector_paused
def check_knowledge_base(root: Path, mode: CheckMode = PLAIN, replaced: Mapping[str, str] | None = None,
                         neighbourhood: tuple[str, Mapping[str, Catalog]] | None = None,
                         read: RecordsRead | None = None, ahead: LogAhead | None = None) -> KnowledgeBase:
    """Validation plus every rule, the git-based ones included, run as `mode` says; `replaced` as in
    `load_knowledge_base`. `neighbourhood`: the knowledge base's name in an organisation and the other
    knowledge bases' catalogs by name, among which its `NAME:ID` references resolve (`kb org check`,
    the org site); `read`: its records as `read_records` read them already (an organisation's first
    pass, which gave the neighbours' catalogs; --staged's layout), so they are not read twice;
    `ahead`: the history pass's `git log`, started by the caller (--staged: `history_read_ahead`)."""
    today = reference_date(mode.today)
    settings = read.settings if read is not None else knowledge_base_settings(root)
    started = contextlib.nullcontext(ahead) if ahead is not None else _history_ahead(root, settings, mode)
    with started as log_ahead:
        return _checked(root, mode, today, settings, replaced, neighbourhood, read, log_ahead)


def _history_ahead(root: Path, settings: Settings,
                   mode: CheckMode) -> contextlib.AbstractContextManager[LogAhead | None]:
    """The history pass's `git log` started while the records load (at HEAD only: see
    `timelines.history_read_ahead`)."""
    if mode.repo_folder is not None or mode.rev is not None or mode.pending is not None:
        return contextlib.nullcontext()
    from ..history.timelines import history_read_ahead

    return history_read_ahead(root, settings.folders, allow_shallow=mode.allow_shallow, cache=mode.cache,
                              view=mode.view)


def _checked(root: Path, mode: CheckMode, today: date, settings: Settings, replaced: Mapping[str, str] | None,
             neighbourhood: tuple[str, Mapping[str, Catalog]] | None, read: RecordsRead | None,
             ahead: LogAhead | None) -> KnowledgeBase:
    if read is None:
        read = read_records(root, replaced or {}, mode.cache, with_facts=mode.ledger, settings=settings)
    loaded = catalogued(read, root, neighbourhood)
    catalog, config = loaded.catalog, loaded.config
    with versions_from(mode.repo_folder, mode.rev) if mode.repo_folder is not None else contextlib.nullcontext():
        consulted = run_rules(loaded, root, today)
    docs = loaded.settings.docs.rel_path
    others: list[Finding] = [item for item in (loaded.settings.docs_finding,) if item is not None]
    unreadable: dict[str, str] = {}
    skipped: list[tuple[str, str]] = []
    references = tuple(find_doc_references(root, catalog, docs, unreadable=unreadable, skipped=skipped))
    others.extend(skipped_folder(folder, why, "docs") for folder, why in skipped)
    others.extend(finding("unreadable-file", doc, 1, 1, None,
                          f"cannot read this doc: {why}; so kb cannot tell which records it refers to, nor "
                          "whether it is stale") for doc, why in sorted(unreadable.items()))
    traced = [r for r in references if is_file(root / r.doc)]
    history, notes = history_pass(root, catalog, loaded.settings, traced, mode, every_record=mode.timelines,
                                   ahead=ahead)
    if history is not None:
        from ..rules.stale_docs import find_stale_docs

        others.extend(find_stale_docs(root, history, traced, left_out=config.left_out_by))
        others.extend(_missing_history(history.missing))
    findings = configured(config, [*loaded.findings, *others])
    kb = KnowledgeBase(root, catalog, loaded.settings, findings, notes, references, history, today)
    if mode.ledger and set(loaded.by_file) <= set(loaded.facts):  # else a finding lies outside the records: no ledger
        kb = dataclasses.replace(kb, ledger=Ledger(
            loaded.facts, {path: tuple(found) for path, found in loaded.by_file.items()},
            (*loaded.config_findings, *others), dict(catalog.broken_ids), references, kb.summary, notes,
            history.uncommitted_new if history is not None else frozenset(), frozenset(consulted)))
    return kb


@collector_paused
def material_changes(root: Path, catalog: Catalog | None = None, *,
                     allow_shallow: bool = False) -> Mapping[RecordKey, list[MaterialChange]]:
    """Each record's status timeline from git: (kind, id) -> its material changes, oldest first.

    A material change is a commit that changed a knob's status, value or default, or an incident's
    status, root cause or any hypothesis's status; `fields` holds each change as old -> new
    (`str(change)` reads "status reverted -> active"). The first entry of a record is its creation
    (`created=True`, fields from none). Renames are followed; uncommitted work-tree changes come
    last, with `commit` and `date` None. `catalog` defaults to loading `root`. Returns {} when
    `root` has no history (not a git repository, no commits); raises KbError in a shallow clone
    unless `allow_shallow`."""
    if catalog is None:
        catalog = load_records(root, {}, cache=True).catalog
    history, _ = history_pass(root, catalog, read_settings(root), (), CheckMode(allow_shallow=allow_shallow),
                               every_record=True)
    return history.changes if history is not None else {}


def run_rules(loaded: Loaded, root: Path, today: date) -> set[str]:
    """Every rule over the loaded records, each finding filed under its record file in
    `loaded.by_file`; returns the record files whose findings asked git for old versions."""
    settings = loaded.settings.rules(today)
    with consultations_recorded() as consulted:
        for item in (item for rule in RULES for item in rule(loaded.catalog, root, settings)):
            loaded.by_file.setdefault(item.path, []).append(item)
    return set(consulted)


@dataclass
class Loaded:
    catalog: Catalog
    settings: Settings
    config_findings: list[Finding]  # and those about record folders not read
    by_file: dict[str, list[Finding]]  # loading and consistency findings, by record file
    facts: dict[str, FileFacts]

    @property
    def config(self) -> Config:
        return self.settings.config

    @property
    def findings(self) -> list[Finding]:
        return [*self.config_findings, *(item for found in self.by_file.values() for item in found)]


def knowledge_base_settings(root: Path) -> Settings:
    """The settings of the knowledge base at `root` (NotAKnowledgeBase when `root` is not one)."""
    try:
        if not is_folder(root, strict=True):
            raise NotAKnowledgeBase(f"{root} is not a folder", "pass the knowledge base's repository with --root")
        if not any(is_folder(root / kind.folder, strict=True) for kind in RecordKind):
            raise NotAKnowledgeBase(f"{root} has no knobs/ or incidents/ folder",
                                    "is --root the knowledge base's repository?")
    except OSError as exc:
        raise NotAKnowledgeBase(f"cannot read {root} ({describe_error(exc)})",
                                "make it readable, or pass another folder with --root") from None
    return read_settings(root)


def load_records(root: Path, replaced: Mapping[str, str], cache: bool, only: Iterable[str] | None = None,
                 broken_elsewhere: Mapping[RecordKind, frozenset[str]] | None = None,
                 with_facts: bool = False, neighbourhood: tuple[str, Mapping[str, Catalog]] | None = None,
                 consistency: bool = True, settings: Settings | None = None,
                 unwritten: Mapping[str, bytes] | None = None) -> Loaded:
    """Load, validate and check the consistency of every record file (or `only` those, with the
    ids of broken records elsewhere in `broken_elsewhere`: a re-check's part of the catalog);
    `with_facts`: also each file's `FileFacts` (for a ledger); without `consistency`, only the
    catalog is wanted (PR mode's look at which files the records name), unchecked; `settings`: as
    `knowledge_base_settings(root)` gave them (read when not given); `unwritten` as in `read_records`."""
    read = read_records(root, replaced, cache, only, broken_elsewhere, with_facts, settings, unwritten=unwritten)
    return catalogued(read, root, neighbourhood, consistency)


@dataclass(frozen=True)
class RecordsRead:
    """Every record file read and validated, before the records are put in a catalog (an organisation
    reads each knowledge base's once, then catalogs each among the others': `catalogued`)."""

    records: tuple[tuple[Knob | Incident, RecordSource], ...]
    broken: Mapping[RecordKind, frozenset[str]]
    settings: Settings
    skipped: tuple[Finding, ...]  # record folders not read (see _record_paths)
    by_file: Mapping[str, tuple[Finding, ...]]  # loading findings, by record file
    facts: Mapping[str, FileFacts]
    unwritten: frozenset[str] = frozenset()  # record files held in memory only (see `read_records`)

    @property
    def catalog(self) -> Catalog:
        """The records on their own, their `NAME:ID` references to other knowledge bases unresolved."""
        return Catalog.of(self.records, self.broken)


def read_records(root: Path, replaced: Mapping[str, str], cache: bool, only: Iterable[str] | None = None,
                 broken_elsewhere: Mapping[RecordKind, frozenset[str]] | None = None,
                 with_facts: bool = False, settings: Settings | None = None,
                 contents: Mapping[str, bytes] | None = None,
                 unwritten: Mapping[str, bytes] | None = None) -> RecordsRead:
    """Every record file (or `only` those) read and validated, as `load_records` says. `contents`: the
    bytes of files kb laid out itself (PR and pre-commit modes), by path, not read back; `unwritten`:
    the record files it laid out in memory only (--staged), by path, read as if they were in the folder."""
    unwritten = unwritten or {}
    if settings is None:
        settings = knowledge_base_settings(root)
    skipped: list[Finding] = []  # record folders not read (see _record_paths)
    memo = RecordCache(root, enabled=cache)  # parsed and validated records by content, from earlier runs
    records: list[tuple[Knob | Incident, RecordSource]] = []
    broken: dict[RecordKind, set[str]] = {kind: set((broken_elsewhere or {}).get(kind, ())) for kind in RecordKind}
    seen: dict[tuple[RecordKind, str], str] = {}
    by_file: dict[str, list[Finding]] = {}
    facts: dict[str, FileFacts] = {}
    subset = None if only is None else set(only)
    listed = [(kind, rel_path) for kind in RecordKind
              for rel_path in sorted(_rel_paths(root, kind, replaced, unwritten, subset, skipped), key=_path_order)]
    files = [(kind, rel_path, os.path.join(root, rel_path), replaced.get(rel_path),
              unwritten.get(rel_path) if rel_path in unwritten else contents.get(rel_path) if contents else None)
             for kind, rel_path in listed]
    for (kind, rel_path), loaded in zip(listed, memo.load_all(files), strict=True):
        found = by_file[rel_path] = list(loaded.problems)
        record = loaded.record
        if record is None:
            broken[kind].add(loaded.raw_id or PurePosixPath(rel_path).stem)
            if with_facts:
                facts[rel_path] = FileFacts(kind, loaded.raw_id, False, False, "", frozenset())
            continue
        first = seen.setdefault((kind, record.id), rel_path)
        if with_facts:
            facts[rel_path] = FileFacts(kind, record.id, True, first == rel_path, _seen_by_docs(record),
                                        named_records(record))
        if first != rel_path:
            line, column = loaded.source_map.locate(("id",))
            found.append(finding("duplicate-id", rel_path, line, column, record.id,
                                 f"{kind} id '{record.id}' is already used by {first}; "
                                 "each record needs its own id", "id"))
            continue
        records.append((record, RecordSource(kind, rel_path, loaded.source_map)))
    memo.save()
    return RecordsRead(tuple(records), {kind: frozenset(ids) for kind, ids in broken.items()}, settings,
                       tuple(skipped), {path: tuple(found) for path, found in by_file.items()}, facts,
                       frozenset(unwritten))


def parse_records_ahead(root: Path) -> None:
    """A cold check of `root` about to run in this process: most of its record files parsed from now on
    by a forked child (`record_cache.parse_ahead`), which the check then takes; nothing when `root` is not
    a knowledge base that can be read (the check says why)."""
    try:
        listed = [(kind, rel_path) for kind in RecordKind for rel_path in _record_paths(root, kind)]
    except (KbError, OSError):
        return
    parse_ahead(root, [(kind, rel_path, os.path.join(root, rel_path)) for kind, rel_path in listed])


def _rel_paths(root: Path, kind: RecordKind, replaced: Mapping[str, str], unwritten: Mapping[str, bytes],
               subset: set[str] | None, skipped: list[Finding]) -> set[str]:
    """The record files of `kind` that `read_records` reads (see there)."""
    if subset is not None:
        return {rel for rel in subset if record_kind_of(rel) is kind}
    rel_paths = set(_record_paths(root, kind, skipped)) | {PurePosixPath(rel).as_posix() for rel in replaced
                                                           if record_kind_of(rel) is kind}
    rel_paths.update(rel for rel in unwritten if record_kind_of(rel) is kind)
    return rel_paths


def catalogued(read: RecordsRead, root: Path, neighbourhood: tuple[str, Mapping[str, Catalog]] | None = None,
               consistency: bool = True) -> Loaded:
    """The records `read` in their catalog (among the `neighbourhood`'s, in an organisation), with the
    consistency findings (unless `consistency` is off: see `load_records`)."""
    catalog = Catalog.of(read.records, read.broken, *(neighbourhood or ()))
    by_file = {path: list(found) for path, found in read.by_file.items()}
    for item in check_consistency(catalog, root, read.unwritten) if consistency else ():
        by_file.setdefault(item.path, []).append(item)
    return Loaded(catalog, read.settings, [*read.settings.config_findings, *read.skipped], by_file, dict(read.facts))


def _seen_by_docs(record: Knob | Incident) -> str:
    """What decides which docs refer to a record (see `rules.references`), as JSON text."""
    return json.dumps([record.id, record.docs, *((record.name, record.aliases) if isinstance(record, Knob) else ())])


def history_pass(root: Path, catalog: Catalog, settings: Settings, references: Iterable[DocReference],
                 mode: CheckMode, every_record: bool, ahead: LogAhead | None = None,
                 only: Collection[RecordKey] | None = None) -> tuple[History | None, tuple[str, ...]]:
    """The one pass over git history: the records docs refer to (or every record; `only` those of
    them), and the docs (the re-check reads it again for the timelines of the records it edited)."""
    from ..history.timelines import HistoryUnavailable, read_history

    references = list(references)
    wanted = set(catalog.sources) if every_record else {(RecordKind(r.kind), r.record_id) for r in references}
    if only is not None:
        wanted &= set(only)
    records = {catalog.source(*key).rel_path: key for key in wanted}
    try:
        history = read_history(root, records, settings.folders, settings.outside_docs(r.doc for r in references),
                               repo_folder=mode.repo_folder, rev=mode.rev, pending=mode.pending,
                               allow_shallow=mode.allow_shallow, cache=mode.cache, ahead=ahead,
                               view=mode.view if mode.repo_folder is None else None)
    except HistoryUnavailable as exc:
        return None, (f"warning: {exc}; the git-based checks (stale-doc) were skipped",)
    return history, tuple(history.notes)


def _missing_history(missing: Mapping[str, int]) -> list[Finding]:
    """One finding for the record versions a partial clone lacks (never "all good" in silence)."""
    if not missing:
        return []
    paths = sorted(missing)
    shown = ", ".join(paths[:5]) + (f" and {len(paths) - 5} more" if len(paths) > 5 else "")
    return [finding("missing-history", paths[0], 1, 1, None,
                    f"{plural(sum(missing.values()), 'committed version')} of {shown} are not in this partial clone, "
                    "and kb does not fetch them (it writes nothing into .git), so stale-doc cannot tell when these "
                    "records changed; fetch them (`git fetch --refetch`, or use a full clone), then run kb again")]


def configured(config: Config, findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """The one place severities are applied: configured, the 'off' ones dropped, sorted by place."""
    return tuple(sorted(config.apply(list(findings)), key=lambda f: f.sort_key))
