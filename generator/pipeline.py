"""The pipeline: find the record files, load and validate them all, read git history once, then
check what they imply.

    load_knowledge_base   records -> validated model + consistency findings     (`kb validate`)
    check_knowledge_base  ... + rules + doc references + history + stale docs   (`kb check`, the site)

Everything is gathered before anything is judged, and a broken file never hides findings in the
others. The result is immutable, its findings already carry the configured severities (applied
here, and only here), and every consumer (the CLI, the site, the authoring commands) receives it.
"""

from __future__ import annotations

import functools
import gc
import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path, PurePosixPath
from typing import ParamSpec, TypeVar

from .checking.references import DocReference, find_doc_references
from .checking.rules import RULES, RuleSettings
from .checking.severities import Config, load_config
from .checking.stale_docs import find_stale_docs
from .findings import Finding, KbError, Severity, finding
from .history.timelines import History, HistoryUnavailable, MaterialChange, RecordKey, read_history
from .records.consistency import check_consistency
from .records.files import describe_error, is_file
from .records.model import Catalog, RecordSource
from .records.schema import Incident, Knob
from .records.vocabulary import DOCS_FOLDER, RECORD_SUFFIXES, RecordKind, record_kind_of
from .records.record_cache import RecordCache
from .reference_date import reference_date
from .wording import plural

P = ParamSpec("P")
T = TypeVar("T")


@dataclass(frozen=True)
class KnowledgeBase:
    """A knowledge base as loaded and checked: the records, and everything found about them."""

    root: Path
    catalog: Catalog
    config: Config
    findings: tuple[Finding, ...]  # configured severities, sorted by place
    notes: tuple[str, ...] = ()  # one-line remarks for stderr (git checks skipped...)
    references: tuple[DocReference, ...] = ()  # which docs refer to which records (after checking)
    history: History | None = None  # read once by check_knowledge_base; None without git
    today: date | None = None  # the reference date the rules were checked against

    @property
    def rule_settings(self) -> RuleSettings:
        return RuleSettings(self.today or reference_date(), self.config.revert_overdue_days)

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


def _record_paths(root: Path, kind: RecordKind) -> list[str]:
    """`record_files`, relative to root, in the same order (plain strings: at 10,000 records, paths
    objects cost more than the listing)."""
    folder = root / kind.folder
    problems: list[OSError] = []
    try:
        if not folder.is_dir():
            return []
        prefix = os.path.join(root, "")  # '/kb/', './' or '/': each listed path starts with it
        found = [os.path.join(top, name)[len(prefix):].replace(os.sep, "/")
                 for top, folders, names in os.walk(prefix + kind.folder, onerror=problems.append)
                 for name in (*names, *folders) if name.endswith(RECORD_SUFFIXES)]
    except OSError as exc:
        problems.append(exc)
    if problems:
        where = Path(problems[0].filename or folder)
        rel = where.relative_to(root).as_posix() if where.is_relative_to(root) else str(where)
        raise KbError(f"cannot list {rel}/ in {root} ({describe_error(problems[0])}); kb reads every record, so it "
                      "stops here: make the folder readable") from None
    return sorted((rel for rel in found if record_kind_of(rel) is kind), key=_path_order)


def _path_order(rel: str) -> list[str]:
    return rel.split("/")  # as paths sort: part by part


def _collector_paused(function: Callable[P, T]) -> Callable[P, T]:
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


@_collector_paused
def load_knowledge_base(root: Path, replaced: Mapping[str, str] | None = None) -> KnowledgeBase:
    """Load and validate every record under `root`; raises KbError only when root is unusable.

    `replaced` maps repository-relative record paths to text read instead of the file (which need
    not exist yet): editing commands check a change this way before they write it.
    """
    catalog, config, findings = _load(root, replaced or {}, cache=False)  # authoring leaves no trace
    return KnowledgeBase(root, catalog, config, _configured(config, findings))


