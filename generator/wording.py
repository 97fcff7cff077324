"""How the tool says counts and dates in its messages: one way, everywhere.

`plural(3, "finding")` is "3 findings", `plural(1, "finding")` "1 finding"; `day()` writes a
record's date or date-time as the record has it (ISO 8601, a space before the time).
"""

from __future__ import annotations

from datetime import date, datetime


def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 finding', '2 findings' ('many' for words whose plural is not word + 's')."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def day(moment: date | datetime) -> str:
    """A date as 2026-11-05, a date-time as 2026-11-05 20:25:00."""
    return moment.isoformat(sep=" ") if isinstance(moment, datetime) else moment.isoformat()
