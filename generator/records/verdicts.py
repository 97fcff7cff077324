"""The verdicts every stage asks of the records, each decided here once.

"Does this hypothesis still stand?", "does a revert under it rest on correlation alone?" and "is
this knob's revert still justified?" are answered by the functions below; the rules, the pages and
the authoring commands all call them, so a page can never say what the check does not. Model in,
verdicts out: no findings, no markup.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from .model import Catalog, last_revert
from .schema import Evidence, HistoryEntry, Hypothesis, Incident, Knob
from .vocabulary import EvidenceKind, HistoryStatus, HypothesisStatus, IncidentStatus, KnobStatus, Stance


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
class Revert:
    """A knob that stands reverted, and the incident and hypothesis its revert acted on (None when
    the revert names none, or names records that do not exist)."""

    knob: Knob
    entry: HistoryEntry
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
    def is_reclaimable(self) -> bool:
        """The hypothesis behind the revert no longer stands and nobody decided to keep it reverted."""
        verdict = self.standing
        return verdict is not None and not verdict.stands and not self.knob.keep_reverted

    @property
    def tests_open_hypothesis(self) -> bool:
        """The revert is a hypothesis test still running: its hypothesis is open."""
        return self.standing is Standing.OPEN and not self.knob.keep_reverted

    def review_due(self, overdue_days: int) -> date:
        """When the hypothesis test should be settled: the entry's `review_by`, else `overdue_days`
        after the revert."""
        if self.entry.review_by is not None:
            return day_of(self.entry.review_by)
        return day_of(self.entry.date) + timedelta(days=overdue_days)

    def is_overdue(self, today: date, overdue_days: int) -> bool:
        """A hypothesis test still running past its review date."""
        return self.tests_open_hypothesis and today > self.review_due(overdue_days)


def day_of(moment: date | datetime) -> date:
    return moment.date() if isinstance(moment, datetime) else moment


def current_revert(catalog: Catalog, knob: Knob) -> Revert | None:
    """The revert the knob stands on, if it stands reverted."""
    entry = last_revert(knob)
    if entry is None:
        return None
    return Revert(knob, entry, catalog.incidents.get(entry.incident or ""),
                  catalog.hypothesis(entry.incident, entry.hypothesis))


def current_reverts(catalog: Catalog) -> tuple[Revert, ...]:
    return tuple(r for r in (current_revert(catalog, knob) for knob in catalog.knobs.values()) if r is not None)


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
    incident = catalog.incidents.get(entry.incident or "")
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


def has_experiment(hypothesis: Hypothesis) -> bool:
    """Whether an experiment (for or against) is on record: the test a revert asks for was done."""
    return any(e.kind is EvidenceKind.EXPERIMENT for e in hypothesis.evidence)
