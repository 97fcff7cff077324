"""View data for an incident's page: sorted, formatted and linked for `templates/incident.md.j2`.

The heart of it is suspected vs actual: each hypothesis with its verdict, its evidence marked by
kind (a revert made on correlation alone is called out), the knob changes made under it, and the
confirmed root cause. Plain strings are escaped by the template environment; record text arrives
already made safe (`record_text`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from markupsafe import Markup

from ...gains.verdicts import claimed_gains, describe_reclaimed
from ...records.schema import FollowUp, Hypothesis, Incident
from ...records.verdicts import (
    Revert,
    RevertReason,
    Standing,
    Support,
    evidence_against,
    evidence_effect,
    incident_reference,
    support,
    supporting_evidence,
)
from ...records.vocabulary import HistoryStatus, RecordKind, split_reference
from ...wording import plural
from .context import SiteContext
from .links import Links, hypothesis_anchor, incident_page
from .markup import CAUSE_WEIGHT, NAME_WEIGHT, code, plain, record_block, record_inline, search_weight
from .page_parts import (
    Fact,
    badge,
    evidence_badge,
    finding_box,
    front_matter,
    last_changed_fact,
    page_tags,
    running_sentence,
    source_line,
    stance_badge,
    when_cell,
    when_text,
)


@dataclass(frozen=True)
class EvidenceRow:
    stance: Markup
    kind: Markup
    when: Markup
    text: Markup


@dataclass(frozen=True)
class HypothesisView:
    anchor: str
    heading: str
    status: Markup
    statement: Markup
    suspect: Markup | None
    evidence: tuple[EvidenceRow, ...]
    warning: Markup | None  # e.g. acted on with correlation alone
    changes: tuple[Markup, ...]  # knob status changes made under it
    overview: tuple[Markup, ...]  # the row of the suspected-vs-actual table


@dataclass(frozen=True)
class StillReverted:
    """A knob that stands reverted under the incident's hypotheses, and what to do about it."""

    knob: Markup
    under: Markup  # since when, under which of the incident's hypotheses (with their verdicts)
    gains: Markup  # what restoring it reclaims
    runs: Markup  # what runs meanwhile (its default), and the tuned value
    action: Markup  # the restore command, or why it stays reverted
    reclaimable: bool


@dataclass(frozen=True)
class IncidentPage:
    path: str
    title: str
    tags: tuple[str, ...]  # as page_tags gives them
    status: Markup  # the status, and the knobs still to restore: 'resolved, 1 knob still reverted'
    lead: tuple[str, ...]  # beside the status: when it started and was resolved
    still_reverted: tuple[StillReverted, ...]  # the loop to close, on top of the page
    still_reverted_title: str
    still_reverted_kind: str  # the box: 'danger' when a knob is to restore, else 'note'
    facts: tuple[Fact, ...]
    findings: tuple[Markup, ...]
    summary: Markup | None
    symptoms: tuple[Markup, ...]
    hypotheses: tuple[HypothesisView, ...]
    root_cause: Markup | None
    root_cause_summary: Markup | None
    timeline: tuple[tuple[Markup, Markup], ...]
    follow_ups: tuple[Markup, ...]
    lessons: tuple[Markup, ...]
    docs: tuple[Markup, ...]
    source: Markup
    search_excluded: bool = False  # set by pages when the page passes the search limit

    @property
    def front_matter(self) -> Markup:
        return front_matter(self.title, self.tags, boost=2, search_excluded=self.search_excluded)


