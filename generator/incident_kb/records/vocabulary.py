"""The words records are written in, without the models: kinds of record and their folders, the
statuses, evidence kinds and stances, how dates are read. `schema` builds the models from these;
what only needs the words (the command line's choices, the remembered `kb check`) imports this
module alone, without pydantic.
"""

from __future__ import annotations

import enum
import posixpath
from datetime import UTC, date, datetime
from typing import Any, Literal, get_args


class KnobStatus(str, enum.Enum):
    PROPOSED = "proposed"
    ACTIVE = "active"
    REVERTED = "reverted"
    RETIRED = "retired"


class HistoryStatus(str, enum.Enum):
    """A knob status, plus `restored`: an `active` that undoes a revert."""

    PROPOSED = "proposed"
    ACTIVE = "active"
    RESTORED = "restored"
    REVERTED = "reverted"
    RETIRED = "retired"

    @property
    def knob_status(self) -> KnobStatus:
        return KnobStatus.ACTIVE if self is HistoryStatus.RESTORED else KnobStatus(self.value)


class IncidentStatus(str, enum.Enum):
    OPEN = "open"
    MITIGATED = "mitigated"
    RESOLVED = "resolved"


class HypothesisStatus(str, enum.Enum):
    OPEN = "open"
    CONFIRMED = "confirmed"
    REFUTED = "refuted"


class EvidenceKind(str, enum.Enum):
    CORRELATION = "correlation"
    EXPERIMENT = "experiment"
    OBSERVATION = "observation"
    REPORT = "report"


class Stance(str, enum.Enum):
    FOR = "for"
    AGAINST = "against"


class FollowUpStatus(str, enum.Enum):
    OPEN = "open"
    DONE = "done"


KnobKind = Literal["env", "flag", "config", "sysctl", "other"]  # how a knob's setting is applied
KNOB_KINDS: tuple[str, ...] = get_args(KnobKind)


MAX_MAGNITUDE = 1e15  # a measured number beyond this is a slip (units, a pasted id), and breaks charts


def parse_when(value: Any) -> date | datetime:
    """A record's date or date-time: dates stay dates; a date-time keeps the zone it was written in
    (one written without a zone is UTC), so any two can be compared and each is shown as written.
    Only dates and ISO 8601 text: a number is not a date (20261103 is no day, 1762300000 no moment),
    and a date-time whose UTC day falls outside years 1 to 9999 cannot be used.
    Raises ValueError with what is expected."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value) if ("T" in value or " " in value) else date.fromisoformat(value)
        except ValueError:
            raise ValueError(_EXPECTED_WHEN) from None
    if not isinstance(value, date):  # numbers, flags: pydantic would read a number as seconds since 1970
        raise ValueError(_EXPECTED_WHEN)
    if isinstance(value, datetime):
        try:
            naive_utc(value)
        except OverflowError:
            raise ValueError("the date-time in UTC is outside years 1 to 9999; check the date and time zone") from None
        return zoned(value)
    return value


_EXPECTED_WHEN = "expected a date such as 2026-11-05 or a date-time such as 2026-11-05T20:25:00Z"


def zoned(moment: datetime) -> datetime:
    """A date-time with its zone: as written, or UTC when it was written without one."""
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def naive_utc(moment: datetime) -> datetime:
    """Naive UTC (OverflowError when the UTC moment is outside years 1 to 9999)."""
    return moment if moment.tzinfo is None else moment.astimezone(UTC).replace(tzinfo=None)


class RecordKind(str, enum.Enum):
    """A kind of record: its folder in the knowledge base and its page on the site (its model:
    `schema.MODELS`)."""

    KNOB = "knob"
    INCIDENT = "incident"

    @property
    def folder(self) -> str:
        """Where its records live, relative to the knowledge base's root (also its pages' folder)."""
        return f"{self.value}s"

    def page_path(self, record_id: str) -> str:
        """The record's page, relative to the site's docs folder."""
        # A record whose id is 'index' must not take the place of its kind's index page; '_' cannot
        # appear in an id, so the name it gets instead is free.
        return f"{self.folder}/{'index_' if record_id == 'index' else record_id}.md"

    def __str__(self) -> str:
        return self.value


RecordKey = tuple[RecordKind, str]  # (kind, record id): a record, however it is referred to

# A reference to a record of another knowledge base of the organisation: `NAME:ID` (`payments:db-pool-size`).
# Inside its own repository it is unresolved there (kb check says so, as info); an org (`kb org check`,
# the org site) resolves it among the knowledge bases its configuration names.
KB_NAME_SEPARATOR = ":"


def split_reference(reference: str) -> tuple[str | None, str]:
    """(knowledge base name or None, id) of a reference as written: 'payments:db-pool' ->
    ('payments', 'db-pool'); 'db-pool' -> (None, 'db-pool')."""
    name, separator, record_id = reference.rpartition(KB_NAME_SEPARATOR)
    return (name, record_id) if separator else (None, reference)


RECORD_SUFFIXES = (".yaml", ".yml")
# What MkDocs renders as a page (`mkdocs.utils.markdown_extensions`, case as written): each is a doc
# the check reads, or a page on the site would never be checked for staleness.
DOC_SUFFIXES = (".md", ".markdown", ".mdown", ".mkdn", ".mkd")


def record_kind_of(rel_path: str) -> RecordKind | None:
    """The kind of record a knowledge-base-relative path holds, or None if it is not a record.

    A record is a YAML file anywhere under its kind's folder: subfolders group records (by team,
    by service) and the file name is still the id. Hidden files and folders are not records."""
    folder, _, inside = rel_path.partition("/")
    kind = _KIND_BY_FOLDER.get(folder)  # asked of every path of every commit: one look-up, no loop
    if kind is None or not inside.endswith(RECORD_SUFFIXES) or inside.startswith(".") or "/." in inside:
        return None
    return kind


_KIND_BY_FOLDER = {kind.folder: kind for kind in RecordKind}


def built_path(path: str, directory_urls: bool = True) -> str:
    """Where a docs-relative file lands in the built site, as MkDocs places it (mkdocs.structure.files:
    README is an index, and with directory URLs `knobs.md` lands where `knobs/index.md` does): two files
    that land in one place hold one place."""
    if not path.endswith(DOC_SUFFIXES):
        return path
    parent, name = posixpath.split(path)
    stem = posixpath.splitext(name)[0]
    stem = "index" if stem == "README" else stem
    if not directory_urls or stem == "index":
        return posixpath.join(parent, f"{stem}.html")
    return posixpath.join(parent, stem, "index.html")
