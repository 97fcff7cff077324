"""Everything the site's pages are drawn from, gathered once per build, and the questions a page
may ask of it.

The checked knowledge base plus what pages ask about beyond the catalog's own indexes (which docs
refer to a record, where each finding shows, what changed last, the charts). Built in one pass so a
page never scans the whole catalog: the site stays linear in the number of records.

A view reads the context only through the queries below (its data is private). While a page
renders, each query it asks is recorded with its answer (`recording`): those are the page's
inputs, so the live preview knows a page is unchanged when every question it asked gets the same
answer again (`answers_again`), with nothing listed by hand beside the view. The settings and the
root are not questions: they hold for every page (a change of them renders everything again).
Prepares no markup.
"""

from __future__ import annotations

import contextlib
import functools
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ...check.pipeline import KnowledgeBase
from ...findings import Finding
from ...gains.verdicts import claimed_gains
from ...records.model import Suspicion
from ...records.schema import FollowUp, HistoryEntry, Hypothesis, Incident, Knob
from ...records.verdicts import Revert, current_revert, current_reverts, reverted_here
from ...records.vocabulary import RecordKind, split_reference
from ...rules.knob_rules import Reclaimable, find_reclaimable
from .changes import Change, ChangeLog, Committed, record_changes
from .charts import GainChart, draw_gain_chart, draw_gain_charts
from .links import SiteSettings, site_has_file
from .page_parts import FindingPlaces, place_findings

Read = tuple[str, tuple[object, ...], object]  # a query's name, its arguments, its answer (as recorded)
Query = TypeVar("Query", bound=Callable[..., Any])


def query(method: Query) -> Query:
    """A question a page may ask: recorded with its answer while a page renders."""
    name = method.__name__

    @functools.wraps(method)
    def asked(self: SiteContext, *args: Any) -> Any:
        answer = method(self, *args)
        if self._reads:
            read = (name, args, self.recorded(answer))
            for reads in self._reads:
                reads.append(read)
        return answer
    asked.unrecorded = method  # type: ignore[attr-defined]  # for answers_again: asked without the wrapper
    return asked  # type: ignore[return-value]


