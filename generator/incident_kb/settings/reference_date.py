"""The date rules count from (revert-overdue, review dates): given, else $KB_TODAY, else the clock's.

A module of its own, with nothing heavy imported, because the remembered `kb check` result
(`check/memo.py`) is keyed by it before anything else is loaded.
"""

from __future__ import annotations

import os
from datetime import date

from ..findings import KbError

TODAY_VARIABLE = "KB_TODAY"


def reference_date(today: date | None = None) -> date:
    """`today` when given, else $KB_TODAY (so a CI run or a site build can be reproduced), else the
    clock's date."""
    if today is not None:
        return today
    text = os.environ.get(TODAY_VARIABLE, "").strip()
    if not text:
        return date.today()
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise KbError(f"{TODAY_VARIABLE}={text!r} is not a date; give e.g. {TODAY_VARIABLE}=2026-11-30") from None
