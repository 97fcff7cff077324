r"""Where a knob is deployed, when its record gives a pattern: the regular expression that finds
its tuned value in a deploy file (without one, `forms.py` reads the file's common forms).

A record's `applies_to[].pattern` may use `{name}` and `{value}`, which stand for the knob's
setting name and a value (regex-escaped): the current one, or for a reverted knob each value it
was tuned to. The pattern is built from the record as it is now, so a `value:` changed by hand
while the deploy file keeps the old one is drift. Other braces (regex quantifiers such as
`\d{2}`) are left alone. Model and text in, lines out: reads no file.
"""

from __future__ import annotations

import re
from typing import Any

from ..records.schema import Deployment, Knob
from .safe_regex import compile_pattern
from .values import SettingLine

PLACEHOLDERS = ("{name}", "{value}")


def value_text(value: Any) -> str:
    """A value as a deploy file writes it: true, not True."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def fill_pattern(pattern: str, name: str, value: Any) -> str:
    """`pattern` with `{name}` and `{value}` replaced by the escaped setting name and value."""
    return pattern.replace("{name}", re.escape(name)).replace("{value}", re.escape(value_text(value)))


def deploy_pattern(knob: Knob, deployment: Deployment, value: Any = None) -> str | None:
    """The record's pattern for `deployment.path`, matching when the knob's current value (or `value`)
    is set there; None when the record gives none (the common forms are read instead)."""
    if deployment.pattern is None:
        return None
    return fill_pattern(deployment.pattern, knob.name, knob.value if value is None else value)


def pattern_lines(pattern: str, text: str) -> tuple[SettingLine, ...]:
    """The line where `pattern` first matches in `text`, whole (not cut at the match's end); () when
    it does not match or RE2 cannot run it (`pattern_problem` says why)."""
    compiled = compile_pattern(pattern)
    match = compiled.search(text) if compiled is not None else None
    if match is None:
        return ()
    # A pattern starting with \s* can begin on a blank line above: count from the text itself.
    start = match.start() + len(match.group(0)) - len(match.group(0).lstrip())
    line_start = text.rfind("\n", 0, start) + 1
    line_end = text.find("\n", start)
    whole = text[line_start:len(text) if line_end == -1 else line_end].strip()
    return (SettingLine(text.count("\n", 0, start) + 1, start - line_start + 1, whole, match.group(0).strip(),
                        "pattern"),)


def any_value_pattern(knob: Knob, deployment: Deployment) -> str | None:
    """The record's pattern with any value in place of the current one (to show what a file sets
    instead), or None when there is no pattern or it does not depend on the value."""
    if deployment.pattern is None or "{value}" not in deployment.pattern:
        return None
    return deployment.pattern.replace("{name}", re.escape(knob.name)).replace("{value}", r"[^\s'\";#]+")
