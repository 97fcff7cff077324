"""View data for the index pages: one per record kind, and the findings page (every finding of
`kb check`, which the home page summarises by code; see home_page.py).

Each table carries a marker that the site's script turns into sort, filter and page controls,
and each row the facets its filters use, decided here (reclaimable or not, how a restore was
checked); the script only sorts, filters and pages what the page carries, or, for an index too
long for one page (split_index), the rows the JSON beside it carries, made here too.
"""

from __future__ import annotations

import posixpath
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace

from markupsafe import Markup

from ...findings import Severity
from ...gains.verdicts import best_told_gain, claimed_gains, restore_check
from ...records.model import best_gain, describe_gains, when_key
from ...records.schema import Incident, Knob
from ...records.vocabulary import RecordKind, built_path
from ...wording import plural
from .changes import Change
from .context import Read, SiteContext
from .incident_pages import knobs_reverted_under, status_badge
from .links import FINDINGS_PAGE, INCIDENT_INDEX, KNOB_INDEX, Links, index_part, index_rows_file
from .markup import attribute, code, finding_message, plain
from .page_parts import badge, change_what, change_when, facets, running_cell, value_code, when_cell

INDEX_PAGE_SIZE = 50  # rows an index shows at a time (kb.css hides the rest until the script runs)
# Rows an index's page carries (about 300 KB of HTML for knobs). Past them, the page shows its first
# INDEX_FILE_ROWS rows with links to pages of the others (knobs/page_2/...), and the script filters,
# sorts and pages every row from one JSON file beside the page (links.index_rows_file): a site of
# 6,000 knobs, incidents or findings no longer ships megabytes of rows in one page. A smaller index
# is as it always was.
INDEX_FILE_ROWS = 500


def table_tools(filters: tuple[str, ...], split: tuple[str, ...] = (), rows_file: str | None = None) -> Markup:
    """The marker before an index table: which columns (or row facets) get a filter, which hold
    comma lists; the table shows INDEX_PAGE_SIZE rows at a time. Without scripts every row shows.
    `rows_file`: where every row is, as data, when the page carries only the first of them."""
    # The noscript rule comes first: kb.css finds the table as the marker's next sibling (`+ table`).
    rows = f' data-rows="{attribute(rows_file)}"' if rows_file is not None else ""
    return Markup('<noscript><style>.md-typeset .kb-table-tools + table tbody tr { display: table-row !important; }'
                  '</style></noscript>\n'
                  f'<div class="kb-table-tools" data-filters="{attribute(",".join(filters))}" '
                  f'data-split="{attribute(",".join(split))}" data-page-size="{INDEX_PAGE_SIZE}"{rows}></div>')


@dataclass(frozen=True)
class IndexPage:
    path: str
    title: str
    intro: str
    columns: tuple[str, ...]
    rows: tuple[tuple[Markup, ...], ...]
    filters: tuple[str, ...] | None = None  # the columns the table's tools filter by (None: no tools)
    split: tuple[str, ...] = ()  # those that hold comma lists
    noun: str = ""  # what a row is, in the plural ("knobs"), for the pages of rows
    order: str = ""  # how the rows are ordered ("by name"), for the pages of rows
    called: str = ""  # how its pages of rows name it ("the knobs index")
    rows_file: str | None = None  # every row as data, when the page carries only the first (page-relative)
    search_excluded: bool = False
    parts: Markup = Markup()  # links to the index's other pages of rows (none: one page holds them all)

    @property
    def tools(self) -> Markup:
        return Markup() if self.filters is None else table_tools(self.filters, self.split, self.rows_file)


def breakdown(counts: Counter[str]) -> str:
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


_KNOB_FILTERS = ("Status", "Component", "Tags", "Owner", "Reclaimable", "Restore")


