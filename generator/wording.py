"""How the tool says counts and dates in its messages: one way, everywhere.

`plural(3, "finding")` is "3 findings", `plural(1, "finding")` "1 finding"; `day()` writes a date
as 2026-11-05 and a date-time with its zone, one way everywhere (messages and pages): as the record
wrote it (2021-10-30 15:51:00 -07:00), or in UTC and labelled so (2026-11-30 13:50:00 UTC) for a
time written without a zone and for times from git.
"""

from __future__ import annotations

from datetime import date, datetime, timedelta


def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 finding', '2 findings' ('many' for words whose plural is not word + 's')."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def day(moment: date | datetime) -> str:
    """A date as 2026-11-05; a date-time as 2026-11-05 20:25:00 with its zone: '-07:00' as written,
    'UTC' for UTC and for a date-time that carries no zone."""
    if not isinstance(moment, datetime):
        return moment.isoformat()
    text = moment.replace(tzinfo=None).isoformat(sep=" ")
    return f"{text} {zone_text(moment.utcoffset())}"


def zone_text(offset: timedelta | None) -> str:
    """'UTC' for no offset, else the offset as ISO 8601 writes it: '-07:00', '+05:30'."""
    if not offset:
        return "UTC"
    minutes = round(offset.total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{rest:02d}"
