"""The regular expressions records hold (`applies_to[].pattern`), compiled by RE2.

A pattern is matched against deploy files by `kb check`, `kb revert` and `kb restore`. Python's
engine backtracks: `(a+)+$` against forty `a` and a `!` runs for minutes. RE2 runs in time linear
in the text and refuses what it cannot run that way (backreferences, lookaround); such a pattern
is a finding (`pattern_problem`), never a hang. Patterns match line by line (`^` and `$` at each
line), as they always have. Knows nothing of knobs or files.
"""

from __future__ import annotations

import functools
from typing import Any

import re2  # type: ignore[import-untyped]

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # RE2 would print its own error to stderr; the finding says it once
_OPTIONS.max_mem = 8 << 20  # RE2's default: a pattern whose program is larger is refused


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str) -> tuple[Any, str | None]:
    try:
        return re2.compile("(?m)" + pattern, _OPTIONS), None
    except re2.error as exc:
        detail = exc.args[0] if exc.args else ""
        if isinstance(detail, bytes):
            detail = detail.decode("utf-8", "replace")
        return None, str(detail) or "not a regular expression RE2 can run"
    except (TypeError, ValueError) as exc:  # e.g. a NUL character
        return None, str(exc)


def compile_pattern(pattern: str) -> Any | None:
    """The compiled pattern (`.search(text)` gives a match with `.start()` and `.group(0)`), or None
    when RE2 cannot run it (`pattern_problem` says why)."""
    return _compile(pattern)[0]


def pattern_problem(pattern: str) -> str | None:
    """Why RE2 cannot run `pattern` (e.g. 'invalid perl operator: (?='), or None when it can."""
    return _compile(pattern)[1]