def knob_index_view(context: SiteContext, rows: tuple[Rows, Rows] | None = None) -> IndexPage:
    links = Links(KNOB_INDEX, context)
    knobs = sorted(context.knobs(), key=lambda k: k.name.lower())
    return IndexPage(
        path=KNOB_INDEX,
        title="Knobs",
        intro=f"{plural(len(knobs), 'knob')}{breakdown(Counter(k.status.value for k in knobs))}. "
              "Running is the value that runs now: a knob that is not active runs its default. "
              "Click a column to sort; filter by status, component, tag, owner, whether it is reclaimable or "
              "how its restore was checked. The address keeps the filters and the order.",
        columns=("Name", "Component", "Status", "Running", "Default", "Best gain", "Last change", "Tags"),
        filters=_KNOB_FILTERS, split=("Tags",), noun="knobs", order="by name", called="the knobs index",
        # _row calls `make` at once, in this turn of the loop (B023).
        rows=tuple(_row(context, rows, knob.id, lambda: _knob_row(context, links, knob))  # noqa: B023
                   for knob in knobs),
    )


@dataclass(frozen=True)
class SplitIndex:
    """An index too long for one page: its first page, the pages of the other rows, and every row."""

    first: IndexPage
    others: tuple[IndexPage, ...]
    every_row: tuple[tuple[Markup, ...], ...]


def split_index(context: SiteContext, view: IndexPage, rows_per_page: int = INDEX_FILE_ROWS) -> SplitIndex | None:
    """An index in pages of `rows_per_page` rows, in the order the index lists them (None when one page
    holds them all). Each page is a plain table that links to every other page, so a reader without
    scripts reaches every row; the first keeps the filters, which the script runs over every row
    (links.index_rows_file). The pages sit beside the index, so the rows' links hold on each."""
    count = len(view.rows)
    if count <= rows_per_page:
        return None
    chunks = tuple(view.rows[start:start + rows_per_page] for start in range(0, count, rows_per_page))

    def rows_of(number: int) -> str:
        return f"{view.noun} {(number - 1) * rows_per_page + 1:,}\u2013{min(number * rows_per_page, count):,}"

    def parts(number: int) -> Markup:
        """A link to each other page, named by its rows; this page's rows in bold."""
        links = Links(index_part(view.path, number), context)
        said = [Markup("<strong>") + plain(rows_of(other)) + Markup("</strong> (this page)") if other == number
                else links.to(index_part(view.path, other), rows_of(other)) for other in range(1, len(chunks) + 1)]
        return (plain(f"Pages of the index, {rows_per_page:,} {view.noun} each, {view.order}: ")
                + Markup(", ").join(said)
                + Markup(f'\n{{: .kb-pages role="navigation" aria-label="Pages of {attribute(view.called)}" }}'))

    # Raw HTML, which no site generator rewrites: relative to where the page is served (findings.md at
    # findings/ with directory URLs), not to its markdown.
    served_in = posixpath.dirname(built_path(view.path, context.settings.directory_urls)) or "."
    rows_file = posixpath.relpath(index_rows_file(view.path), served_in)
    first = replace(view, rows=chunks[0], parts=parts(1), rows_file=rows_file)
    others = tuple(
        IndexPage(path=index_part(view.path, number), title=f"{view.title}, page {number} of {len(chunks)}",
                  intro=plain(f"{rows_of(number).capitalize()} of {count:,}, {view.order}. ")
                  + Links(index_part(view.path, number), context).to(view.path, view.called.capitalize())
                  + plain(" filters and sorts all of them."),
                  columns=view.columns, rows=chunk, noun=view.noun, order=view.order, called=view.called,
                  search_excluded=True, parts=parts(number))
        for number, chunk in enumerate(chunks[1:], start=2))
    return SplitIndex(first, others, view.rows)


def _knob_row(context: SiteContext, links: Links, knob: Knob) -> tuple[Markup, ...]:
    knob = context.knob(knob.id) or knob  # asked, so that the row is made again when the knob changes
    gains = claimed_gains(knob)  # measured at its current value: other values' gains are history
    # Sorted by the improvement, not by the text: a latency cut reads '\u221226.2%' but ranks high.
    # Ranked as the home page's ledger ranks it (best_told_gain): a gain within noise is told as
    # such and sorts as no improvement.
    best = best_told_gain(gains, context.min_gain_pct())
    noisy = best_gain(gains) if best is None else None
    best_text = Markup(f'<span data-sort="{best.pct:.3f}">') + plain(describe_gains((best,))) + Markup("</span>") \
        if best else Markup('<span data-sort="0">') + plain(f"within noise: {describe_gains((noisy,))}") \
        + Markup("</span>") if noisy else Markup()
    change = context.last_change(RecordKind.KNOB, knob.id)
    check = restore_check(knob, context.restore_verify_days(), context.min_gain_pct())
    row_facets = facets(reclaimable="yes" if context.reclaimable_knob(knob.id) is not None else "no",
                        restore=check.state.value if check is not None else "", owner=_owner_facet(knob.owners))
    return (row_facets + links.knob_in_table(knob.id), plain(knob.component or ""), badge("status", knob.status.value),
            running_cell(knob), value_code(knob.default) if knob.default is not None else Markup(),
            best_text, _last_change_cell(change), plain(", ".join(knob.tags)))


