"""What changed when, as the site shows it ("last change" on record pages and index tables, the
home page's recent changes).

Where git history is available, a record's changes are its material changes as committed (when
the status, value or root cause changed, with the commit); a record git knows nothing of falls
back to the dates in the record itself: a knob's status history, an incident's start, resolution
and timeline. This module is the one place that decides it. Model and timelines in, changes out.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date, datetime, timezone

from collections.abc import Mapping

from ...history.timelines import MaterialChange
from ...records.model import Catalog, when_key
from ...records.schema import Incident, Knob
from ...records.vocabulary import RecordKind

_UNCOMMITTED = datetime.max.replace(tzinfo=timezone.utc)  # uncommitted work-tree changes are the newest


@dataclass(frozen=True, slots=True)
class Change:
    when: date | datetime | None  # None: not committed yet
    kind: RecordKind
    record_id: str
    text: str | None  # a knob's new status ('reverted'), or what happened in an incident (record markdown)
    commit: str | None = None  # short commit id, for changes read from git
    from_git: bool = False  # `what` is a material change's summary ('status reverted -> active')
    material: MaterialChange | None = None  # the change read from git

    @property
    def what(self) -> str:
        """What changed. A material change is said only when asked: saying every record's changes
        (whole hypothesis lists when a record was created) would cost more than rendering a page."""
        return self.material.summary if self.material is not None else self.text or ""

    @property
    def sort_key(self) -> tuple[datetime, str, str]:
        return (_UNCOMMITTED if self.when is None else when_key(self.when), self.kind, self.record_id)


@dataclass(frozen=True, slots=True)
class ChangeLog:
    """Every change, newest first, and the last change of each record."""

    changes: tuple[Change, ...]
    last: dict[tuple[str, str], Change]

    def recent(self, count: int) -> tuple[Change, ...]:
        return self.changes[:count]

    def last_change(self, kind: RecordKind, record_id: str) -> Change | None:
        return self.last.get((kind, record_id))


def record_changes(catalog: Catalog,
                   timelines: Mapping[tuple[RecordKind, str], list[MaterialChange]] | None = None) -> ChangeLog:
    """The change log: from git's material changes where `timelines` has the record, else from the
    record's own dates."""
    timelines = timelines or {}
    changes: list[Change] = []
    for knob in catalog.knobs.values():
        timeline = timelines.get((RecordKind.KNOB, knob.id))
        changes.extend(_git_changes(timeline) if timeline else _knob_changes(knob))
    for incident in catalog.incidents.values():
        timeline = timelines.get((RecordKind.INCIDENT, incident.id))
        changes.extend(_git_changes(timeline) if timeline else _incident_changes(incident))
    # Newest first; on the same moment, the later entry of a record first (list order is time order).
    ordered = sorted(enumerate(changes), key=lambda item: (item[1].sort_key, item[0]), reverse=True)
    newest = tuple(change for _, change in ordered)
    last: dict[tuple[str, str], Change] = {}
    for change in newest:
        last.setdefault((change.kind, change.record_id), change)
    return ChangeLog(newest, last)


def _git_changes(timeline: list[MaterialChange]) -> list[Change]:
    return [Change(change.date.astimezone(timezone.utc) if change.date else None, change.kind, change.record_id, None,
                   change.commit[:7] if change.commit else None, from_git=True, material=change) for change in timeline]


def _knob_changes(knob: Knob) -> list[Change]:
    return [Change(entry.date, RecordKind.KNOB, knob.id, entry.status.value) for entry in knob.history]


def _incident_changes(incident: Incident) -> list[Change]:
    changes = [Change(incident.started, RecordKind.INCIDENT, incident.id, "Incident started.")]
    changes.extend(Change(entry.at, RecordKind.INCIDENT, incident.id, entry.event) for entry in incident.timeline)
    if incident.resolved is not None:
        changes.append(Change(incident.resolved, RecordKind.INCIDENT, incident.id, "Incident resolved."))
    return changes
