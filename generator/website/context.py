"""Everything the site's pages are drawn from, gathered once per build.

The checked knowledge base plus what pages ask about beyond the catalog's own indexes (which docs
refer to a record, where each finding shows, what changed last, the charts). Built in one pass so a page never scans the whole catalog: the site
stays linear in the number of records. Prepares no markup.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from .changes import ChangeLog, record_changes
from .charts import GainChart, draw_gain_chart, draw_gain_charts
from ..pipeline import KnowledgeBase
from ..records.model import Catalog
from .page_parts import FindingPlaces, place_findings
from ..checking.rules import Reclaimable, find_reclaimable
from ..records.schema import FollowUp, Incident, Knob
from ..records.vocabulary import RecordKind
from .links import SiteSettings


@dataclass(frozen=True)
class SiteContext:
    kb: KnowledgeBase
    settings: SiteSettings
    changes: ChangeLog
    reclaimable: dict[str, Reclaimable]  # knob id ->
    docs_of: dict[tuple[RecordKind, str], tuple[str, ...]]  # (kind, id) -> repository paths of docs
    follow_ups_of: dict[str, tuple[tuple[Incident, FollowUp], ...]]  # knob id ->
    places: FindingPlaces
    charts: Mapping[str, GainChart | None]  # knob id ->

    @property
    def catalog(self) -> Catalog:
        return self.kb.catalog

    @property
    def root(self) -> Path:
        return self.kb.root


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
    return SiteContext(
        kb=kb,
        settings=settings,
        changes=record_changes(catalog, kb.timelines),
        reclaimable={item.knob.id: item for item in find_reclaimable(catalog, kb.config.min_gain_pct)},
        docs_of={key: tuple(sorted(paths)) for key, paths in docs_of.items()},
        follow_ups_of={key: tuple(value) for key, value in follow_ups_of.items()},
        places=place_findings(kb, settings, record_pages),
        charts=({} if not settings.charts else _LazyCharts(catalog.knobs) if lazy_charts
                else draw_gain_charts(catalog.knobs.values())),
    )


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
