"""View data for the pages that look across records: the home page and one index per record kind.

The home page leads with what needs action (reclaimable knobs and the gains at stake, then every
`kb check` finding, each linked to the page that shows it), then recent changes. The index tables
carry a marker that the site's script turns into sort and filter controls.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from markupsafe import Markup

from ..findings import Severity
from ..records.model import gain_of, when_key
from .page_parts import badge, change_when, when_text
from .markup import attribute, code, plain, record_inline
from ..records.schema import Incident, Knob, RecordKind
from ..wording import plural
from .context import SiteContext
from .links import HOME_PAGE, INCIDENT_INDEX, KNOB_INDEX, TAGS_PAGE, Links

RECENT_CHANGES = 15


def table_tools(filters: tuple[str, ...], split: tuple[str, ...] = ()) -> Markup:
    """The marker before an index table: which columns get a filter, which hold comma lists."""
    return Markup(f'<div class="kb-table-tools" data-filters="{attribute(",".join(filters))}" '
                  f'data-split="{attribute(",".join(split))}"></div>')


@dataclass(frozen=True)
class ReclaimRow:
    knob: Markup
    gains: Markup
    reverted: str
    why: Markup


@dataclass(frozen=True)
class FindingRow:
    severity: Markup
    where: Markup
    code: Markup
    message: Markup


@dataclass(frozen=True)
class ChangeRow:
    when: str
    record: Markup
    what: Markup


@dataclass(frozen=True)
class HomePage:
    path: str
    title: str
    reclaimable: tuple[ReclaimRow, ...]
    findings_summary: str
    findings: tuple[FindingRow, ...]
    changes: tuple[ChangeRow, ...]
    browse: tuple[Markup, ...]


@dataclass(frozen=True)
class IndexPage:
    path: str
    title: str
    intro: str
    tools: Markup
    columns: tuple[str, ...]
    rows: tuple[tuple[Markup, ...], ...]


def home_view(context: SiteContext) -> HomePage:
    links = Links(HOME_PAGE, context.catalog, context.settings, context.root)
    reclaimable = tuple(
        ReclaimRow(links.knob(item.knob.id), plain(item.gains_text), when_text(item.revert.date),
                   Markup("hypothesis ") + links.hypothesis(item.incident.id, item.hypothesis.id) + Markup(" of ")
                   + links.incident(item.incident.id) + Markup(" ") + badge("hypothesis", item.hypothesis.status.value))
        for item in sorted(context.reclaimable.values(), key=lambda r: r.knob.id))
    findings = sorted(context.kb.findings, key=lambda f: (f.severity is not Severity.ERROR, f.sort_key))
    rows = []
    for item in findings:
        where = f"{item.path}:{item.line}" if item.line else item.path
        page = context.places.page_of(item, context.settings)
        rows.append(FindingRow(badge("severity", item.severity.value), links.to(page, where) if page else code(where),
                               code(item.code), plain(item.message)))
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    summary = (f"kb check reports {plural(errors, 'error')} and {plural(len(findings) - errors, 'warning')}."
               if findings else "kb check reports nothing: all good.")
    changes = tuple(
        ChangeRow(change_when(change),
                  links.knob(change.record_id) if change.kind is RecordKind.KNOB else links.incident(change.record_id),
                  plain(change.what) if change.from_git
                  else badge("status", change.what) if change.kind is RecordKind.KNOB else record_inline(change.what))
        for change in context.changes.recent(RECENT_CHANGES))
    knob_counts = Counter(k.status.value for k in context.catalog.knobs.values())
    incident_counts = Counter(i.status.value for i in context.catalog.incidents.values())
    browse = (
        links.to(KNOB_INDEX, plural(len(context.catalog.knobs), "knob")) + plain(_breakdown(knob_counts)),
        links.to(INCIDENT_INDEX, plural(len(context.catalog.incidents), "incident")) + plain(_breakdown(incident_counts)),
        links.to(TAGS_PAGE, "Tags") + Markup(": component, hardware, model, status"),
    )
    return HomePage(HOME_PAGE, context.settings.site_name, reclaimable, summary, tuple(rows), changes, browse)




def _breakdown(counts: Counter[str]) -> str:
    return f" ({', '.join(f'{n} {status}' for status, n in sorted(counts.items()))})" if counts else ""


def knob_index_view(context: SiteContext) -> IndexPage:
    links = Links(KNOB_INDEX, context.catalog, context.settings, context.root)
    knobs = sorted(context.catalog.knobs.values(), key=lambda k: k.name.lower())
    return IndexPage(
        path=KNOB_INDEX,
        title="Knobs",
        intro=f"{plural(len(knobs), 'knob')}{_breakdown(Counter(k.status.value for k in knobs))}. "
              "Click a column to sort; filter by status, component or tag.",
        tools=table_tools(("Status", "Component", "Tags"), split=("Tags",)),
        columns=("Name", "Component", "Status", "Value", "Best gain", "Last change", "Tags"),
        rows=tuple(_knob_row(context, links, knob) for knob in knobs),
    )


def _knob_row(context: SiteContext, links: Links, knob: Knob) -> tuple[Markup, ...]:
    gains = [g for g in map(gain_of, knob.measurements) if g is not None]
    best = max(gains, key=lambda g: g.pct, default=None)
    best_text = f"{best.pct:+.1f}% {best.metric}" if best else ""
    change = context.changes.last_change(RecordKind.KNOB, knob.id)
    return (links.knob(knob.id), plain(knob.component or ""), badge("status", knob.status.value), code(knob.value),
            plain(best_text), plain(change_when(change) if change else ""), plain(", ".join(knob.tags)))


def incident_index_view(context: SiteContext) -> IndexPage:
    links = Links(INCIDENT_INDEX, context.catalog, context.settings, context.root)
    incidents = sorted(context.catalog.incidents.values(), key=lambda i: (when_key(i.started), i.id), reverse=True)
    return IndexPage(
        path=INCIDENT_INDEX,
        title="Incidents",
        intro=f"{plural(len(incidents), 'incident')}{_breakdown(Counter(i.status.value for i in incidents))}, "
              "newest first. Click a column to sort; filter by status or severity.",
        tools=table_tools(("Status", "Severity")),
        columns=("Title", "Status", "Severity", "Started", "Resolved", "Root cause"),
        rows=tuple(_incident_row(links, incident) for incident in incidents),
    )


def _incident_row(links: Links, incident: Incident) -> tuple[Markup, ...]:
    cause = links.root_cause(incident) or Markup()
    return (links.incident(incident.id), badge("status", incident.status.value),
            plain("" if incident.severity is None else incident.severity), plain(when_text(incident.started)),
            plain(when_text(incident.resolved)), cause)
