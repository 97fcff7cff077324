"""View data for a knob's page: sorted, formatted and linked for `templates/knob.md.j2`.

Everything the page shows is decided here: what the knob gains, which incidents suspected it and
what became of that (exonerated, confirmed, still open), its status history with the incident and
hypothesis behind each change. Plain strings are escaped by the template environment; record text
arrives already made safe (`record_text`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from markupsafe import Markup

from ...deploy.patterns import deploy_pattern, value_text
from ...records.model import Suspicion as Suspected, running_setting
from ...records.schema import Evidence, FollowUp, HistoryEntry, Incident, Knob
from ...records.verdicts import Standing, evidence_against, standing
from ...records.vocabulary import KnobStatus, RecordKind
from .changes import Change, knob_changes
from .context import SiteContext
from .gain_views import METHOD_NOTE, gain_notes, gains_glance, gains_table
from .links import Links, knob_page
from .markup import NAME_WEIGHT, code, plain, record_block, record_inline, search_weight
from .page_parts import (
    Fact,
    Table,
    badge,
    evidence_badge,
    finding_box,
    front_matter,
    last_changed_fact,
    page_tags,
    source_line,
    value_code,
    when_text,
)


@dataclass(frozen=True)
class ChartView:
    light_file: str
    dark_file: str
    light_svg: str
    dark_svg: str
    image: Markup  # the markdown that shows the right variant for the reader's colour scheme


@dataclass(frozen=True)
class HistoryItem:
    when: str
    status: Markup
    cause: Markup
    note: Markup


@dataclass(frozen=True)
class Suspicion:
    """A hypothesis that blamed the knob, and what became of it."""

    incident: Markup
    hypothesis: Markup
    statement: Markup
    verdict: Markup
    reasons: tuple[Markup, ...]  # the evidence against it
    actual_cause: Markup | None


@dataclass(frozen=True)
class KnobPage:
    path: str
    title: str
    tags: tuple[str, ...]  # as page_tags gives them
    knob_id: str
    lead: Markup  # status and the tuned setting, the first line under the title
    summary: Markup
    glance: tuple[Fact, ...]  # the answers people come for: what it gains, was it suspected
    facts: tuple[Fact, ...]  # the details, after the story
    findings: tuple[Markup, ...]
    gains: Table | None
    gain_notes: tuple[Markup, ...]  # the method of the intervals first, when there is a table
    chart: ChartView | None
    history: tuple[HistoryItem, ...]
    suspicions: tuple[Suspicion, ...]
    follow_ups: tuple[Markup, ...]
    description: Markup | None
    docs: tuple[Markup, ...]
    source: Markup
    search_excluded: bool = False  # set by pages when the page passes the search limit

    @property
    def front_matter(self) -> Markup:
        return front_matter(self.title, self.tags, boost=2, search_excluded=self.search_excluded)


def knob_view(context: SiteContext, knob: Knob) -> KnobPage:
    knob = context.knob(knob.id) or knob  # asked like any other read: the page's first input
    path = knob_page(knob.id)
    links = Links(path, context)
    chart = _chart_view(context, knob)
    tags = [f"status: {knob.status.value}"]
    if knob.component:
        tags.append(f"component: {knob.component}")
    tags += [f"{key}: {knob.scope[key]}" for key in ("hardware", "model") if key in knob.scope]
    tags += list(knob.tags)
    suspicions = tuple(_suspicion(context, links, item) for item in context.suspicions(knob.id))
    floor = context.min_gain_pct()
    return KnobPage(
        path=path,
        tags=page_tags(tags),
        title=knob.name,
        knob_id=knob.id,
        lead=_lead(knob),
        summary=record_inline(knob.summary),
        glance=tuple(_glance(knob, suspicions, floor)),
        facts=(*_knob_facts(knob, links), *last_changed_fact(context.last_change(RecordKind.KNOB, knob.id),
                                 context.committed_as(RecordKind.KNOB, knob.id))),
        findings=tuple(finding_box(f) for f in context.findings_of(RecordKind.KNOB, knob.id)),
        gains=gains_table(knob, links, floor),
        gain_notes=(Markup(METHOD_NOTE), *gain_notes(knob, floor)) if knob.measurements else (),
        chart=chart,
        history=tuple(_history_item(context, links, entry, change)
                      for entry, change in reversed(list(zip(knob.history, knob_changes(knob))))),
        suspicions=suspicions,
        follow_ups=tuple(_follow_up(links, incident, item)
                         for incident, item in context.follow_ups_of(knob.id)),
        description=record_block(knob.description) if knob.description else None,
        docs=tuple(links.repo_file(doc) for doc in context.docs_of(RecordKind.KNOB, knob.id)),
        source=source_line(context.settings, context.source_path(RecordKind.KNOB, knob.id)),
    )


def _lead(knob: Knob) -> Markup:
    """The status and what runs, first: 'active SGLANG_..._CTAS=512 (default 256)'; a knob that does
    not run its tuned value: 'reverted · runs SGLANG_..._CTAS=256 (the default) · tuned value 512,
    which a restore brings back' (records.model.running_setting decides what runs)."""
    lead = badge("status", knob.status.value) + Markup(" ")
    running = running_setting(knob)
    if running.is_tuned:
        lead += value_code(knob.value, knob.name)
        if knob.default is not None:
            lead += Markup(" (default ") + value_code(knob.default) + Markup(")")
        return lead
    runs = (value_code(running.value, knob.name) + Markup(" (the default)") if running.value is not None
            else code(knob.name) + Markup(" unset: its default runs (not recorded)"))
    comes_back = _TUNED_BACK.get(knob.status, "")
    if running.value is not None and value_text(running.value) == value_text(knob.value):
        comes_back = ", the default itself: setting it changes nothing that runs"
    return lead + Markup("· runs ") + runs + Markup(" · tuned value ") + value_code(knob.value) + plain(comes_back)