@dataclass(eq=False)
class SiteContext:
    _kb: KnowledgeBase
    settings: SiteSettings
    _changes: ChangeLog
    _reclaimable: dict[str, Reclaimable]  # knob id ->
    _reverts_under: dict[str, tuple[Revert, ...]]  # incident id -> the knobs standing reverted under its hypotheses
    # On an org site: incident id -> the other knowledge bases' knobs standing reverted under it, each
    # with its reference from here ('payments:db-pool-size'); and those of them to restore, by reference
    _neighbour_reverts: dict[str, tuple[tuple[str, Revert], ...]]
    _neighbour_reclaimable: dict[str, Reclaimable]
    _docs_of: dict[tuple[RecordKind, str], tuple[str, ...]]  # (kind, id) -> repository paths of docs
    _follow_ups_of: dict[str, tuple[tuple[Incident, FollowUp], ...]]  # knob id ->
    _places: FindingPlaces
    _charts: Mapping[str, GainChart | None]  # knob id ->
    _reads: list[list[Read]] = field(default_factory=list)  # the recordings in progress (a page, a row)
    # How an answer is recorded: the live preview swaps each record for a version that stays the
    # same while the record stays equal (comparing versions is cheaper than comparing records).
    recorded: Callable[[object], object] = lambda answer: answer
    # answers_again's answers, by question: [the answer now (as recorded), the recorded answer last
    # compared with it, whether they were equal]
    _again: dict[tuple[str, tuple[object, ...]], list[object]] = field(default_factory=dict)

    @property
    def root(self) -> Path:
        return self._kb.root

    @property
    def kb_name(self) -> str | None:
        """This knowledge base's name on an org site (None alone): like the root, it holds for every page."""
        return self._kb.catalog.name

    # --- recording ---------------------------------------------------------------------------
    @contextlib.contextmanager
    def recording(self) -> Iterator[list[Read]]:
        """The queries asked inside the block, with their answers (nested recordings each get theirs
        and the enclosing ones get them too)."""
        reads: list[Read] = []
        self._reads.append(reads)
        try:
            yield reads
        finally:
            self._reads.remove(reads)

    def answers_again(self, reads: list[Read]) -> bool:
        """Whether every question of `reads` gets the same answer now; recorded reads are not
        recorded again (the caller adds them where they belong: `note_reads`).

        The 2,000 pages of a live preview ask some 35,000 reads again, but only some 23,000 distinct
        questions, most of them with the very answer object another page recorded: each question is
        answered once a context (the context never changes), and each recorded answer object compared
        with it once."""
        saved, self._reads = self._reads, []
        again = self._again
        try:
            for name, args, answer in reads:
                try:
                    known = again.get((name, args))
                except TypeError:  # an argument that cannot be a key: asked again each time
                    if self._answer_now(name, args) != answer:
                        return False
                    continue
                if known is None:
                    now = self._answer_now(name, args)
                    known = again[(name, args)] = [now, answer, now == answer]
                elif known[1] is not answer:  # held by `known`: an id no other object can take meanwhile
                    known[1], known[2] = answer, known[0] == answer
                if not known[2]:
                    return False
            return True
        finally:
            self._reads = saved

    def _answer_now(self, name: str, args: tuple[object, ...]) -> object:
        return self.recorded(getattr(type(self), name).unrecorded(self, *args))

    def note_reads(self, reads: list[Read]) -> None:
        """Reads made earlier (a part of a page reused as it was) count for the recordings in progress."""
        for recording in self._reads:
            recording.extend(reads)

    # --- records -----------------------------------------------------------------------------
    @query
    def knob(self, knob_id: str) -> Knob | None:
        return self._kb.catalog.knob(knob_id)  # another knowledge base's, on an org site

    @query
    def incident(self, incident_id: str) -> Incident | None:
        return self._kb.catalog.incident(incident_id)

    @query
    def hypothesis(self, incident_id: str | None, hypothesis_id: str | None) -> Hypothesis | None:
        return self._kb.catalog.hypothesis(incident_id, hypothesis_id)

    @query
    def knobs(self) -> tuple[Knob, ...]:
        """Every knob, by id."""
        return tuple(knob for _, knob in sorted(self._kb.catalog.knobs.items()))

    @query
    def incidents(self) -> tuple[Incident, ...]:
        """Every incident, by id."""
        return tuple(incident for _, incident in sorted(self._kb.catalog.incidents.items()))

    @query
    def suspicions(self, knob_id: str) -> tuple[Suspicion, ...]:
        return self._kb.catalog.suspicions(knob_id)

    @query
    def changes_under(self, incident_id: str, hypothesis_id: str | None) -> tuple[tuple[Knob, HistoryEntry], ...]:
        return self._kb.catalog.changes_under(incident_id, hypothesis_id)

    @query
    def changes_from_neighbours(self, incident_id: str,
                                hypothesis_id: str | None) -> tuple[tuple[str, Knob, HistoryEntry], ...]:
        """On an org site: other knowledge bases' knob changes under the incident, each with its reference."""
        return self._kb.catalog.changes_from_neighbours(incident_id, hypothesis_id)

    @query
    def source_path(self, kind: RecordKind, record_id: str) -> str:
        """The record's file, repository-relative."""
        return self._kb.catalog.source(kind, record_id).rel_path

    # --- what the check found and git says ---------------------------------------------------
    @query
    def findings(self) -> tuple[Finding, ...]:
        """kb check's findings, as the pages show them: none on a public site (settings.findings)."""
        return self._kb.findings if self.settings.findings else ()

    @query
    def findings_of(self, kind: RecordKind, record_id: str) -> tuple[Finding, ...]:
        return tuple(self._places.by_record.get((kind, record_id), ()))

    @query
    def finding_page(self, item: Finding) -> str | None:
        """The page that shows the finding (a record's, or a hand-written doc's), if any."""
        return self._places.page_of(item, self.settings)

    @query
    def min_gain_pct(self, kb_name: str | None = None) -> float:
        """The gain below which a measurement reads as noise ([tool.incident-kb] min-gain-pct): this
        knowledge base's, or on an org site knowledge base `kb_name`'s."""
        return _min_gain(self._kb, self.settings, kb_name)

    @query
    def restore_verify_days(self) -> int:
        return self._kb.config.restore_verify_days

    @query
    def reclaimable(self) -> tuple[Reclaimable, ...]:
        """The knobs to restore, by knob id."""
        return tuple(item for _, item in sorted(self._reclaimable.items()))

    @query
    def reverts_under(self, incident_id: str) -> tuple[Revert, ...]:
        """The knobs that stand reverted under one of the incident's hypotheses (or the incident
        alone), by knob id."""
        return self._reverts_under.get(incident_id, ())

    @query
    def reverts_from_neighbours(self, incident_id: str) -> tuple[tuple[str, Revert], ...]:
        """On an org site: the other knowledge bases' knobs that stand reverted under the incident,
        each with its reference ('payments:db-pool-size'), by reference. Alone: none."""
        return self._neighbour_reverts.get(incident_id, ())

    @query
    def reclaimable_knob(self, knob_id: str) -> Reclaimable | None:
        """The knob, if it is one to restore (`reclaimable` holds this knowledge base's); on an org
        site, another knowledge base's by its reference ('payments:db-pool-size'), as its check judges it."""
        return self._reclaimable.get(knob_id) or self._neighbour_reclaimable.get(knob_id)

    @query
    def last_change(self, kind: RecordKind, record_id: str) -> Change | None:
        return self._changes.last_change(kind, record_id)

    @query
    def committed_as(self, kind: RecordKind, record_id: str) -> Committed | None:
        """Where git has the record as it stands (None: git knows nothing of it)."""
        return self._changes.committed_as(kind, record_id)

    @query
    def recent_changes(self, count: int) -> tuple[Change, ...]:
        return self._changes.recent(count)

    @query
    def docs_of(self, kind: RecordKind, record_id: str) -> tuple[str, ...]:
        """The docs that refer to the record, repository paths."""
        return self._docs_of.get((kind, record_id), ())

    @query
    def follow_ups_of(self, knob_id: str) -> tuple[tuple[Incident, FollowUp], ...]:
        return self._follow_ups_of.get(knob_id, ())

    @query
    def has_file(self, rel_path: str) -> bool:
        """Whether the site has this repository file (under the docs folder): what a page links to."""
        return site_has_file(self.settings, self.root, rel_path)

    def chart(self, knob_id: str) -> GainChart | None:
        """The knob's gain chart: drawn from the knob alone, so asking it is asking for the knob."""
        self.knob(knob_id)
        return self._charts.get(knob_id)

    @property
    def banners_by_doc(self) -> dict[str, list[Finding]]:
        """For the bundle's hand-written pages (not a view's question)."""
        return self._places.by_doc