@_collector_paused
def check_knowledge_base(root: Path, *, allow_shallow: bool = False, repo_folder: Path | None = None,
                         rev: str | None = None, timelines: bool = False,
                         replaced: Mapping[str, str] | None = None, today: date | None = None,
                         cache: bool = True) -> KnowledgeBase:
    """Validation plus every rule, the git-based ones included.

    `repo_folder` and `rev` read git history from elsewhere (PR mode); `timelines` reads every
    record's material changes (the site shows them), not only those that docs refer to; `today` is
    the date rules count from (default: `reference_date()`). `cache`: reuse and keep parsed records
    and the history pass under .cache/incident-kb/ (verified, never changing a result; off where
    the work tree must stay untouched, as in PR mode)."""
    today = reference_date(today)
    catalog, config, findings = _load(root, replaced or {}, cache)
    settings = RuleSettings(today, config.revert_overdue_days)
    findings.extend(item for rule in RULES for item in rule(catalog, root, settings))
    unreadable: dict[str, str] = {}
    references = tuple(find_doc_references(root, catalog, unreadable=unreadable))
    findings.extend(finding("unreadable-file", doc, 1, 1, None,
                            f"cannot read this doc: {why}; so kb cannot tell which records it refers to, nor "
                            "whether it is stale") for doc, why in sorted(unreadable.items()))
    traced = [r for r in references if is_file(root / r.doc)]
    history, notes = _read_history(root, catalog, traced, every_record=timelines, repo_folder=repo_folder,
                                   rev=rev, allow_shallow=allow_shallow, cache=cache)
    if history is not None:
        findings.extend(find_stale_docs(root, history, traced))
    return KnowledgeBase(root, catalog, config, _configured(config, findings), notes, references, history, today)


@_collector_paused
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
        catalog, _, _ = _load(root, {}, cache=True)
    history, _ = _read_history(root, catalog, (), every_record=True, allow_shallow=allow_shallow)
    return history.changes if history is not None else {}


def _load(root: Path, replaced: Mapping[str, str], cache: bool) -> tuple[Catalog, Config, list[Finding]]:
    try:
        if not root.is_dir():
            raise KbError(f"{root} is not a folder; pass the knowledge base's repository with --root")
        if not any((root / kind.folder).is_dir() for kind in RecordKind):
            raise KbError(f"{root} has no knobs/ or incidents/ folder; is --root the knowledge base's repository?")
    except OSError as exc:
        raise KbError(f"cannot read {root} ({describe_error(exc)}); make it readable, or pass another folder with --root") from None
    config, findings = load_config(root)
    memo = RecordCache(root, enabled=cache)  # parsed and validated records by content, from earlier runs
    records: list[tuple[Knob | Incident, RecordSource]] = []
    broken: dict[RecordKind, set[str]] = {kind: set() for kind in RecordKind}
    seen: dict[tuple[RecordKind, str], str] = {}
    for kind in RecordKind:
        rel_paths = set(_record_paths(root, kind)) | {PurePosixPath(rel).as_posix() for rel in replaced
                                                       if record_kind_of(rel) is kind}
        for rel_path in sorted(rel_paths, key=_path_order):
            loaded = memo.load(kind, rel_path, os.path.join(root, rel_path), replaced.get(rel_path))
            findings.extend(loaded.problems)
            record = loaded.record
            if record is None:
                broken[kind].add(loaded.raw_id or PurePosixPath(rel_path).stem)
                continue
            first = seen.setdefault((kind, record.id), rel_path)
            if first != rel_path:
                line, column = loaded.source_map.locate(("id",))
                findings.append(finding("duplicate-id", rel_path, line, column, record.id,
                                        f"{kind} id '{record.id}' is already used by {first}; each record needs its own id",
                                        "id"))
                continue
            records.append((record, RecordSource(kind, rel_path, loaded.source_map)))
    memo.save()
    catalog = Catalog.of(records, broken)
    findings.extend(check_consistency(catalog, root))
    return catalog, config, findings


def _read_history(root: Path, catalog: Catalog, references: Iterable[DocReference], *, every_record: bool,
                  repo_folder: Path | None = None, rev: str | None = None,
                  allow_shallow: bool = False, cache: bool = True) -> tuple[History | None, tuple[str, ...]]:
    """The one pass over git history: the records docs refer to (or every record), and the docs."""
    references = list(references)
    wanted = set(catalog.sources) if every_record else {(RecordKind(r.kind), r.record_id) for r in references}
    records = {catalog.source(*key).rel_path: key for key in wanted}
    extra_docs = sorted({r.doc for r in references if not r.doc.startswith(DOCS_FOLDER + "/")})
    try:
        history = read_history(root, records, extra_docs, repo_folder=repo_folder, rev=rev,
                               allow_shallow=allow_shallow, cache=cache)
    except HistoryUnavailable as exc:
        return None, (f"warning: {exc}; the git-based checks (stale-doc) were skipped",)
    return history, tuple(history.notes)


def _configured(config: Config, findings: Iterable[Finding]) -> tuple[Finding, ...]:
    """The one place severities are applied: configured, the 'off' ones dropped, sorted by place."""
    return tuple(sorted(config.apply(list(findings)), key=lambda f: f.sort_key))
