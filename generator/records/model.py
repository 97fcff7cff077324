"""The knowledge base as read: validated records and the queries everything else asks of them.

Records are the frozen pydantic models of `schema.py`. The catalog answers questions about them
(which hypothesis a revert acted on, what a knob gains); it never reads files or reports findings.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Any

from .schema import HistoryEntry, HistoryStatus, Hypothesis, Incident, Knob, KnobStatus, Measurement
from .yaml_source import SourceMap


def when_key(moment: date | datetime) -> datetime:
    """A sort key that orders dates and date-times together (a date counts as its midnight)."""
    return moment if isinstance(moment, datetime) else datetime(moment.year, moment.month, moment.day)


@dataclass(frozen=True, slots=True)
class Gain:
    """A measured improvement, in percent, positive when the tuned value is better."""

    metric: str
    conditions: tuple[tuple[str, Any], ...]
    pct: float
    measurement: Measurement


def gain_of(measurement: Measurement) -> Gain | None:
    if measurement.invalid:
        return None
    if measurement.delta_pct is not None:
        pct = float(measurement.delta_pct)
        pct = pct if measurement.higher_is_better else -pct
    elif measurement.baseline is not None and measurement.value is not None and measurement.baseline != 0:
        change = (measurement.value - measurement.baseline) / abs(measurement.baseline) * 100
        pct = change if measurement.higher_is_better else -change
    else:
        return None
    return Gain(measurement.metric, tuple(measurement.conditions.items()), pct, measurement)


def knob_gains(knob: Knob) -> tuple[Gain, ...]:
    return tuple(g for g in map(gain_of, knob.measurements) if g is not None)


def describe_gains(gains: tuple[Gain, ...]) -> str:
    """'+12.8% output throughput at concurrency 64, +5.7% at 96': repeated words are said once."""
    parts = []
    previous: Gain | None = None
    for gain in gains:
        same_metric = previous is not None and previous.metric == gain.metric
        same_keys = same_metric and previous is not None and [k for k, _ in previous.conditions] == [k for k, _ in gain.conditions]
        text = f"{gain.pct:+.1f}%"
        if not same_metric:
            text += f" {gain.metric}"
        if gain.conditions:
            if same_keys and len(gain.conditions) == 1:
                text += f" at {gain.conditions[0][1]}"
            else:
                text += " at " + ", ".join(f"{k} {v}" for k, v in gain.conditions)
        parts.append(text)
        previous = gain
    return ", ".join(parts)


@dataclass(frozen=True, slots=True)
class RecordSource:
    kind: str  # 'knob' or 'incident'
    rel_path: str
    source_map: SourceMap


@dataclass
class Catalog:
    """All valid records, by id, with where each came from."""

    knobs: dict[str, Knob] = field(default_factory=dict)
    incidents: dict[str, Incident] = field(default_factory=dict)
    sources: dict[tuple[str, str], RecordSource] = field(default_factory=dict)  # (kind, id) -> source
    # Ids of records whose files exist but did not validate: references to them are not dangling.
    broken_ids: dict[str, set[str]] = field(default_factory=lambda: {"knob": set(), "incident": set()})

    def source(self, kind: str, record_id: str) -> RecordSource:
        return self.sources[(kind, record_id)]

    def exists(self, kind: str, record_id: str) -> bool:
        known = self.knobs if kind == "knob" else self.incidents
        return record_id in known or record_id in self.broken_ids[kind]

    def hypothesis(self, incident_id: str | None, hypothesis_id: str | None) -> Hypothesis | None:
        incident = self.incidents.get(incident_id or "")
        if incident is None:
            return None
        return next((h for h in incident.hypotheses if h.id == hypothesis_id), None)

    def changes_under(self, incident_id: str, hypothesis_id: str | None = None) -> list[tuple[Knob, HistoryEntry]]:
        """Knob status changes that name this incident (and hypothesis, when given)."""
        return [(knob, entry) for knob in self.knobs.values() for entry in knob.history
                if entry.incident == incident_id and (hypothesis_id is None or entry.hypothesis == hypothesis_id)]


def last_revert(knob: Knob) -> HistoryEntry | None:
    """The history entry that reverted the knob, if reverted is where it stands now."""
    if knob.status is not KnobStatus.REVERTED:
        return None
    return next((e for e in reversed(knob.history) if e.status is HistoryStatus.REVERTED), None)