def incident_view(context: SiteContext, incident: Incident) -> IncidentPage:
    incident = context.incident(incident.id) or incident  # asked like any other read: the page's first input
    path = incident_page(incident.id)
    links = Links(path, context)
    tags = [f"status: {incident.status.value}"]
    if incident.severity is not None:
        tags.append(f"severity: {incident.severity}")
    cause = incident.root_cause
    still = tuple(_still_reverted(context, links, incident, reference, revert)
                  for reference, revert in knobs_reverted_under(context, incident.id))
    restorable = sum(1 for item in still if item.reclaimable)
    return IncidentPage(
        path=path,
        tags=page_tags(tags),
        title=incident.title,
        status=status_badge(context, incident),
        lead=tuple(f"{label} {when_text(moment)}" for label, moment in (("started", incident.started),
                                                                         ("resolved", incident.resolved)) if moment),
        still_reverted=tuple(sorted(still, key=lambda item: not item.reclaimable)),
        still_reverted_kind="danger" if restorable else "note",
        still_reverted_title=(f"{plural(restorable, 'knob')} to restore: still reverted under this incident's "
                              "hypotheses although they fell" if restorable else
                              f"{plural(len(still), 'knob stays', 'knobs stay')} reverted under this incident's "
                              "hypotheses"),
        facts=(*_incident_facts(context, incident),
               *last_changed_fact(context.last_change(RecordKind.INCIDENT, incident.id),
                                 context.committed_as(RecordKind.INCIDENT, incident.id))),
        findings=tuple(finding_box(f) for f in context.findings_of(RecordKind.INCIDENT, incident.id)),
        summary=record_block(incident.summary) if incident.summary else None,
        symptoms=tuple(record_inline(s) for s in incident.symptoms),
        hypotheses=tuple(_hypothesis_view(context, links, incident, h) for h in incident.hypotheses),
        root_cause=_weighted(links.root_cause(incident)),
        root_cause_summary=search_weight(record_block(cause.summary), CAUSE_WEIGHT, block=True)
        if cause and cause.summary else None,
        timeline=tuple((when_cell(e.at), record_inline(e.event)) for e in incident.timeline),
        follow_ups=tuple(_incident_follow_up(links, item) for item in incident.follow_ups),
        lessons=tuple(record_inline(lesson) for lesson in incident.lessons),
        docs=tuple(links.repo_file(doc) for doc in context.docs_of(RecordKind.INCIDENT, incident.id)),
        source=source_line(context.settings, context.source_path(RecordKind.INCIDENT, incident.id)),
    )


def _weighted(cause: Markup | None) -> Markup | None:
    return search_weight(cause, CAUSE_WEIGHT) if cause is not None else None


def status_badge(context: SiteContext, incident: Incident) -> Markup:
    """The incident's status, which is not green while a knob reverted under its hypotheses is one
    to restore: 'resolved, 1 knob still reverted' (the check's verdict decides which knobs). A knob
    kept reverted on purpose although the hypotheses it was reverted under fell is no alarm, but no
    silent green either: 'resolved, 1 knob kept reverted', in grey."""
    reverts = knobs_reverted_under(context, incident.id)
    restorable = sum(1 for reference, _ in reverts if context.reclaimable_knob(reference) is not None)
    status = incident.status.value
    if restorable:
        return badge("status", "still-reverted", f"{status}, {plural(restorable, 'knob')} still reverted")
    kept = sum(1 for reference, revert in reverts if revert.knob.keep_reverted and all(
        reason.has_fallen for reason in _reasons_here(context, incident.id, reference, revert)))
    if kept:
        return badge("status", "kept-reverted", f"{status}, {plural(kept, 'knob')} kept reverted")
    return badge("status", status)


def knobs_reverted_under(context: SiteContext, incident_id: str) -> tuple[tuple[str, Revert], ...]:
    """Every knob standing reverted under the incident's hypotheses, with its reference from here:
    this knowledge base's by id, then (on an org site) the others' ('payments:db-pool-size')."""
    return (*((revert.knob.id, revert) for revert in context.reverts_under(incident_id)),
            *context.reverts_from_neighbours(incident_id))


def _reasons_here(context: SiteContext, incident_id: str, reference: str, revert: Revert) -> list[RevertReason]:
    """The knob's reverts under this incident (not another knowledge base's of the same id)."""
    written_in = split_reference(reference)[0]
    return [reason for reason in revert.reasons if reason.incident is not None
            and incident_reference(reason, context.kb_name, written_in) == incident_id]


