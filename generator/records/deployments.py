r"""Where a knob is deployed: the regular expression that finds its tuned value in a deploy file.

A record's `applies_to[].pattern` may use `{name}` and `{value}`, which stand for the knob's
setting name and its current value (regex-escaped); without a pattern, one is built for the usual
syntax of the knob's kind. Either way the pattern is built from the record as it is now, so a
`value:` changed by hand while the deploy file keeps the old one is drift. Other braces (regex
quantifiers such as `\d{2}`) are left alone. Model in, text out: reads no file.
"""

from __future__ import annotations

import re
from typing import Any

from .schema import Deployment, Knob

PLACEHOLDERS = ("{name}", "{value}")


def value_text(value: Any) -> str:
    """A value as a deploy file writes it: true, not True."""
    return str(value).lower() if isinstance(value, bool) else str(value)


def default_pattern(kind: str | None, name: str, value: Any) -> str:
    """A pattern that matches a deploy file line setting `name` to `value`, for the usual syntax of
    each kind of setting."""
    shown = value_text(value)
    end = r"\b" if re.match(r"\w", shown[-1:]) else r"(\s|$)"  # RE2 has no lookahead: see records/patterns.py
    setting, wanted = re.escape(name), re.escape(shown)
    if kind in (None, "env"):
        return rf"^\s*(export\s+)?{setting}={wanted}{end}"
    if kind == "flag":
        return rf"(^|\s){setting}(=|\s+){wanted}{end}"
    return rf"^\s*{setting}\s*[=:]\s*{wanted}{end}"


def fill_pattern(pattern: str, name: str, value: Any) -> str:
    """`pattern` with `{name}` and `{value}` replaced by the escaped setting name and value."""
    return pattern.replace("{name}", re.escape(name)).replace("{value}", re.escape(value_text(value)))


def deploy_pattern(knob: Knob, deployment: Deployment) -> str:
    """The pattern that matches in `deployment.path` when the knob's current value is set there."""
    if deployment.pattern is None:
        return default_pattern(knob.kind, knob.name, knob.value)
    return fill_pattern(deployment.pattern, knob.name, knob.value)


def any_value_pattern(knob: Knob, deployment: Deployment) -> str | None:
    """The same pattern with any value in place of the current one (to show what a file sets
    instead), or None when the pattern does not depend on the value."""
    if deployment.pattern is not None and "{value}" not in deployment.pattern:
        return None
    template = deployment.pattern or default_pattern(knob.kind, "\0NAME\0", "\0VALUE\0")
    if deployment.pattern is None:
        template = template.replace(re.escape("\0NAME\0"), "{name}").replace(re.escape("\0VALUE\0"), "{value}")
    return template.replace("{name}", re.escape(knob.name)).replace("{value}", r"[^\s'\";#]+")
