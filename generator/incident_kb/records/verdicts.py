"""The verdicts every stage asks of the records, each decided here once.

"Does this hypothesis still stand?", "does a revert under it rest on correlation alone?", "is
this knob's revert still justified?" and "what does the evidence since the revert say?" are
answered by the functions below ("does this deploy file agree with the knob?" by
`deploy/verdict.py`); the rules, the pages and the authoring commands all call them, so a page can
never say what the check does not. Model in, verdicts out: no findings, no markup.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from .model import Catalog, Suspicion, standing_revert_indexes, when_key
from .schema import Evidence, HistoryEntry, Hypothesis, Incident, Knob
from .vocabulary import (
    KB_NAME_SEPARATOR,
    EvidenceKind,
    HistoryStatus,
    HypothesisStatus,
    IncidentStatus,
    KnobStatus,
    Stance,
    split_reference,
)


class Standing(enum.Enum):
    """What became of a hypothesis."""

    OPEN = "open"  # still suspected
    CONFIRMED = "confirmed"
    REFUTED = "refuted"
    SUPERSEDED = "superseded"  # never refuted, but the incident was resolved on another root cause

    @property
    def stands(self) -> bool:
        """Whether the hypothesis can still justify acting on it."""
        return self in (Standing.OPEN, Standing.CONFIRMED)


def standing(incident: Incident, hypothesis: Hypothesis) -> Standing:
    if hypothesis.status is HypothesisStatus.REFUTED:
        return Standing.REFUTED
    if hypothesis.status is HypothesisStatus.CONFIRMED:
        return Standing.CONFIRMED
    cause = incident.root_cause
    if incident.status is IncidentStatus.RESOLVED and cause is not None and cause.hypothesis != hypothesis.id:
        return Standing.SUPERSEDED
    return Standing.OPEN


class Support(enum.Enum):
    """How well the evidence for a hypothesis supports it."""

    NONE = "none"  # no evidence for it at all
    CORRELATION_ONLY = "correlation only"
    STRONGER = "stronger"  # at least one experiment, observation or report for it

    @property
    def is_weak(self) -> bool:
        """Too weak to act on: a revert made on it is a guess, not a test result."""
        return self is not Support.STRONGER


def supporting_evidence(hypothesis: Hypothesis) -> tuple[Evidence, ...]:
    return tuple(e for e in hypothesis.evidence if e.stance is Stance.FOR)


def evidence_against(hypothesis: Hypothesis) -> tuple[Evidence, ...]:
    return tuple(e for e in hypothesis.evidence if e.stance is Stance.AGAINST)


def support(hypothesis: Hypothesis) -> Support:
    supporting = supporting_evidence(hypothesis)
    if not supporting:
        return Support.NONE
    if all(e.kind is EvidenceKind.CORRELATION for e in supporting):
        return Support.CORRELATION_ONLY
    return Support.STRONGER


@dataclass(frozen=True, slots=True)
class RevertReason:
    """One hypothesis a knob stands reverted under: a `reverted` entry of its history, with the
    incident and hypothesis it names (None when it names none, or names records that do not exist)."""

    entry: HistoryEntry
    index: int  # the entry's place in the knob's history
    incident: Incident | None
    hypothesis: Hypothesis | None

    @property
    def standing(self) -> Standing | None:
        if self.incident is None or self.hypothesis is None:
            return None
        return standing(self.incident, self.hypothesis)

    @property
    def is_explained(self) -> bool:
        """The revert names the incident and hypothesis behind it."""
        return self.entry.incident is not None and self.entry.hypothesis is not None

    @property
    def has_fallen(self) -> bool:
        """Its hypothesis is known and no longer stands (refuted, or another root cause found)."""
        verdict = self.standing
        return verdict is not None and not verdict.stands

    @property
    def is_open(self) -> bool:
        return self.standing is Standing.OPEN

    def review_due(self, overdue_days: int) -> date:
        """When the hypothesis test should be settled: the entry's `review_by`, else `overdue_days`
        after the revert (days of the record's own zone)."""
        if self.entry.review_by is not None:
            return day_of(self.entry.review_by)
        return day_of(self.entry.date) + timedelta(days=overdue_days)


@dataclass(frozen=True, slots=True)
class Revert:
    """A knob that stands reverted, and every hypothesis it stands reverted under: the `reverted`
    entries since it was last active (a revert can be the test of several hypotheses, of several
    incidents), oldest first. The order they were written in never changes a verdict."""

    knob: Knob
    reasons: tuple[RevertReason, ...]  # at least one

    @property
    def first(self) -> RevertReason:
        """The entry that took the knob out: the date it stands reverted since."""
        return self.reasons[0]

    @property
    def latest(self) -> RevertReason:
        return self.reasons[-1]

    # The latest reason's entry, incident and hypothesis: the whole story when there is one reason.
    @property
    def entry(self) -> HistoryEntry:
        return self.latest.entry

    @property
    def incident(self) -> Incident | None:
        return self.latest.incident

    @property
    def hypothesis(self) -> Hypothesis | None:
        return self.latest.hypothesis

    @property
    def standing(self) -> Standing | None:
        return self.latest.standing

    @property
    def is_explained(self) -> bool:
        """Every revert entry names the incident and hypothesis behind it."""
        return all(reason.is_explained for reason in self.reasons)

    @property
    def is_reclaimable(self) -> bool:
        """Every hypothesis the knob stands reverted under has fallen, and nobody decided to keep it
        reverted: one that still stands (open or confirmed), or an unexplained revert, keeps it out."""
        return all(reason.has_fallen for reason in self.reasons) and not self.knob.keep_reverted

    @property
    def open_reasons(self) -> tuple[RevertReason, ...]:
        """The hypothesis tests still running: reasons whose hypothesis is open (none when the knob
        is kept reverted on purpose)."""
        if self.knob.keep_reverted:
            return ()
        return tuple(reason for reason in self.reasons if reason.is_open and reason.hypothesis is not None)

    def review_due(self, overdue_days: int) -> date:
        """The latest reason's review date (see `RevertReason.review_due`)."""
        return self.latest.review_due(overdue_days)

    def overdue_reasons(self, today: date, overdue_days: int) -> tuple[RevertReason, ...]:
        """The hypothesis tests still running past their review date."""
        return tuple(reason for reason in self.open_reasons if today > reason.review_due(overdue_days))

    def is_overdue(self, today: date, overdue_days: int) -> bool:
        return bool(self.overdue_reasons(today, overdue_days))

    def names(self, incident_id: str | None, hypothesis_id: str | None) -> bool:
        """Whether the knob stands reverted under this hypothesis already."""
        return any((r.entry.incident, r.entry.hypothesis) == (incident_id, hypothesis_id) for r in self.reasons)


def day_of(moment: date | datetime) -> date:
    """The day of a date, or of a date-time in the zone it was written in."""
    return moment.date() if isinstance(moment, datetime) else moment


def current_revert(catalog: Catalog, knob: Knob, written_in: str | None = None) -> Revert | None:
    """The revert the knob stands on, if it stands reverted: every hypothesis it stands reverted under.
    `written_in`: the knob is another knowledge base's of the organisation, of that name (its plain
    ids name that one's records), judged from `catalog` as its own check judges it."""
    indexes = standing_revert_indexes(knob)
    if not indexes:
        return None
    reasons = []
    for i in indexes:
        incident = seen_from(knob.history[i].incident, written_in)
        reasons.append(RevertReason(knob.history[i], i, catalog.incident(incident),
                                    catalog.hypothesis(incident, knob.history[i].hypothesis)))
    return Revert(knob, tuple(reasons))


def seen_from(reference: str | None, written_in: str | None) -> str | None:
    """A reference written in knowledge base `written_in`'s record (None: this one's), as this one
    resolves it: a plain id there names that knowledge base's record ('edge-outage' -> 'platform:edge-outage')."""
    if reference is None or written_in is None or split_reference(reference)[0] is not None:
        return reference
    return f"{written_in}{KB_NAME_SEPARATOR}{reference}"


def incident_reference(reason: RevertReason, here: str | None, written_in: str | None = None) -> str | None:
    """The incident a revert names, as knowledge base `here` (None: one alone) names it: a plain id
    when it is one of its own, else `NAME:ID` (None when the revert names none)."""
    reference = seen_from(reason.entry.incident, written_in)
    if reference is None:
        return None
    kb_name, incident_id = split_reference(reference)
    return incident_id if kb_name is None or kb_name == here else reference


def reverted_here(revert: Revert, here: str | None, written_in: str | None = None) -> tuple[str, ...]:
    """The ids of knowledge base `here`'s own incidents the knob stands reverted under (a revert under
    another knowledge base's incident of the same id is not one of them), once each, oldest first."""
    found = (incident_reference(reason, here, written_in) for reason in revert.reasons if reason.incident is not None)
    return tuple(dict.fromkeys(ref for ref in found if ref is not None and KB_NAME_SEPARATOR not in ref))


def current_reverts(catalog: Catalog) -> tuple[Revert, ...]:
    return tuple(r for r in (current_revert(catalog, knob) for knob in catalog.knobs.values()) if r is not None)


def still_suspected_elsewhere(catalog: Catalog, revert: Revert) -> tuple[Suspicion, ...]:
    """Open hypotheses of incidents not yet resolved that suspect the knob, besides those it stands
    reverted under: a restore must reckon with them."""
    return tuple(item for item in catalog.suspicions(revert.knob.id)
                 if item.incident.status is not IncidentStatus.RESOLVED
                 and standing(item.incident, item.hypothesis) is Standing.OPEN
                 and not revert.names(item.incident.id, item.hypothesis.id)
                 and not any(reason.hypothesis is item.hypothesis for reason in revert.reasons))  # NAME:ID


@dataclass(frozen=True, slots=True)
class UnsettledChange:
    """A knob whose current value or status was set by a change (not a restore, not a revert: a
    revert is `Revert`'s) made under a hypothesis that has since fallen, and not reviewed since:
    the change was made to fix something that turned out not to be the cause."""

    knob: Knob
    entry: HistoryEntry
    incident: Incident
    hypothesis: Hypothesis
    standing: Standing
    previous_value: object | None  # the value before the change, when the history records it


def unsettled_change(catalog: Catalog, knob: Knob) -> UnsettledChange | None:
    """The change the knob stands on, if it was made under a hypothesis that no longer stands.
    Any later history entry (a `kb set` that records why the value stays) settles it."""
    if knob.status is KnobStatus.REVERTED:
        return None
    entry = knob.history[-1]
    if entry.status in (HistoryStatus.RESTORED, HistoryStatus.REVERTED):
        return None
    incident = catalog.incident(entry.incident)
    hypothesis = catalog.hypothesis(entry.incident, entry.hypothesis)
    if incident is None or hypothesis is None:
        return None
    verdict = standing(incident, hypothesis)
    if verdict.stands:
        return None
    if entry.value is not None and entry.value != knob.value:
        return None  # the value was changed by hand since: this entry no longer set it
    previous = next((e.value for e in reversed(knob.history[:-1]) if e.value is not None), None)
    return UnsettledChange(knob, entry, incident, hypothesis, verdict, previous)


class EvidenceEffect(enum.Enum):
    """What a piece of evidence turned out to be, once its hypothesis was settled."""

    PENDING = "pending"  # the hypothesis is still open
    BORNE_OUT = "borne-out"  # it pointed the way the verdict went
    MISLEADING = "misleading"  # it pointed the other way


def evidence_effect(incident: Incident, hypothesis: Hypothesis, evidence: Evidence) -> EvidenceEffect:
    verdict = standing(incident, hypothesis)
    if verdict is Standing.OPEN:
        return EvidenceEffect.PENDING
    agrees = (evidence.stance is Stance.FOR) == (verdict is Standing.CONFIRMED)
    return EvidenceEffect.BORNE_OUT if agrees else EvidenceEffect.MISLEADING


# How much a piece of evidence weighs when the evidence since a revert disagrees: a controlled
# experiment over what was observed, over what someone reported, over a coincidence in time.
STRENGTH: dict[EvidenceKind, int] = {EvidenceKind.CORRELATION: 0, EvidenceKind.REPORT: 1,
                                     EvidenceKind.OBSERVATION: 2, EvidenceKind.EXPERIMENT: 3}


@dataclass(frozen=True, slots=True)
class TestReading:
    """What the evidence since a revert says about the hypothesis the revert tests: every dated
    piece on or after it, and the one that decides (the strongest kind, then the newest, then the
    one written last)."""

    decisive: Evidence
    against: tuple[Evidence, ...]
    supporting: tuple[Evidence, ...]

    @property
    def failed(self) -> bool:
        """Read as a hypothesis test, the revert failed: the deciding evidence speaks against it."""
        return self.decisive.stance is Stance.AGAINST


def is_since(moment: date | datetime, since: date | datetime) -> bool:
    """`moment` is on or after `since`: by day when either is a plain date (each in its own zone),
    else by the moment."""
    if not isinstance(moment, datetime) or not isinstance(since, datetime):
        return day_of(moment) >= day_of(since)
    return when_key(moment) >= when_key(since)


def reading_since(hypothesis: Hypothesis, since: date | datetime) -> TestReading | None:
    """The evidence on the hypothesis dated on or after `since` (a revert's date), weighed; None when
    there is none."""
    dated = [(i, e) for i, e in enumerate(hypothesis.evidence) if e.date is not None and is_since(e.date, since)]
    if not dated:
        return None
    _, decisive = max(dated, key=lambda item: (STRENGTH[item[1].kind], when_key(item[1].date or since), item[0]))
    return TestReading(decisive, tuple(e for _, e in dated if e.stance is Stance.AGAINST),
                       tuple(e for _, e in dated if e.stance is Stance.FOR))


def has_experiment(hypothesis: Hypothesis) -> bool:
    """Whether an experiment (for or against) is on record: the test a revert asks for was done."""
    return any(e.kind is EvidenceKind.EXPERIMENT for e in hypothesis.evidence)

