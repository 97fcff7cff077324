"""The knowledge base as read: validated records and the queries everything else asks of them.

Records are the frozen pydantic models of `schema.py`. The catalog answers questions about them
(which hypothesis a revert acted on, what a knob gains); it never reads files or reports findings.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from types import MappingProxyType
from typing import Any

from ..deploy.patterns import value_text
from ..gains import estimates
from ..gains.estimates import Interval, NoInterval, Side, change_interval
from .schema import HistoryEntry, Hypothesis, Incident, Knob, Measurement
from .vocabulary import KB_NAME_SEPARATOR, HistoryStatus, KnobStatus, RecordKind, split_reference, zoned
from .yaml_source import SourceMap


def when_key(moment: date | datetime) -> datetime:
    """A sort key that orders dates and date-times together: a date-time by its moment (one without a
    zone is UTC), a date as its midnight in UTC."""
    if isinstance(moment, datetime):
        return zoned(moment)
    return datetime(moment.year, moment.month, moment.day, tzinfo=UTC)


MINUS = "\u2212"  # the minus sign of prose; search and tests also accept ASCII '-'


@dataclass(frozen=True, slots=True)
class Gain:
    """A measured effect of the tuned value: `change_pct` is how the metric itself moved (negative
    when it went down), `pct` is the improvement (positive when the tuned value is better, in the
    metric's own direction). Sort by `pct`; say it with `describe_gains`."""

    metric: str
    conditions: tuple[tuple[str, Any], ...]
    pct: float
    measurement: Measurement
    change_pct: float = 0.0

    @property
    def is_better(self) -> bool:
        return self.pct >= 0

    @property
    def change_text(self) -> str:
        """The metric's own change, signed: '+12.8%', or '\u221226.2%' for a latency that went down."""
        return signed_pct(self.change_pct)

    @property
    def values_text(self) -> str:
        """'420 \u2192 310 ms' when the measurement gives both sides (the medians of their runs), else ''."""
        found = sides(self.measurement)
        if found is None:
            return ""
        baseline, tuned = found
        unit = self.measurement.unit
        return f"{number_text(baseline.median)} \u2192 {number_text(tuned.median)}{' ' + unit if unit else ''}"

    @property
    def runs_text(self) -> str:
        """'5 runs vs 5 runs' (baseline, then tuned), or '1 run, no spread' for single numbers or a
        change in percent alone."""
        found = sides(self.measurement)
        if found is None or (found[0].count == 1 and found[1].count == 1):
            return "1 run, no spread"
        return f"{_runs(found[0].count)} vs {_runs(found[1].count)}"

    @property
    def change_interval(self) -> Interval | NoInterval:
        """The 95% interval of the metric's own change (like `change_pct`), or why there is none."""
        found = sides(self.measurement)
        if found is None:
            return estimates.TOO_FEW_RUNS  # a change in percent alone: one run, no spread
        return change_interval(found[0].runs, found[1].runs)

    @property
    def interval(self) -> Interval | NoInterval:
        """The 95% interval of the improvement (like `pct`: positive when better), or why there is none."""
        change = self.change_interval
        if isinstance(change, NoInterval) or self.measurement.higher_is_better:
            return change
        return Interval(-change.high, -change.low)


def number_text(value: float) -> str:
    """A measured number as gains show it: at most four significant digits, no exponent for everyday
    sizes (2482 · 398.2 · 1.84 · 0.01842)."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    magnitude = math.floor(math.log10(abs(value)))
    if magnitude >= 3:
        return f"{value:.0f}"
    if magnitude >= -4:
        return f"{value:.{3 - magnitude}f}".rstrip("0").rstrip(".")
    return f"{value:.3e}"


def _runs(count: int) -> str:
    return f"{count} run{'s' * (count != 1)}"


def signed_pct(value: float) -> str:
    """A change in percent as gains are said: '+12.8%', '\u221226.2%', '0.0%'."""
    shown = f"{abs(value):.1f}"
    if float(shown) == 0:
        return f"{shown}%"
    return f"{'+' if value > 0 else MINUS}{shown}%"


MAX_CHANGE_PCT = 1e6  # a change of more than 10,000 times is a slip of units, not a measured gain


def sides(measurement: Measurement) -> tuple[Side, Side] | None:
    """The baseline's and the tuned value's runs (`baseline_runs` and `runs`, else the single
    `baseline` and `value`: one run each), when the measurement gives both sides."""
    baseline = measurement.baseline_runs or (() if measurement.baseline is None else (measurement.baseline,))
    tuned = measurement.runs or (() if measurement.value is None else (measurement.value,))
    if not baseline or not tuned:
        return None
    return Side(tuple(map(float, baseline))), Side(tuple(map(float, tuned)))


def change_pct(measurement: Measurement) -> float | None:
    """The raw change of the metric in percent (delta_pct, or from the baseline's median to the
    tuned median); None when it cannot be computed or is beyond MAX_CHANGE_PCT (the consistency
    checks report that)."""
    found = sides(measurement)
    if measurement.delta_pct is not None:
        change = float(measurement.delta_pct)
    elif found is not None and found[0].median != 0:
        baseline, tuned = found[0].median, found[1].median
        change = (tuned - baseline) / abs(baseline) * 100
    else:
        return None
    return change if abs(change) <= MAX_CHANGE_PCT else None


def gain_of(measurement: Measurement) -> Gain | None:
    if measurement.invalid:
        return None
    change = change_pct(measurement)
    if change is None:
        return None
    pct = change if measurement.higher_is_better else -change
    return Gain(measurement.metric, tuple(measurement.conditions.items()), pct, measurement, change)


def knob_gains(knob: Knob) -> tuple[Gain, ...]:
    return tuple(g for g in map(gain_of, knob.measurements) if g is not None)


def best_gain(gains: Iterable[Gain]) -> Gain | None:
    """The largest improvement, whichever way its metric counts as better."""
    return max(gains, key=lambda g: g.pct, default=None)


def describe_gains(gains: tuple[Gain, ...]) -> str:
    """How a gain is said, everywhere (messages, pages, indexes, the home page):
    '+12.8% output throughput at concurrency 64, +5.7% at 96' (repeated words are said once), and
    in the metric's own direction: '\u221226.2% p99 checkout latency, 420 \u2192 310 ms' for a
    latency cut. A gain that shows its numbers is set off from its neighbours by ';'."""
    text_so_far = ""
    previous: Gain | None = None
    for gain in gains:
        same_metric = previous is not None and previous.metric == gain.metric
        same_keys = (same_metric and previous is not None
                     and [k for k, _ in previous.conditions] == [k for k, _ in gain.conditions])
        text = gain.change_text
        if not same_metric:
            text += f" {gain.metric}"
        if gain.conditions:
            if same_keys and len(gain.conditions) == 1:
                text += f" at {value_text(gain.conditions[0][1])}"
            else:
                text += " at " + ", ".join(f"{k} {value_text(v)}" for k, v in gain.conditions)
        if gain.values_text:
            text += f", {gain.values_text}"
        if previous is not None:
            text_so_far += "; " if previous.values_text or gain.values_text else ", "
        text_so_far += text
        previous = gain
    return text_so_far


@dataclass(frozen=True, slots=True)
class RecordSource:
    kind: RecordKind
    rel_path: str
    source_map: SourceMap


@dataclass(frozen=True, slots=True)
class Suspicion:
    """An incident's hypothesis that put a knob under suspicion: it names the knob as its suspect,
    or a change of the knob was made under it."""

    incident: Incident
    hypothesis: Hypothesis
    kb_name: str | None = None  # the incident's knowledge base, when another's of the organisation

    @property
    def incident_reference(self) -> str:
        """The incident as a reference from the knob's knowledge base: its id, or `NAME:ID`."""
        return f"{self.kb_name}{KB_NAME_SEPARATOR}{self.incident.id}" if self.kb_name is not None else self.incident.id


@dataclass(frozen=True)
class Catalog:
    """All valid records, by id, with where each came from, and the indexes every stage asks of
    them (built once, so no question scans the whole catalog). Immutable: build it with
    `Catalog.of`."""

    knobs: Mapping[str, Knob]
    incidents: Mapping[str, Incident]
    sources: Mapping[tuple[RecordKind, str], RecordSource]  # (kind, id) -> source
    # Ids of records whose files exist but did not validate: references to them are not dangling.
    broken_ids: Mapping[RecordKind, frozenset[str]]
    _changes_under: Mapping[tuple[str, str | None], tuple[tuple[Knob, HistoryEntry], ...]]
    _suspicions: Mapping[str, tuple[Suspicion, ...]]
    # In an organisation (`kb org check`, the org site): this knowledge base's name there, and the
    # other knowledge bases' catalogs by name, which `NAME:ID` references resolve in. Alone: none.
    name: str | None = None
    neighbours: Mapping[str, Catalog] = field(default_factory=lambda: MappingProxyType({}))
    # Changes of this catalog's knobs made under another knowledge base's incident, by its name:
    # (incident id there, hypothesis id, knob, entry); and the neighbours' changes made under this
    # one's incidents, by (incident id, hypothesis id or None): ('NAME:KNOB_ID', knob, entry).
    _across: Mapping[str, tuple[tuple[str, str | None, Knob, HistoryEntry], ...]] = field(
        default_factory=lambda: MappingProxyType({}))
    _from_neighbours: Mapping[tuple[str, str | None], tuple[tuple[str, Knob, HistoryEntry], ...]] = field(
        default_factory=lambda: MappingProxyType({}))
    # This catalog's hypotheses whose suspect is another knowledge base's knob, by its name:
    # (knob id there, the incident, the hypothesis): that knob's suspicions on its own site.
    _suspects_across: Mapping[str, tuple[tuple[str, Incident, Hypothesis], ...]] = field(
        default_factory=lambda: MappingProxyType({}))

    @classmethod
    def of(cls, records: Iterable[tuple[Knob | Incident, RecordSource]],
           broken_ids: Mapping[RecordKind, Iterable[str]] | None = None, name: str | None = None,
           neighbours: Mapping[str, Catalog] | None = None) -> Catalog:
        """A catalog of `records` (the first of two with one id wins; the loader reports the other);
        `name` and `neighbours`: its place in an organisation (see `in_organisation`)."""
        neighbours = MappingProxyType(dict(neighbours or {}))
        local = name

        def own(reference: str) -> str | None:
            """The id a reference names in this catalog, or None when it names another knowledge base's."""
            kb_name, record_id = split_reference(reference)
            return record_id if kb_name is None or kb_name == local else None

        def incident_named(reference: str) -> Incident | None:
            kb_name, record_id = split_reference(reference)
            if kb_name is None or kb_name == local:
                return incidents.get(record_id)
            other = neighbours.get(kb_name)
            return other.incidents.get(record_id) if other is not None else None

        knobs: dict[str, Knob] = {}
        incidents: dict[str, Incident] = {}
        sources: dict[tuple[RecordKind, str], RecordSource] = {}
        for record, source in records:
            known: dict[str, Any] = knobs if source.kind is RecordKind.KNOB else incidents
            known.setdefault(record.id, record)
            sources.setdefault((source.kind, record.id), source)
        changes: dict[tuple[str, str | None], list[tuple[Knob, HistoryEntry]]] = {}
        across: dict[str, list[tuple[str, str | None, Knob, HistoryEntry]]] = {}
        suspicions: dict[str, list[Suspicion]] = {}
        suspects_across: dict[str, list[tuple[str, Incident, Hypothesis]]] = {}
        for incident in incidents.values():
            for hypothesis in incident.hypotheses:
                if hypothesis.suspect is not None:
                    suspected = own(hypothesis.suspect.knob)
                    if suspected is not None:
                        suspicions.setdefault(suspected, []).append(Suspicion(incident, hypothesis))
                    else:
                        kb_name, knob_id = split_reference(hypothesis.suspect.knob)
                        suspects_across.setdefault(str(kb_name), []).append((knob_id, incident, hypothesis))
        for knob in knobs.values():
            for entry in knob.history:
                if entry.incident is None:
                    continue
                under_id = own(entry.incident)
                if under_id is not None:
                    changes.setdefault((under_id, None), []).append((knob, entry))
                else:
                    kb_name, incident_id = split_reference(entry.incident)
                    across.setdefault(str(kb_name), []).append((incident_id, entry.hypothesis, knob, entry))
                if entry.hypothesis is None:
                    continue
                if under_id is not None:
                    changes.setdefault((under_id, entry.hypothesis), []).append((knob, entry))
                # A change made under a hypothesis that does not name the knob as its suspect still
                # puts the knob under suspicion there (another knowledge base's hypothesis too).
                under = incident_named(entry.incident)
                acted_on = _hypothesis_of(under, entry.hypothesis)
                found = suspicions.setdefault(knob.id, [])
                if under is not None and acted_on is not None and not any(s.hypothesis is acted_on for s in found):
                    found.append(Suspicion(under, acted_on,
                                           None if under_id is not None else split_reference(entry.incident)[0]))
        from_neighbours: dict[tuple[str, str | None], list[tuple[str, Knob, HistoryEntry]]] = {}
        for neighbour_name in sorted(neighbours) if name is not None else ():
            for incident_id, hypothesis_id, knob, entry in neighbours[neighbour_name]._across.get(str(name), ()):
                reference = f"{neighbour_name}:{knob.id}"
                from_neighbours.setdefault((incident_id, None), []).append((reference, knob, entry))
                if hypothesis_id is not None:
                    from_neighbours.setdefault((incident_id, hypothesis_id), []).append((reference, knob, entry))
            # A neighbour's hypothesis that suspects one of this catalog's knobs (`NAME:KNOB_ID`).
            for knob_id, incident, hypothesis in neighbours[neighbour_name]._suspects_across.get(str(name), ()):
                found = suspicions.setdefault(knob_id, [])
                if not any(s.hypothesis is hypothesis for s in found):
                    found.append(Suspicion(incident, hypothesis, neighbour_name))
        broken = {kind: frozenset((broken_ids or {}).get(kind, ())) for kind in RecordKind}
        return cls(MappingProxyType(knobs), MappingProxyType(incidents), MappingProxyType(sources),
                   MappingProxyType(broken),
                   MappingProxyType({key: tuple(value) for key, value in changes.items()}),
                   MappingProxyType({key: tuple(value) for key, value in suspicions.items()}),
                   name, neighbours,
                   MappingProxyType({key: tuple(value) for key, value in across.items()}),
                   MappingProxyType({key: tuple(value) for key, value in from_neighbours.items()}),
                   MappingProxyType({key: tuple(value) for key, value in suspects_across.items()}))

    def in_organisation(self, name: str, neighbours: Mapping[str, Catalog]) -> Catalog:
        """This catalog as knowledge base `name` of an organisation whose other knowledge bases are
        `neighbours`: `NAME:ID` references resolve among them."""
        return Catalog.of(self._entries(), self.broken_ids, name, {n: c for n, c in neighbours.items() if n != name})

    def replacing(self, records: Iterable[tuple[Knob | Incident, RecordSource]]) -> Catalog:
        """This catalog with `records` in place of the records of their kind and id, in the same order:
        what reading every file again gives when only those records' files changed and each is still
        here under its id (a re-check makes sure)."""
        fresh = {(source.kind, record.id): (record, source) for record, source in records}
        return Catalog.of([fresh.get((source.kind, record.id), (record, source)) for record, source in self._entries()],
                          self.broken_ids, self.name, self.neighbours)

    def _entries(self) -> list[tuple[Knob | Incident, RecordSource]]:
        """Every record with its source, in the order `of` was given them (knobs, then incidents)."""
        return [(record, self.sources[(kind, record.id)]) for kind in RecordKind
                for record in self.records(kind).values()]

    def resolving(self, reference: str) -> tuple[Catalog | None, str]:
        """The catalog a reference names a record of, and the record's id there: this one for a plain
        id (or this knowledge base's own name), a neighbour's for `NAME:ID`; None when no knowledge
        base of that name is known here (always so outside an organisation)."""
        kb_name, record_id = split_reference(reference)
        if kb_name is None or kb_name == self.name:
            return self, record_id
        return self.neighbours.get(kb_name), record_id

    def is_unresolved_here(self, reference: str) -> bool:
        """A `NAME:ID` reference this catalog cannot resolve because it stands alone (no organisation)."""
        return split_reference(reference)[0] is not None and self.name is None and not self.neighbours

    def incident(self, reference: str | None) -> Incident | None:
        """The incident a reference names, here or in a neighbour."""
        catalog, record_id = self.resolving(reference or "")
        return catalog.incidents.get(record_id) if catalog is not None else None

    def knob(self, reference: str | None) -> Knob | None:
        """The knob a reference names, here or in a neighbour."""
        catalog, record_id = self.resolving(reference or "")
        return catalog.knobs.get(record_id) if catalog is not None else None

    def records(self, kind: RecordKind) -> Mapping[str, Knob] | Mapping[str, Incident]:
        return self.knobs if kind is RecordKind.KNOB else self.incidents

    def source(self, kind: RecordKind, record_id: str) -> RecordSource:
        return self.sources[(RecordKind(kind), record_id)]

    def exists(self, kind: RecordKind, reference: str) -> bool:
        kind = RecordKind(kind)
        catalog, record_id = self.resolving(reference)
        if catalog is None:
            return False
        return record_id in catalog.records(kind) or record_id in catalog.broken_ids[kind]

    def hypothesis(self, incident_id: str | None, hypothesis_id: str | None) -> Hypothesis | None:
        return _hypothesis_of(self.incident(incident_id), hypothesis_id)

    def changes_under(self, incident_id: str,
                      hypothesis_id: str | None = None) -> tuple[tuple[Knob, HistoryEntry], ...]:
        """Knob status changes that name this incident (and hypothesis, when given), in knob order."""
        return self._changes_under.get((incident_id, hypothesis_id), ())

    def changes_from_neighbours(self, incident_id: str,
                                hypothesis_id: str | None = None) -> tuple[tuple[str, Knob, HistoryEntry], ...]:
        """In an organisation: the other knowledge bases' knob changes that name this incident (and
        hypothesis, when given) as `NAME:ID`, each with its knob's reference from here ('payments:db-pool-size'),
        by knowledge base name, then knob order. Alone: none."""
        return self._from_neighbours.get((incident_id, hypothesis_id), ())

    def knobs_from_neighbours(self) -> tuple[tuple[str, Knob], ...]:
        """In an organisation: the other knowledge bases' knobs changed under one of this one's
        incidents, each once with its reference from here ('payments:db-pool-size'), by reference."""
        found = {reference: knob for (_, hypothesis_id), changes in self._from_neighbours.items()
                 if hypothesis_id is None for reference, knob, _ in changes}
        return tuple(sorted(found.items(), key=lambda item: item[0]))

    def suspicions(self, knob_id: str) -> tuple[Suspicion, ...]:
        """Every hypothesis that suspected the knob, or under which it was changed."""
        return self._suspicions.get(knob_id, ())


def _hypothesis_of(incident: Incident | None, hypothesis_id: str | None) -> Hypothesis | None:
    if incident is None:
        return None
    return next((h for h in incident.hypotheses if h.id == hypothesis_id), None)


@dataclass(frozen=True, slots=True)
class Running:
    """What a knob's setting is where it is deployed, by its status: the tuned value while the
    knob is active; otherwise (reverted, proposed, retired) the setting is not given, so its
    default runs. `value` is None when that default is not recorded."""

    value: Any
    is_tuned: bool


def running_setting(knob: Knob) -> Running:
    """The one answer to "what runs?" (pages show it first; the tuned value second when it is not
    what runs)."""
    if knob.status is KnobStatus.ACTIVE:
        return Running(knob.value, True)
    return Running(knob.default, False)


def last_revert(knob: Knob) -> HistoryEntry | None:
    """The latest history entry that reverted the knob, if reverted is where it stands now."""
    indexes = standing_revert_indexes(knob)
    return knob.history[indexes[-1]] if indexes else None


def standing_revert_indexes(knob: Knob) -> tuple[int, ...]:
    """Where in its history are the `reverted` entries the knob stands on, oldest first: those since
    it was last anything else (none unless reverted is where it stands now; when the last entry says
    otherwise, a status-mismatch, the latest revert)."""
    if knob.status is not KnobStatus.REVERTED:
        return ()
    found: list[int] = []
    for index in range(len(knob.history) - 1, -1, -1):
        if knob.history[index].status is not HistoryStatus.REVERTED:
            break
        found.append(index)
    if not found:
        found = [i for i, e in enumerate(knob.history) if e.status is HistoryStatus.REVERTED][-1:]
    return tuple(reversed(found))
