"""View data for the pages that look across records: the home page and one index per record kind.

The home page is useful in every state: it leads with what needs action when something does
(reclaimable knobs and the gains at stake, then every `kb check` finding, each linked to the page
that shows it), and always shows what the knowledge base holds (the knobs with the largest gains,
the newest incidents with their root cause and a lesson) and what changed lately, saying where
each time comes from. The index tables carry a marker that the site's script turns into sort and
filter controls.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from markupsafe import Markup

from ...findings import Severity
from ...records.gain_verdicts import claimed_gains, describe_reclaimed, restore_check
from ...records.model import best_gain, describe_gains, when_key
from .gain_views import RestoreRow, restore_rows
from .changes import Change
from .page_parts import badge, change_when, facets, running_cell, when_cell, when_text
from .markup import attribute, code, finding_message, plain, record_inline
from ...records.schema import Hypothesis, Incident, Knob
from ...records.vocabulary import RecordKind
from ...wording import plural
from .context import Read, SiteContext
from .links import HOME_PAGE, INCIDENT_INDEX, KNOB_INDEX, TAGS_PAGE, Links

RECENT_CHANGES = 15
HOME_ROWS = 10  # knobs and incidents the home page lists before pointing to the index


INDEX_PAGE_SIZE = 50  # rows an index shows at a time (kb.css hides the rest until the script runs)


def table_tools(filters: tuple[str, ...], split: tuple[str, ...] = ()) -> Markup:
    """The marker before an index table: which columns (or row facets) get a filter, which hold
    comma lists; the table shows INDEX_PAGE_SIZE rows at a time. Without scripts every row shows."""
    return Markup(f'<div class="kb-table-tools" data-filters="{attribute(",".join(filters))}" '
                  f'data-split="{attribute(",".join(split))}" data-page-size="{INDEX_PAGE_SIZE}"></div>\n'
                  '<noscript><style>.md-typeset .kb-table-tools + table tbody tr { display: table-row !important; }</style></noscript>')


@dataclass(frozen=True)
class ReclaimRow:
    knob: Markup
    gains: Markup
    reverted: Markup
    why: Markup


@dataclass(frozen=True)
class FindingRow:
    severity: Markup
    where: Markup
    code: Markup
    message: Markup


@dataclass(frozen=True)
class ChangeRow:
    when: Markup
    record: Markup
    what: Markup


@dataclass(frozen=True)
class KnobRow:
    knob: Markup
    status: Markup
    value: Markup
    gains: Markup


@dataclass(frozen=True)
class HomePage:
    path: str
    title: str
    intro: str
    needs_action: bool  # something to reclaim or a finding: the page leads with it
    all_good: str  # said instead when nothing needs action
    reclaimable: tuple[ReclaimRow, ...]
    restored: tuple[RestoreRow, ...]  # the ledger's restored knobs: verified by a measurement since, or not yet
    findings_summary: str
    findings: tuple[FindingRow, ...]
    knobs_intro: Markup
    knobs: tuple[KnobRow, ...]
    incidents_intro: Markup
    incidents: tuple[Markup, ...]
    changes_note: str
    changes: tuple[ChangeRow, ...]
    browse: tuple[Markup, ...]
    search_excluded: bool = False  # set by pages when the page passes the search limit


@dataclass(frozen=True)
class IndexPage:
    path: str
    title: str
    intro: str
    tools: Markup
    columns: tuple[str, ...]
    rows: tuple[tuple[Markup, ...], ...]
    search_excluded: bool = False


def _fallen_hypothesis(links: Links, incident: Incident, hypothesis: Hypothesis) -> Markup:
    return (Markup("hypothesis ") + links.hypothesis(incident.id, hypothesis.id) + Markup(" of ")
            + links.incident(incident.id) + Markup(" ") + badge("hypothesis", hypothesis.status.value))


def home_view(context: SiteContext) -> HomePage:
    links = Links(HOME_PAGE, context)
    knobs_all, incidents_all = context.knobs(), context.incidents()
    reclaimable = tuple(
        ReclaimRow(links.knob_in_table(item.knob.id), plain(item.gains_text), when_cell(item.revert.date),
                   Markup("; ").join(_fallen_hypothesis(links, incident, hypothesis)
                                     for incident, hypothesis in item.hypotheses))
        for item in context.reclaimable())
    findings = sorted(context.findings(), key=lambda f: (f.severity is not Severity.ERROR, f.sort_key))
    rows = []
    for item in findings:
        where = f"{item.path}:{item.line}" if item.line else item.path
        page = context.finding_page(item)
        rows.append(FindingRow(badge("severity", item.severity.value), links.to(page, where) if page else code(where),
                               code(item.code, nowrap=True), finding_message(item.message)))
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    summary = (f"kb check reports {plural(errors, 'error')} and {plural(len(findings) - errors, 'warning')}."
               if findings else "kb check reports nothing: all good.")
    changes = tuple(
        ChangeRow(change_when(change),
                  links.knob_in_table(change.record_id) if change.kind is RecordKind.KNOB else links.incident(change.record_id),
                  plain(change.what) if change.from_git
                  else badge("status", change.what) if change.kind is RecordKind.KNOB else record_inline(change.what))
        for change in context.recent_changes(RECENT_CHANGES))
    knob_counts = Counter(k.status.value for k in knobs_all)
    incident_counts = Counter(i.status.value for i in incidents_all)
    knobs_text = plural(len(knobs_all), "knob") + _breakdown(knob_counts)
    incidents_text = plural(len(incidents_all), "incident") + _breakdown(incident_counts)
    browse = (
        links.to(KNOB_INDEX, knobs_text),
        links.to(INCIDENT_INDEX, incidents_text),
    ) + ((links.to(TAGS_PAGE, "Tags") + Markup(": component, hardware, model, status"),) if context.settings.tags else ())
    knobs, knobs_intro = _knob_overview(knobs_all, links, knobs_text, context.min_gain_pct())
    incidents, incidents_intro = _incident_overview(incidents_all, links, incidents_text)
    return HomePage(
        path=HOME_PAGE,
        title=context.settings.site_name,
        intro="What was tuned and what it gains, the incidents that touched it and what they taught, "
              "and what changed lately.",
        needs_action=bool(reclaimable or findings),
        all_good="Nothing to reclaim and nothing to fix: no knob stays reverted under a hypothesis that "
                 "fell, and kb check reports no finding.",
        reclaimable=reclaimable,
        restored=restore_rows(knobs_all, links, context.restore_verify_days(), context.min_gain_pct()),
        findings_summary=summary,
        findings=tuple(rows),
        knobs_intro=knobs_intro,
        knobs=knobs,
        incidents_intro=incidents_intro,
        incidents=incidents,
        changes_note=_changes_note(context.recent_changes(RECENT_CHANGES)),
        changes=changes,
        browse=browse,
    )


def _best_gain(knob: Knob) -> float | None:
    gains = [g.pct for g in claimed_gains(knob)]
    return max(gains) if gains else None


def _gain_rank(knob: Knob) -> tuple[bool, float, str]:
    best = _best_gain(knob)
    return best is None, -(best or 0.0), knob.name.lower()


def _knob_overview(every: tuple[Knob, ...], links: Links, counted: str, floor: float) -> tuple[tuple[KnobRow, ...], Markup]:
    """The knobs with the largest gains first (those with none last), at most HOME_ROWS of them."""
    knobs = sorted(every, key=_gain_rank)
    if not knobs:
        return (), Markup("No knob recorded yet: <code>kb new knob</code> records one.")
    shown = knobs[:HOME_ROWS]
    rows = tuple(KnobRow(links.knob_in_table(knob.id), badge("status", knob.status.value), code(knob.value),
                         plain(describe_reclaimed(claimed_gains(knob), floor)))
                 for knob in shown)
    which = "the largest gains first" if len(shown) == len(knobs) else f"the {len(shown)} with the largest gains"
    return rows, (plain(f"{counted}; {which}. ") + Markup("Every knob, sortable and filterable: ")
                  + links.to(KNOB_INDEX, "the knobs index") + Markup("."))


def _incident_overview(every: tuple[Incident, ...], links: Links, counted: str) -> tuple[tuple[Markup, ...], Markup]:
    """The newest incidents (at most HOME_ROWS): status, root cause, and the first lesson."""
    incidents = sorted(every, key=lambda i: (when_key(i.started), i.id), reverse=True)
    if not incidents:
        return (), Markup("No incident recorded yet: <code>kb new incident</code> records one.")
    lines = []
    for incident in incidents[:HOME_ROWS]:
        line = (links.incident(incident.id) + Markup(" ") + badge("status", incident.status.value)
                + plain(f" started {when_text(incident.started)}"))
        cause = links.root_cause(incident)
        if cause is not None:
            line += Markup("<br>Root cause: ") + cause
        elif incident.hypotheses:
            line += Markup("<br>") + plain(
                f"No root cause yet; {plural(len(incident.hypotheses), 'hypothesis', 'hypotheses')} recorded.")
        if incident.lessons:
            more = len(incident.lessons) - 1
            line += (Markup("<br>Lesson: ") + record_inline(incident.lessons[0])
                     + (plain(f" ({plural(more, 'more lesson')} on its page)") if more else Markup()))
        lines.append(line)
    which = "newest first" if len(incidents) <= HOME_ROWS else f"the {HOME_ROWS} newest"
    return tuple(lines), (plain(f"{counted}; {which}. ") + Markup("All of them: ")
                          + links.to(INCIDENT_INDEX, "the incidents index") + Markup("."))


def _changes_note(changes: tuple[Change, ...]) -> str:
    """Says where the times come from, for the kinds of time the table shows."""
    committed = any(c.from_git for c in changes)
    recorded = any(not c.from_git for c in changes)
    parts = []
    if committed:
        parts.append("'committed' times are when the change was committed, in UTC")
    if recorded:
        parts.append("'recorded' dates are the dates written in the records (for records git does not know yet)")
    return ("Newest first; " + "; ".join(parts) + ".") if parts else ""




def _breakdown(counts: Counter[str]) -> str:
    return f" ({', '.join(f'{n} {status}' for status, n in sorted(counts.items()))})" if counts else ""


# Record id -> (the questions its index row asked, the row), from an earlier render of the same
# site: a live preview re-renders only the rows whose answers changed (`incremental.py`).
Rows = dict[str, tuple[list[Read], tuple[Markup, ...]]]


def _row(context: SiteContext, rows: tuple[Rows, Rows] | None, record_id: str,
         make: Callable[[], tuple[Markup, ...]]) -> tuple[Markup, ...]:
    """`rows`: the earlier render's rows, and this render's (filled in here); None: no reuse."""
    if rows is None:
        return make()
    before, now = rows
    known = before.get(record_id)
    if known is not None and context.answers_again(known[0]):
        context.note_reads(known[0])
    else:
        with context.recording() as reads:
            row = make()
        known = (reads, row)
    now[record_id] = known
    return known[1]


def knob_index_view(context: SiteContext, rows: tuple[Rows, Rows] | None = None) -> IndexPage:
    links = Links(KNOB_INDEX, context)
    knobs = sorted(context.knobs(), key=lambda k: k.name.lower())
    return IndexPage(
        path=KNOB_INDEX,
        title="Knobs",
        intro=f"{plural(len(knobs), 'knob')}{_breakdown(Counter(k.status.value for k in knobs))}. "
              "Running is the value that runs now: a knob that is not active runs its default. "
              "Click a column to sort; filter by status, component, tag, whether it is reclaimable or how "
              "its restore was checked. The address keeps the filters and the order.",
        tools=table_tools(("Status", "Component", "Tags", "Reclaimable", "Restore"), split=("Tags",)),
        columns=("Name", "Component", "Status", "Running", "Default", "Best gain", "Last change", "Tags"),
        rows=tuple(_row(context, rows, knob.id, lambda: _knob_row(context, links, knob)) for knob in knobs),
    )


def _knob_row(context: SiteContext, links: Links, knob: Knob) -> tuple[Markup, ...]:
    knob = context.knob(knob.id) or knob  # asked, so that the row is made again when the knob changes
    best = best_gain(claimed_gains(knob))  # measured at its current value: other values' gains are history
    # Sorted by the improvement, not by the text: a latency cut reads '\u221226.2%' but ranks high.
    best_text = Markup(f'<span data-sort="{best.pct:.3f}">') + plain(describe_gains((best,))) + Markup("</span>") \
        if best else Markup()
    change = context.last_change(RecordKind.KNOB, knob.id)
    check = restore_check(knob, context.restore_verify_days(), context.min_gain_pct())
    row_facets = facets(reclaimable="yes" if context.reclaimable_knob(knob.id) is not None else "no",
                        restore=check.state.value if check is not None else "")
    return (row_facets + links.knob_in_table(knob.id), plain(knob.component or ""), badge("status", knob.status.value),
            running_cell(knob), code(knob.default) if knob.default is not None else Markup(),
            best_text, change_when(change) if change else Markup(), plain(", ".join(knob.tags)))


def incident_index_view(context: SiteContext, rows: tuple[Rows, Rows] | None = None) -> IndexPage:
    links = Links(INCIDENT_INDEX, context)
    incidents = sorted(context.incidents(), key=lambda i: (when_key(i.started), i.id), reverse=True)
    return IndexPage(
        path=INCIDENT_INDEX,
        title="Incidents",
        intro=f"{plural(len(incidents), 'incident')}{_breakdown(Counter(i.status.value for i in incidents))}, "
              "newest first. Click a column to sort; filter by status or severity.",
        tools=table_tools(("Status", "Severity")),
        columns=("Title", "Status", "Severity", "Started", "Resolved", "Root cause"),
        rows=tuple(_row(context, rows, incident.id, lambda: _incident_row(context, links, incident)) for incident in incidents),
    )


def _incident_row(context: SiteContext, links: Links, incident: Incident) -> tuple[Markup, ...]:
    incident = context.incident(incident.id) or incident  # asked, so that the row is made again when it changes
    cause = links.root_cause(incident) or Markup()
    return (links.incident(incident.id), badge("status", incident.status.value),
            plain("" if incident.severity is None else incident.severity), when_cell(incident.started),
            when_cell(incident.resolved), cause)