def gather_site_context(kb: KnowledgeBase, settings: SiteSettings, lazy_charts: bool = False) -> SiteContext:
    """`lazy_charts`: draw a knob's chart only when its page asks (a live preview renders few pages)."""
    catalog = kb.catalog
    docs_of: dict[tuple[RecordKind, str], set[str]] = {}
    for reference in kb.references:
        docs_of.setdefault((reference.kind, reference.record_id), set()).add(reference.doc)
    follow_ups_of: dict[str, list[tuple[Incident, FollowUp]]] = {}
    for incident in catalog.incidents.values():
        for follow_up in incident.follow_ups:
            if follow_up.knob is not None:
                follow_ups_of.setdefault(follow_up.knob, []).append((incident, follow_up))
    record_pages = {source.rel_path: (kind, record_id, kind.page_path(record_id))
                    for (kind, record_id), source in catalog.sources.items()}
    reverts_under: dict[str, list[Revert]] = {}
    for revert in sorted(current_reverts(catalog), key=lambda r: r.knob.id):
        for incident_id in reverted_here(revert, catalog.name):
            reverts_under.setdefault(incident_id, []).append(revert)
    neighbour_reverts, neighbour_reclaimable = _neighbours_reverted(kb, settings)
    return SiteContext(
        _kb=kb,
        settings=settings,
        _changes=record_changes(catalog, kb.timelines),
        _reclaimable={item.knob.id: item for item in find_reclaimable(catalog, kb.config.min_gain_pct)},
        _reverts_under={key: tuple(value) for key, value in reverts_under.items()},
        _neighbour_reverts=neighbour_reverts,
        _neighbour_reclaimable=neighbour_reclaimable,
        _docs_of={key: tuple(sorted(paths)) for key, paths in docs_of.items()},
        _follow_ups_of={key: tuple(value) for key, value in follow_ups_of.items()},
        _places=place_findings(kb, settings, record_pages),
        _charts=({} if not settings.charts else _LazyCharts(catalog.knobs) if lazy_charts
                 else draw_gain_charts(catalog.knobs.values())),
    )


def _min_gain(kb: KnowledgeBase, settings: SiteSettings, kb_name: str | None) -> float:
    if kb_name is None:
        return kb.config.min_gain_pct
    return dict(settings.neighbour_min_gains).get(kb_name, kb.config.min_gain_pct)


def _neighbours_reverted(kb: KnowledgeBase, settings: SiteSettings) -> tuple[dict[str, tuple[tuple[str, Revert], ...]],
                                                                             dict[str, Reclaimable]]:
    """On an org site: the other knowledge bases' knobs standing reverted under this one's incidents
    (by incident id), and those to restore (by reference), judged as their own checks judge them."""
    catalog = kb.catalog
    under: dict[str, list[tuple[str, Revert]]] = {}
    reclaimable: dict[str, Reclaimable] = {}
    for reference, knob in catalog.knobs_from_neighbours():
        written_in = split_reference(reference)[0]
        revert = current_revert(catalog, knob, written_in)
        if revert is None:
            continue
        for incident_id in reverted_here(revert, catalog.name, written_in):
            under.setdefault(incident_id, []).append((reference, revert))
        if revert.is_reclaimable and revert.incident is not None and revert.hypothesis is not None:
            # its own knowledge base's min gain, as its check judges it (only the words about noise depend on it)
            reclaimable[reference] = Reclaimable(knob, revert.first.entry, revert.incident, revert.hypothesis,
                                                 claimed_gains(knob), _min_gain(kb, settings, written_in),
                                                 revert.reasons)
    return {key: tuple(value) for key, value in under.items()}, reclaimable


class _LazyCharts(Mapping[str, "GainChart | None"]):
    """draw_gain_charts' result, each chart drawn when first asked for."""

    def __init__(self, knobs: Mapping[str, Knob]) -> None:
        self._knobs = knobs
        self._drawn: dict[str, GainChart | None] = {}

    def __getitem__(self, knob_id: str) -> GainChart | None:
        if knob_id not in self._drawn:
            self._drawn[knob_id] = draw_gain_chart(self._knobs[knob_id])
        return self._drawn[knob_id]

    def __iter__(self) -> Iterator[str]:
        return iter(self._knobs)

    def __len__(self) -> int:
        return len(self._knobs)