def _still_reverted(context: SiteContext, links: Links, incident: Incident, reference: str,
                    revert: Revert) -> StillReverted:
    knob = revert.knob
    written_in = split_reference(reference)[0]
    here = _reasons_here(context, incident.id, reference, revert)
    # Each revert on its own date (a knob reverted under another incident first was reverted under
    # this one later), and since when the knob is out when that was earlier.
    def named(reason: RevertReason) -> Markup:
        if reason.hypothesis is None:
            return plain("this incident (no hypothesis named)")
        return (Markup("hypothesis ") + links.to(incident_page(incident.id), reason.hypothesis.id,
                                                 hypothesis_anchor(reason.hypothesis.id))
                + Markup(" ") + badge("hypothesis", reason.hypothesis.status.value))
    if len({reason.entry.date for reason in here}) == 1:
        under = plain(f"reverted {when_text(here[0].entry.date)} under ") + Markup("; ").join(map(named, here))
    else:
        under = Markup("reverted ") + Markup("; ").join(
            plain(f"{when_text(reason.entry.date)} under ") + named(reason) for reason in here)
    first = revert.first
    first_incident = incident_reference(first, context.kb_name, written_in) if first.incident is not None else None
    if first not in here:
        under += plain(f" (out since {when_text(first.entry.date)}") + (
            Markup(", reverted under ") + links.incident(first_incident) + plain(" first)")
            if first_incident is not None else plain(")"))
    item = context.reclaimable_knob(reference)
    if item is not None and written_in is not None:  # another knowledge base's: restored in its repository
        gains = plain(item.gains_text)
        action = (plain(f"Restore it in knowledge base {written_in}: ") + code(f"kb restore {knob.id}")
                  + plain(" (its page says whether another incident still suspects it)."))
    elif item is not None:
        gains = plain(item.gains_text)
        action = Markup("Restore it: ") + code(f"kb restore {knob.id}") + Markup("").join(
            Markup(" Incident ") + links.incident(s.incident_reference)
            + plain(f" is still {s.incident.status.value} and suspects it too (hypothesis ")
            + links.hypothesis(s.incident_reference, s.hypothesis.id)
            + plain(", open): settle that before restoring, or restore it knowing so.")
            for s in item.elsewhere)
    else:
        gains = plain(describe_reclaimed(claimed_gains(knob), context.min_gain_pct(written_in)))
        action = _why_it_stays(context, links, written_in, revert)
    return StillReverted(links.knob(reference), under, gains, running_sentence(knob), action, item is not None)


def _why_it_stays(context: SiteContext, links: Links, written_in: str | None, revert: Revert) -> Markup:
    """Why a knob reverted under the incident is not one to restore (the check decided it is not);
    `written_in`: the knob's knowledge base when another's."""
    if revert.knob.keep_reverted:
        return Markup("Kept reverted on purpose: ") + record_inline(revert.knob.keep_reverted)
    for reason in revert.reasons:
        if reason.hypothesis is None or reason.incident is None:
            return plain("Stays reverted: one of its reverts names no hypothesis to test.")
        standing = reason.standing
        where = links.hypothesis(incident_reference(reason, context.kb_name, written_in) or reason.incident.id,
                                 reason.hypothesis.id)
        if standing is Standing.OPEN:
            return Markup("Still a hypothesis test: ") + where + plain(" is open.")
        if standing is Standing.CONFIRMED:
            return Markup("Stays reverted: ") + where + plain(" was confirmed.")
    return plain("Stays reverted.")


def _incident_facts(context: SiteContext, incident: Incident) -> Iterable[Fact]:
    yield Fact("Status", status_badge(context, incident))
    if incident.severity is not None:
        yield Fact("Severity", badge("severity", str(incident.severity)))
    yield Fact("Started", plain(when_text(incident.started)))
    if incident.resolved is not None:
        yield Fact("Resolved", plain(when_text(incident.resolved)))
    if incident.systems:
        yield Fact("Systems", Markup("; ").join(record_inline(s) for s in incident.systems))
    yield Fact("Id", search_weight(code(incident.id), NAME_WEIGHT))