_TUNED_BACK = {
    KnobStatus.REVERTED: ", which a restore brings back",
    KnobStatus.PROPOSED: ", not deployed yet",
    KnobStatus.RETIRED: ", no longer set",
}


def _knob_facts(knob: Knob, links: Links) -> Iterable[Fact]:
    yield Fact("Setting", search_weight(code(knob.name), NAME_WEIGHT)
               + (Markup(f" ({plain(knob.kind)})") if knob.kind else Markup()))
    yield Fact("Id", search_weight(code(knob.id), NAME_WEIGHT))
    if knob.aliases:
        yield Fact("Also called", search_weight(Markup(", ").join(code(a) for a in knob.aliases), NAME_WEIGHT))
    if knob.component:
        yield Fact("Component", plain(knob.component))
    for key, scope_value in knob.scope.items():
        yield Fact(f"Scope: {key}", plain(scope_value))
    if knob.applies_to:
        yield Fact("Deployed in", Markup(", ").join(
            links.repo_file(d.path) + _matching(deploy_pattern(knob, d)) for d in knob.applies_to))
    if knob.owners:
        yield Fact("Owners", Markup(", ").join(plain(o) for o in knob.owners))


def _matching(pattern: str | None) -> Markup:
    """How kb finds the setting in a deploy file: the record's own pattern, when it gives one."""
    return Markup(" (matching ") + code(pattern) + Markup(")") if pattern else Markup()


def _glance(knob: Knob, suspicions: tuple[Suspicion, ...], floor: float) -> Iterable[Fact]:
    yield Fact("Gains", gains_glance(knob, floor))
    for item in suspicions:
        yield Fact("Suspected in", item.incident + Markup(": ") + item.verdict)
    if knob.keep_reverted:
        yield Fact("Kept reverted because", record_inline(knob.keep_reverted))


def _chart_view(context: SiteContext, knob: Knob) -> ChartView | None:
    chart = context.chart(knob.id)
    if chart is None:
        return None
    light, dark = f"{knob.id}.gains.svg", f"{knob.id}.gains-dark.svg"  # beside the page: 'index' is fine too
    alt = plain(chart.description)
    image = Markup(f"![{alt}]({light}#only-light)\n![{alt}]({dark}#only-dark)")
    return ChartView(f"knobs/{light}", f"knobs/{dark}", chart.light, chart.dark, image)


def _history_item(context: SiteContext, links: Links, entry: HistoryEntry, change: Change) -> HistoryItem:
    cause = Markup()
    if entry.incident:
        cause = Markup("incident ") + links.incident(entry.incident)
        if entry.hypothesis:
            cause += Markup(", hypothesis ") + links.hypothesis(entry.incident, entry.hypothesis)
            hypothesis = context.hypothesis(entry.incident, entry.hypothesis)
            if hypothesis is not None:
                cause += Markup(" ") + badge("hypothesis", hypothesis.status.value)
    status = entry.status.value
    said = badge("status", status) + (plain(f", value {change.value_change}") if change.value_change else Markup())
    return HistoryItem(when_text(entry.date), said, cause,
                       record_inline(entry.note) if entry.note else Markup())


_VERDICTS = {
    Standing.REFUTED: "Exonerated: the hypothesis was refuted.",
    Standing.CONFIRMED: "Confirmed: this knob was the cause.",
    Standing.SUPERSEDED: "Not the cause: the incident was resolved on another root cause.",
    Standing.OPEN: "Still suspected: the hypothesis is open.",
}


def _suspicion(context: SiteContext, links: Links, item: Suspected) -> Suspicion:
    incident, hypothesis, reference = item.incident, item.hypothesis, item.incident_reference
    cause = incident.root_cause
    verdict = badge("hypothesis", hypothesis.status.value) + Markup(" " + _VERDICTS[standing(incident, hypothesis)])
    reasons = tuple(_evidence_line(e) for e in evidence_against(hypothesis))
    actual = links.root_cause(incident, reference) if cause is not None and cause.hypothesis != hypothesis.id else None
    return Suspicion(links.incident(reference), links.hypothesis(reference, hypothesis.id),
                     record_inline(hypothesis.statement), verdict, reasons, actual)


def _evidence_line(evidence: Evidence) -> Markup:
    when = f" {when_text(evidence.date)}" if evidence.date else ""
    return evidence_badge(evidence.kind) + plain(when) + Markup(": ") + record_inline(evidence.text)


def _follow_up(links: Links, incident: Incident, item: FollowUp) -> Markup:
    owner = Markup(" (") + plain(item.owner) + Markup(")") if item.owner else Markup()
    return badge("follow-up", item.status.value) + Markup(" ") + record_inline(item.action) + owner + \
        Markup(" · ") + links.incident(incident.id)
