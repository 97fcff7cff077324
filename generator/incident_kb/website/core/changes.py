"""What changed when, as the site shows it: "last change" on record pages and in the knobs index,
and the home page's recent changes.

One clock: the record's own dates say when, and what changed. A knob's changes are its status
history ('reverted -> restored', on the date the record gives); an incident's are its start, its
timeline and its resolution. Git comes second, for the record as it stands: the commit of its
last material change, or "not committed yet" with what the work tree changed (a value, say, that
no history entry records). A commit's time never stands in for the date a change was made: a
record written up days later would otherwise read as changed on the day it was committed. This
module is the one place that decides it. Model and timelines in, changes out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime

from ...deploy.patterns import value_text
from ...history.timelines import MaterialChange
from ...records.by_record import by_record
from ...records.model import Catalog, when_key
from ...records.schema import Incident, Knob
from ...records.vocabulary import RecordKind
from .markup import showable


@dataclass(frozen=True, slots=True)
class Change:
    """A change a record dates itself."""

    when: date | datetime
    kind: RecordKind
    record_id: str
    text: str  # an incident's event (record markdown), or a knob's status change said in words
    old_status: str | None = None  # a knob's status before the change (None: its first entry)
    new_status: str | None = None  # a knob's status after it
    value_change: str | None = None  # a knob's value before and after, when the entry changed it: '512 -> 1024'

    @property
    def what(self) -> str:
        """What changed: 'reverted -> restored', 'active' (a knob's first entry), 'active, value
        512 -> 1024' (a new value, the status kept), or the event."""
        return self.text

    @property
    def status_moved(self) -> bool:
        """The knob's status changed with this entry (not its first: that one sets it)."""
        return self.old_status is not None and self.old_status != self.new_status

    @property
    def changed_nothing(self) -> bool:
        """A knob entry that kept its status and value (a note on why the value stays): 'still active'."""
        return self.old_status is not None and not self.status_moved and self.value_change is None

    @property
    def sort_key(self) -> tuple[datetime, str, str]:
        return (when_key(self.when), self.kind, self.record_id)


@dataclass(frozen=True, slots=True)
class Committed:
    """The record as it stands, in git: the commit of its last material change (`commit`, `when`),
    or not committed yet (`commit` None), with the change the work tree holds."""

    commit: str | None  # short id
    when: datetime | None  # the commit's time, in UTC
    pending: str | None = None  # what the uncommitted change changed: 'value 512 -> 1024'


@dataclass(frozen=True, slots=True)
class ChangeLog:
    """Every dated change, newest first; the last change of each record; and where git has each
    record."""

    changes: tuple[Change, ...]
    last: dict[tuple[str, str], Change]
    committed: Mapping[tuple[RecordKind, str], Committed]

    def recent(self, count: int) -> tuple[Change, ...]:
        return self.changes[:count]

    def last_change(self, kind: RecordKind, record_id: str) -> Change | None:
        return self.last.get((kind, record_id))

    def committed_as(self, kind: RecordKind, record_id: str) -> Committed | None:
        return self.committed.get((kind, record_id))


def record_changes(catalog: Catalog,
                   timelines: Mapping[tuple[RecordKind, str], list[MaterialChange]] | None = None) -> ChangeLog:
    """The change log, from the records' own dates; `timelines` (git's material changes, where git
    has the record) give each record's commit."""
    timelines = timelines or {}
    changes: list[Change] = []
    for knob in catalog.knobs.values():
        changes.extend(knob_changes(knob))
    for incident in catalog.incidents.values():
        changes.extend(_incident_changes(incident))
    # Newest first; on the same moment, the later entry of a record first (list order is time order).
    ordered = sorted(enumerate(changes), key=lambda item: (item[1].sort_key, item[0]), reverse=True)
    newest = tuple(change for _, change in ordered)
    last: dict[tuple[str, str], Change] = {}
    for change in newest:
        last.setdefault((change.kind, change.record_id), change)
    committed = {key: _committed(timeline[-1]) for key, timeline in timelines.items() if timeline}
    return ChangeLog(newest, last, committed)


def _committed(change: MaterialChange) -> Committed:
    if change.commit is None or change.date is None:
        return Committed(None, None, change.summary)
    return Committed(change.commit[:7], change.date.astimezone(UTC))


@by_record  # asked for every knob after each save of a live preview (the change log, the feed)
def knob_changes(knob: Knob) -> tuple[Change, ...]:
    """Each history entry said as what it changed: the status ('reverted -> restored'), the value an
    entry records when it differs from the last one recorded ('value 512 -> 1024'), both, or, for an
    entry that changed neither (a note on why the value stays), the status it keeps ('still active')."""
    changes = []
    before: str | None = None
    value: str | None = None  # the last value the history records
    for entry in knob.history:
        status = entry.status.value
        moved = None
        if entry.value is not None:
            now = showable(value_text(entry.value))
            moved = f"{value} -> {now}" if value is not None and value != now else None
            value = now
        change = Change(entry.date, RecordKind.KNOB, knob.id, "", before, status, moved)
        said = (f"{before} -> {status}" if change.status_moved
                else f"still {status}" if change.changed_nothing else status)
        changes.append(replace(change, text=f"{said}, value {moved}" if moved else said))
        before = status
    return tuple(changes)


@by_record
def _incident_changes(incident: Incident) -> tuple[Change, ...]:
    changes = [Change(incident.started, RecordKind.INCIDENT, incident.id, "Incident started.")]
    changes.extend(Change(entry.at, RecordKind.INCIDENT, incident.id, entry.event) for entry in incident.timeline)
    if incident.resolved is not None:
        changes.append(Change(incident.resolved, RecordKind.INCIDENT, incident.id, "Incident resolved."))
    return tuple(changes)
