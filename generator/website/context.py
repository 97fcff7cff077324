"""Everything the site's pages are drawn from, gathered once per build.

The checked knowledge base plus the indexes that pages ask about (which hypotheses suspected a
knob, which knob changes a hypothesis drove, which docs refer to a record, where each finding
shows, what changed last). Built in one pass so a page never scans the whole catalog: the site
stays linear in the number of records. Prepares no markup.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from .changes import ChangeLog, record_changes
from .charts import GainChart, draw_gain_charts
from ..pipeline import KnowledgeBase
from ..records.model import Catalog
from .page_parts import FindingPlaces, place_findings
from ..checking.references import find_doc_references
from ..checking.rules import Reclaimable, find_reclaimable
from ..records.schema import FollowUp, HistoryEntry, Hypothesis, Incident, Knob
from .links import SiteSettings, incident_page, knob_page


@dataclass(frozen=True)
class SiteContext:
    kb: KnowledgeBase
    settings: SiteSettings
    changes: ChangeLog
    reclaimable: dict[str, Reclaimable]  # knob id ->
    docs_of: dict[tuple[str, str], tuple[str, ...]]  # (kind, id) -> repository paths of docs
    suspected_in: dict[str, tuple[tuple[Incident, Hypothesis], ...]]  # knob id ->
    changes_under: dict[tuple[str, str], tuple[tuple[Knob, HistoryEntry], ...]]  # (incident, hypothesis) ->
    follow_ups_of: dict[str, tuple[tuple[Incident, FollowUp], ...]]  # knob id ->
    places: FindingPlaces
    charts: dict[str, GainChart | None]  # knob id ->

    @property
    def catalog(self) -> Catalog:
        return self.kb.catalog

    @property
    def root(self) -> Path:
        return self.kb.root


def gather_site_context(kb: KnowledgeBase, settings: SiteSettings, chart_cache: Path | None = None) -> SiteContext:
    """`chart_cache`: where drawn charts are kept between builds (None: draw them all)."""
    catalog = kb.catalog
    docs_of: dict[tuple[str, str], set[str]] = {}
    for reference in find_doc_references(kb.root, catalog):
        docs_of.setdefault((reference.kind, reference.record_id), set()).add(reference.doc)

    suspected_in: dict[str, list[tuple[Incident, Hypothesis]]] = {}
    follow_ups_of: dict[str, list[tuple[Incident, FollowUp]]] = {}
    for incident in catalog.incidents.values():
        for hypothesis in incident.hypotheses:
            if hypothesis.suspect is not None:
                suspected_in.setdefault(hypothesis.suspect.knob, []).append((incident, hypothesis))
        for follow_up in incident.follow_ups:
            if follow_up.knob is not None:
                follow_ups_of.setdefault(follow_up.knob, []).append((incident, follow_up))

    changes_under: dict[tuple[str, str], list[tuple[Knob, HistoryEntry]]] = {}
    for knob in catalog.knobs.values():
        for entry in knob.history:
            if entry.incident is None or entry.hypothesis is None:
                continue
            changes_under.setdefault((entry.incident, entry.hypothesis), []).append((knob, entry))
            # A change made under a hypothesis that does not name the knob as its suspect still
            # puts the knob under suspicion there.
            acted_on = catalog.hypothesis(entry.incident, entry.hypothesis)
            suspects = suspected_in.setdefault(knob.id, [])
            if acted_on is not None and not any(h is acted_on for _, h in suspects):
                suspects.append((catalog.incidents[entry.incident], acted_on))

    record_pages = {source.rel_path: (kind, record_id, knob_page(record_id) if kind == "knob" else incident_page(record_id))
                    for (kind, record_id), source in catalog.sources.items()}
    return SiteContext(
        kb=kb,
        settings=settings,
        changes=record_changes(catalog, kb.timelines),
        reclaimable={item.knob.id: item for item in find_reclaimable(catalog)},
        docs_of={key: tuple(sorted(paths)) for key, paths in docs_of.items()},
        suspected_in={key: tuple(value) for key, value in suspected_in.items()},
        changes_under={key: tuple(value) for key, value in changes_under.items()},
        follow_ups_of={key: tuple(value) for key, value in follow_ups_of.items()},
        places=place_findings(kb, settings, record_pages),
        charts=draw_gain_charts(catalog.knobs.values(), chart_cache),
    )
