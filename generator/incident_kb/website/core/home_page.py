"""View data for the home page: what needs action, then what the knowledge base holds, in a page
that stays a few screens long at any number of records.

It leads with what needs action when something does: the knobs to restore, ranked by the gain at
stake (the first ten, then a link to all of them in the knobs index, sortable and filtered), the
restores not yet verified, and `kb check`'s findings summarised by code (a count each, a link to
each code's full list on the findings page). It always shows what the knowledge base holds (the
knobs with the largest gains, the newest incidents with their root cause and a lesson) and what
changed lately, and a line of links to each section at the top. Every list is cut at HOME_ROWS with
a link to the whole: at 10,000 records the page stays under 150 KB (bench/reading.py).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from markupsafe import Markup

from ...findings import Finding, Severity
from ...gains.verdicts import RestoreState, best_told_gain, claimed_gains, describe_reclaimed, restore_check
from ...records.by_record import by_record
from ...records.model import when_key
from ...records.schema import Hypothesis, Incident, Knob
from ...records.vocabulary import RecordKind
from ...rules.knob_rules import Reclaimable
from ...wording import plural
from .context import SiteContext
from .gain_views import RestoreRow, restore_rows
from .incident_pages import status_badge
from .links import FINDINGS_PAGE, INCIDENT_INDEX, KNOB_INDEX, TAGS_PAGE, Links
from .markup import code, finding_message, plain, record_inline
from .overview_pages import breakdown
from .page_parts import badge, change_what, change_when, running_cell, when_cell, when_text

RECENT_CHANGES = 15
HOME_ROWS = 10  # rows of each list before the link to the whole list


@dataclass(frozen=True)
class ReclaimRow:
    knob: Markup
    gains: Markup
    reverted: Markup
    why: Markup


@dataclass(frozen=True)
class FindingCodeRow:
    code: Markup
    severity: Markup
    count: Markup  # linked to the code's full list
    example: Markup  # where the first one is, and what it says


@dataclass(frozen=True)
class ChangeRow:
    when: Markup
    record: Markup
    what: Markup


@dataclass(frozen=True)
class KnobRow:
    knob: Markup
    status: Markup
    running: Markup
    gains: Markup


@dataclass(frozen=True)
class HomePage:
    path: str
    title: str
    intro: str
    jump: tuple[Markup, ...]  # a link to each section, with its count
    needs_action: bool  # something to reclaim or a finding: the page leads with it
    all_good: str  # said instead when nothing needs action
    reclaimable_intro: Markup
    reclaimable: tuple[ReclaimRow, ...]  # the most at stake first, at most HOME_ROWS
    restored_intro: Markup
    restored: tuple[RestoreRow, ...]  # the newest restores, at most HOME_ROWS
    findings_shown: bool  # kb check's findings have a section (not on a public site)
    findings_summary: Markup
    finding_codes: tuple[FindingCodeRow, ...]
    knobs_intro: Markup
    knobs: tuple[KnobRow, ...]
    incidents_intro: Markup
    incidents: tuple[Markup, ...]
    changes_note: str
    changes: tuple[ChangeRow, ...]
    browse: tuple[Markup, ...]
    search_excluded: bool = False  # set by pages when the page passes the search limit


def home_view(context: SiteContext) -> HomePage:
    links = Links(context.settings.home_path, context)
    knobs_all, incidents_all = context.knobs(), context.incidents()
    reclaimable_all = context.reclaimable()
    findings = context.findings()
    reclaimable_intro, reclaimable = _reclaimable(reclaimable_all, links)
    restored_intro, restored = _restored(context, knobs_all, links)
    findings_summary, finding_codes = _findings_by_code(context, findings, links)
    knobs_text = plural(len(knobs_all), "knob") + breakdown(Counter(k.status.value for k in knobs_all))
    incidents_text = plural(len(incidents_all), "incident") + breakdown(Counter(i.status.value for i in incidents_all))
    knobs, knobs_intro = _knob_overview(knobs_all, links, knobs_text, context.min_gain_pct())
    incidents, incidents_intro = _incident_overview(context, incidents_all, links, incidents_text)
    changes = tuple(
        ChangeRow(change_when(change),
                  links.knob_in_table(change.record_id) if change.kind is RecordKind.KNOB
                  else links.incident(change.record_id),
                  change_what(change))
        for change in context.recent_changes(RECENT_CHANGES))
    jump = tuple(part for part in (
        _jump("Reclaimable", "reclaimable-performance", len(reclaimable_all)) if reclaimable_all else None,
        _jump("Findings", "findings", len(findings)) if findings else None,
        _jump("Restored", "restored-knobs", None) if restored else None,
        _jump("Knobs", "knobs", len(knobs_all)),
        _jump("Incidents", "incidents", len(incidents_all)),
        _jump("Recent changes", "recent-changes", None),
    ) if part is not None)
    browse = (
        links.to(KNOB_INDEX, knobs_text),
        links.to(INCIDENT_INDEX, incidents_text),
    ) + ((links.to(TAGS_PAGE, "Tags") + Markup(": component, hardware, model, status"),)
         if context.settings.tags else ()) \
        + ((links.to(FINDINGS_PAGE, "Findings") + plain(f": every one of the {plural(len(findings), 'finding')}"),)
           if findings else ())
    return HomePage(
        path=context.settings.home_path,
        title=context.settings.home_title,
        intro="What was tuned and what it gains, the incidents that touched it and what they taught, "
              "and what changed lately.",
        jump=jump,
        needs_action=bool(reclaimable_all or findings),
        all_good="Nothing to reclaim and nothing to fix: no knob stays reverted under a hypothesis that "
                 "fell, and kb check reports no finding." if context.settings.findings else
                 "Nothing to reclaim: no knob stays reverted under a hypothesis that fell.",
        reclaimable_intro=reclaimable_intro,
        reclaimable=reclaimable,
        restored_intro=restored_intro,
        restored=restored,
        findings_shown=context.settings.findings,
        findings_summary=findings_summary,
        finding_codes=finding_codes,
        knobs_intro=knobs_intro,
        knobs=knobs,
        incidents_intro=incidents_intro,
        incidents=incidents,
        changes_note=("Newest first, on the dates the records give (a knob's status history, an incident's "
                      "start, timeline and resolution); each record's page says when it was committed."),
        changes=changes,
        browse=browse,
    )


def _jump(label: str, anchor: str, count: int | None) -> Markup:
    return (Markup(f'<a href="#{anchor}">') + plain(label + (f" ({count:,})" if count is not None else ""))
            + Markup("</a>"))


def _fallen_hypothesis(links: Links, incident: Incident, hypothesis: Hypothesis) -> Markup:
    return (Markup("hypothesis ") + links.hypothesis(incident.id, hypothesis.id) + Markup(" of ")
            + links.incident(incident.id) + Markup(" ") + badge("hypothesis", hypothesis.status.value))


def _at_stake(item: Reclaimable) -> tuple[bool, float, str]:
    """The most at stake first; knobs with nothing measured above noise last, by name."""
    stake = item.stake_pct
    return stake is None, -(stake or 0.0), item.knob.name.lower()


def _reclaimable(items: tuple[Reclaimable, ...], links: Links) -> tuple[Markup, tuple[ReclaimRow, ...]]:
    ranked = sorted(items, key=_at_stake)
    rows = tuple(
        ReclaimRow(links.knob_in_table(item.knob.id), plain(item.gains_text), when_cell(item.revert.date),
                   Markup("; ").join(_fallen_hypothesis(links, incident, hypothesis)
                                     for incident, hypothesis in item.hypotheses))
        for item in ranked[:HOME_ROWS])
    intro = plain(f"{plural(len(items), 'knob stays', 'knobs stay')} reverted although the hypothesis behind "
                  f"the revert no longer stands: restoring {'it' if len(items) == 1 else 'them'} reclaims the gains "
                  "below, the most at stake first.")
    if len(items) > HOME_ROWS:
        intro += plain(f" The {HOME_ROWS} with the most at stake; all {len(items):,}, sortable: ") + links.to(
            KNOB_INDEX, "the knobs index, reclaimable only", query="reclaimable=yes&sort=best-gain&order=descending") \
            + Markup(".")
    return intro, rows


def _restored(context: SiteContext, knobs: tuple[Knob, ...], links: Links) -> tuple[Markup, tuple[RestoreRow, ...]]:
    verify_days, floor = context.restore_verify_days(), context.min_gain_pct()
    checks = {knob.id: check for knob in knobs if (check := restore_check(knob, verify_days, floor)) is not None}
    if not checks:
        return Markup(), ()
    by_id = {knob.id: knob for knob in knobs}
    newest = sorted(checks, key=lambda knob_id: (when_key(checks[knob_id].entry.date), knob_id), reverse=True)
    rows = restore_rows((by_id[knob_id] for knob_id in newest[:HOME_ROWS]), links, verify_days, floor)
    states = Counter(check.state for check in checks.values())
    counts = Markup(", ").join(
        links.to(KNOB_INDEX, f"{states[state]:,} {_STATE_WORDS[state]}",
                 query=f"restore={state.value.replace(' ', '%20')}")
        for state in RestoreState if states[state])
    intro = plain("A restore reclaims a gain only when a measurement since shows it back. "
                  f"{plural(len(checks), 'knob stands', 'knobs stand')} restored: ") + counts + plain(
        f"; {'the newest' if len(checks) <= HOME_ROWS else f'the {HOME_ROWS} newest'} below.")
    return intro, rows


_STATE_WORDS = {
    RestoreState.VERIFIED: "verified",
    RestoreState.NOT_REPRODUCED: "measured but not reproduced",
    RestoreState.UNVERIFIED: "not yet verified",
}


def _findings_by_code(context: SiteContext, findings: tuple[Finding, ...], links: Links
                      ) -> tuple[Markup, tuple[FindingCodeRow, ...]]:
    """One row per finding code: its severity, how many, where the first is; errors first, then the
    most frequent. The findings page lists them all, filtered by code through its address."""
    if not findings:
        return plain("kb check reports nothing: all good."), ()
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    by_code: dict[tuple[str, Severity], list[Finding]] = {}
    for item in sorted(findings, key=lambda f: f.sort_key):
        by_code.setdefault((item.code, item.severity), []).append(item)
    ranked = sorted(by_code.items(), key=lambda kv: (kv[0][1] is not Severity.ERROR, -len(kv[1]), kv[0][0]))
    rows = []
    for (code_name, severity), items in ranked:
        first = items[0]
        where = f"{first.path}:{first.line}" if first.line else first.path
        page = context.finding_page(first)
        rows.append(FindingCodeRow(
            code(code_name, nowrap=True), badge("severity", severity.value),
            links.to(FINDINGS_PAGE, f"{len(items):,}", query=f"code={code_name}&severity={severity.value}"),
            (links.to(page, where) if page else code(where)) + Markup(": ")
            + finding_message(_first_sentence(first.message))))
    summary = plain(f"kb check reports {plural(errors, 'error')} and {plural(len(findings) - errors, 'warning')}, "
                    "by code below (each count links to its list); every one, sortable and filterable: ") \
        + links.to(FINDINGS_PAGE, "the findings page") + Markup(".")
    return summary, tuple(rows)


def _first_sentence(message: str) -> str:
    """A finding's message up to its first sentence's end, for a one-line example."""
    cut = message.find(". ")
    text = message if cut == -1 else message[:cut + 1]
    return text if len(text) <= 160 else text[:157].rstrip() + "…"


@by_record  # every knob ranked again after each save of a live preview
def _gain_rank(knob: Knob, floor: float) -> tuple[bool, float, str]:
    """The largest gain told from noise first (as the ledger and the knobs index rank), none last."""
    best = best_told_gain(claimed_gains(knob), floor)
    return best is None, -(best.pct if best is not None else 0.0), knob.name.lower()


def _knob_overview(every: tuple[Knob, ...], links: Links, counted: str,
                   floor: float) -> tuple[tuple[KnobRow, ...], Markup]:
    """The knobs with the largest gains first (those with none last), at most HOME_ROWS of them."""
    knobs = sorted(every, key=lambda knob: _gain_rank(knob, floor))
    if not knobs:
        return (), Markup("No knob recorded yet: <code>kb new knob</code> records one.")
    shown = knobs[:HOME_ROWS]
    rows = tuple(KnobRow(links.knob_in_table(knob.id), badge("status", knob.status.value), running_cell(knob),
                         plain(describe_reclaimed(claimed_gains(knob), floor)))
                 for knob in shown)
    which = "the largest gains first" if len(shown) == len(knobs) else f"the {len(shown)} with the largest gains"
    return rows, (plain(f"{counted}; {which}. ") + Markup("Every knob, sortable and filterable: ")
                  + links.to(KNOB_INDEX, "the knobs index") + Markup("."))


def _incident_overview(context: SiteContext, every: tuple[Incident, ...], links: Links, counted: str
                       ) -> tuple[tuple[Markup, ...], Markup]:
    """The newest incidents (at most HOME_ROWS): status, root cause, and the first lesson."""
    incidents = sorted(every, key=lambda i: (when_key(i.started), i.id), reverse=True)
    if not incidents:
        return (), Markup("No incident recorded yet: <code>kb new incident</code> records one.")
    lines = []
    for incident in incidents[:HOME_ROWS]:
        line = (links.incident(incident.id) + Markup(" ") + status_badge(context, incident)
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