def _owner_facet(owners: tuple[str, ...]) -> str:
    """The owner filter's values for a row ('|' separates them; a record with none matches no owner)."""
    return "|".join(owner.replace("|", "/") for owner in owners)


def _last_change_cell(change: Change | None) -> Markup:
    """The record's own date (sorted by it) and what changed then, on a second line."""
    if change is None:
        return Markup()
    return (Markup(f'<span data-sort="{when_key(change.when).timestamp():.0f}">') + change_when(change)
            + Markup("</span>")
            + Markup('<br><span class="kb-aside">') + change_what(change, badges=False) + Markup("</span>"))


def incident_index_view(context: SiteContext, rows: tuple[Rows, Rows] | None = None) -> IndexPage:
    links = Links(INCIDENT_INDEX, context)
    incidents = sorted(context.incidents(), key=lambda i: (when_key(i.started), i.id), reverse=True)
    return IndexPage(
        path=INCIDENT_INDEX,
        title="Incidents",
        intro=f"{plural(len(incidents), 'incident')}{breakdown(Counter(i.status.value for i in incidents))}, "
              "newest first. Click a column to sort; filter by status, severity, owner, or whether a knob "
              "reverted under its hypotheses is still to restore.",
        columns=("Title", "Status", "Severity", "Started", "Resolved", "Root cause"),
        filters=("Status", "Severity", "Owner", "Still reverted"), noun="incidents", order="newest first",
        called="the incidents index",
        # _row calls `make` at once, in this turn of the loop (B023).
        rows=tuple(_row(context, rows, incident.id, lambda: _incident_row(context, links, incident))  # noqa: B023
                   for incident in incidents),
    )


def _incident_row(context: SiteContext, links: Links, incident: Incident) -> tuple[Markup, ...]:
    incident = context.incident(incident.id) or incident  # asked, so that the row is made again when it changes
    cause = links.root_cause(incident) or Markup()
    restorable = any(context.reclaimable_knob(reference) is not None
                     for reference, _ in knobs_reverted_under(context, incident.id))
    row_facets = facets(status=incident.status.value, still_reverted="yes" if restorable else "no",
                        owner=_owner_facet(incident.owners))
    return (row_facets + links.incident(incident.id), status_badge(context, incident),
            plain("" if incident.severity is None else incident.severity), when_cell(incident.started),
            when_cell(incident.resolved), cause)


def findings_view(context: SiteContext) -> IndexPage:
    """Every finding, errors first, each linked to the page that shows it (the home page summarises
    them by code and links here with the code's filter in the address)."""
    links = Links(FINDINGS_PAGE, context)
    findings = sorted(context.findings(), key=lambda f: (f.severity is not Severity.ERROR, f.sort_key))
    rows = []
    for item in findings:
        where = f"{item.path}:{item.line}" if item.line else item.path
        page = context.finding_page(item)
        rows.append((badge("severity", item.severity.value), links.to(page, where) if page else code(where),
                     code(item.code, nowrap=True), finding_message(item.message)))
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    return IndexPage(
        path=FINDINGS_PAGE,
        title="Findings",
        intro=(f"kb check reports {plural(errors, 'error')} and {plural(len(findings) - errors, 'warning')}. "
               "Each links to the page that shows it. Click a column to sort; filter by severity or code."
               if findings else "kb check reports nothing: all good."),
        columns=("Severity", "Where", "Code", "Message"),
        filters=("Severity", "Code"), noun="findings", order="errors first",
        called="the findings page",
        rows=tuple(rows),
    )
