"""What changed when, as the site shows it ("last change" columns, the home page's recent changes).

Today the dates come from the records themselves: a knob's status history, an incident's start,
resolution and timeline. This module is the one place that decides it, so git history can replace
or enrich it later without touching the pages that show it. Model in, changes out; reads no files.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime

from .model import Catalog, when_key
from .schema import Incident, Knob


@dataclass(frozen=True, slots=True)
class Change:
    when: date | datetime
    kind: str  # 'knob' or 'incident'
    record_id: str
    what: str  # a knob's new status ('reverted'), or what happened in an incident (record markdown)

    @property
    def sort_key(self) -> tuple[datetime, str, str]:
        return (when_key(self.when), self.kind, self.record_id)


@dataclass(frozen=True, slots=True)
class ChangeLog:
    """Every change, newest first, and the last change of each record."""

    changes: tuple[Change, ...]
    last: dict[tuple[str, str], Change]

    def recent(self, count: int) -> tuple[Change, ...]:
        return self.changes[:count]

    def last_change(self, kind: str, record_id: str) -> Change | None:
        return self.last.get((kind, record_id))


def record_changes(catalog: Catalog) -> ChangeLog:
    """The change log derived from the records' own dates."""
    changes: list[Change] = []
    for knob in catalog.knobs.values():
        changes.extend(_knob_changes(knob))
    for incident in catalog.incidents.values():
        changes.extend(_incident_changes(incident))
    # Newest first; on the same moment, the later entry of a record first (list order is time order).
    ordered = sorted(enumerate(changes), key=lambda item: (item[1].sort_key, item[0]), reverse=True)
    newest = tuple(change for _, change in ordered)
    last: dict[tuple[str, str], Change] = {}
    for change in newest:
        last.setdefault((change.kind, change.record_id), change)
    return ChangeLog(newest, last)


def _knob_changes(knob: Knob) -> list[Change]:
    return [Change(entry.date, "knob", knob.id, entry.status.value) for entry in knob.history]


def _incident_changes(incident: Incident) -> list[Change]:
    changes = [Change(incident.started, "incident", incident.id, "Incident started.")]
    changes.extend(Change(entry.at, "incident", incident.id, entry.event) for entry in incident.timeline)
    if incident.resolved is not None:
        changes.append(Change(incident.resolved, "incident", incident.id, "Incident resolved."))
    return changes