def _hypothesis_view(context: SiteContext, links: Links, incident: Incident, hypothesis: Hypothesis) -> HypothesisView:
    cause = incident.root_cause
    is_cause = cause is not None and cause.hypothesis == hypothesis.id
    status = hypothesis.status.value
    heading = f"{status.capitalize()}{' (root cause)' if is_cause else ''}: {hypothesis.id}"
    # This knowledge base's knobs changed under the hypothesis, then (on an org site) other knowledge
    # bases' ('payments:db-pool-size'), each with the reference its link resolves
    changes = [*((knob.id, knob, entry) for knob, entry in context.changes_under(incident.id, hypothesis.id)),
               *context.changes_from_neighbours(incident.id, hypothesis.id)]
    supporting = supporting_evidence(hypothesis)
    basis = support(hypothesis)
    reverted = list(dict.fromkeys(ref for ref, _, entry in changes if entry.status is HistoryStatus.REVERTED))
    warning = None
    if basis.is_weak and reverted:
        names = Markup(", ").join(links.knob(knob_id) for knob_id in reverted)
        if basis is Support.CORRELATION_ONLY:
            warning = Markup("Reverted on correlation alone: ") + names + Markup(
                " was reverted under this hypothesis while the only evidence for it was correlation.")
        else:
            warning = Markup("Reverted without evidence: ") + names + Markup(
                " was reverted under this hypothesis while no evidence supported it.")
    elif basis is Support.CORRELATION_ONLY:
        warning = Markup("The only evidence for this hypothesis is correlation.")
    suspect = links.knob(hypothesis.suspect.knob) if hypothesis.suspect else None
    change_lines = tuple(
        plain(when_text(entry.date)) + Markup(" ") + badge("status", entry.status.value) + Markup(" ")
        + links.knob(ref)
        + (Markup(": ") + record_inline(entry.note) if entry.note else Markup())
        for ref, _, entry in changes)
    # The overview's changes name their knob unless every one is of the knob the hypothesis suspects
    # (named beside them): 'reverted 2026-10-02' four times would not say which knob stays reverted.
    named = any(hypothesis.suspect is None or ref != hypothesis.suspect.knob for ref, _, _ in changes)
    against = len(evidence_against(hypothesis))
    evidence = (f"{len(supporting)} for{' (correlation only)' if basis is Support.CORRELATION_ONLY else ''}, "
                f"{against} against")
    overview = (
        links.to(incident_page(incident.id), hypothesis.id, hypothesis_anchor(hypothesis.id)),
        badge("hypothesis", status) + (Markup(" root cause") if is_cause else Markup()),
        suspect if suspect is not None else Markup("—"),
        plain(evidence),
        Markup("<br>").join(badge("status", entry.status.value) + Markup(" ") + when_cell(entry.date)
                            + (Markup(" ") + links.knob(ref) if named else Markup())
                            for ref, _, entry in changes) or Markup("—"),
    )
    return HypothesisView(
        anchor=hypothesis_anchor(hypothesis.id),
        heading=heading,
        status=badge("hypothesis", status),
        statement=record_inline(hypothesis.statement),
        suspect=suspect,
        evidence=tuple(EvidenceRow(stance_badge(e.stance, evidence_effect(incident, hypothesis, e)),
                                   evidence_badge(e.kind), when_cell(e.date), record_inline(e.text))
                       for e in hypothesis.evidence),
        warning=warning,
        changes=change_lines,
        overview=overview,
    )


def _incident_follow_up(links: Links, item: FollowUp) -> Markup:
    knob = Markup(" · ") + links.knob(item.knob) if item.knob else Markup()
    owner = Markup(" (") + plain(item.owner) + Markup(")") if item.owner else Markup()
    return badge("follow-up", item.status.value) + Markup(" ") + record_inline(item.action) + owner + knob
