"""The knowledge base's own settings: `[tool.incident-kb]` in its pyproject.toml.

A severity per finding code, so a team can start a rule in warn mode and enforce it later, and
the few settings the rules take:

    [tool.incident-kb]
    revert-overdue-days = 14       # a revert whose hypothesis is still open after this is overdue

    [tool.incident-kb.severity]
    reclaimable-knob = "warning"   # or "error", or "off"

Codes may also be written directly under [tool.incident-kb]: there, a key is a setting when it
names one (setting names are never finding codes, asserted below), else a code. Problems with the
settings are findings on pyproject.toml, not exceptions.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field

from ..findings import CODES, Finding, Severity, finding
from ..wording import article
from .config_files import ConfigFile
from .doc_patterns import HISTORY_PAGES, matching_pattern

_LEVELS = ("error", "warning", "off")
DEFAULT_OVERDUE_DAYS = 14
DEFAULT_RESTORE_VERIFY_DAYS = 7
DEFAULT_UNMEASURED_VALUE_DAYS = 14
SETTINGS = {
    "revert-overdue-days": "days a revert may test a still-open hypothesis before it is overdue",
    "min-gain-pct": "the smallest improvement, in percent, that counts as a gain (smaller ones are noise)",
    "restore-verify-days": "days a restored knob may go without a measurement that shows its gain back",
    "unmeasured-value-days": "days a knob's new value may go without a measurement at it",
    "docs-dir": "the folder of hand-written docs (default: the site's docs_dir; see settings/docs_folder.py)",
    "history-pages": "docs stale-doc leaves alone as history, as path patterns (default: changelogs, release notes, "
                     "news and history files by their usual names)",
    "stale-doc-exclude": "more docs stale-doc leaves alone, as path patterns, e.g. [\"docs/blog/**\"]",
}
assert not set(SETTINGS) & set(CODES), "a setting must not share its name with a finding code"


@dataclass(frozen=True)
class Config:
    severities: dict[str, str] = field(default_factory=dict)  # code -> error | warning | off
    revert_overdue_days: int = DEFAULT_OVERDUE_DAYS
    min_gain_pct: float = 0.0
    restore_verify_days: int = DEFAULT_RESTORE_VERIFY_DAYS
    unmeasured_value_days: int = DEFAULT_UNMEASURED_VALUE_DAYS
    history_pages: tuple[str, ...] = HISTORY_PAGES  # docs stale-doc leaves alone (settings/doc_patterns.py)
    stale_doc_exclude: tuple[str, ...] = ()

    def left_out_by(self, doc: str) -> str | None:
        """Why stale-doc leaves `doc` alone ('history-pages: CHANGELOG*'), None when it judges it."""
        for setting, patterns in (("history-pages", self.history_pages), ("stale-doc-exclude", self.stale_doc_exclude)):
            if (pattern := matching_pattern(doc, patterns)) is not None:
                return f"{setting}: '{pattern}'"
        return None

    def apply(self, findings: list[Finding]) -> list[Finding]:
        """Findings with configured severities; those turned off are dropped."""
        result = []
        for item in findings:
            level = self.severities.get(item.code)
            if level == "off":
                continue
            result.append(item.with_severity(Severity(level)) if level else item)
        return result


def config_of(pyproject: ConfigFile | None) -> tuple[Config, list[Finding]]:
    """The settings `[tool.incident-kb]` of pyproject.toml gives (read once by config_files), and a
    finding for each problem with them."""
    if pyproject is None:
        return Config(), []
    text, document, exc = pyproject.text or "", pyproject.parsed, pyproject.error
    if isinstance(exc, tomllib.TOMLDecodeError):
        where = re.search(r"line (\d+), column (\d+)", str(exc))
        line, column = (int(where[1]), int(where[2])) if where else (1, 1)
        return Config(), [finding("bad-config", "pyproject.toml", line, column, None,
                                  f"pyproject.toml is not valid TOML: {exc}")]
    if isinstance(exc, RecursionError):  # arrays nested thousands deep
        return Config(), [finding("bad-config", "pyproject.toml", 1, 1, None,
                                  "pyproject.toml nests arrays or tables too deeply to read")]
    if exc is not None or document is None:
        return Config(), [finding("bad-config", "pyproject.toml", 1, 1, None, f"cannot read pyproject.toml: {exc}")]
    tool = document.get("tool", {})
    section = tool.get("incident-kb", {}) if isinstance(tool, dict) else None
    if not isinstance(section, dict):
        table_name = "[tool]" if not isinstance(tool, dict) else "[tool.incident-kb]"
        return Config(), [_bad(text, "tool" if table_name == "[tool]" else "incident-kb",
                               f"{table_name} must be a table, e.g. [tool.incident-kb.severity] with lines such as "
                               "reclaimable-knob = \"warning\"")]
    findings = []
    severity_table = section.get("severity", {})
    if not isinstance(severity_table, dict):
        findings.append(_bad(text, "severity", f"'severity' in [tool.incident-kb] is {_shown(severity_table)}, not a "
                                               "table of codes; write [tool.incident-kb.severity] with lines such as "
                                               "reclaimable-knob = \"warning\""))
        severity_table = {}
    entries = dict(severity_table)
    entries.update({k: v for k, v in section.items() if k != "severity" and k not in SETTINGS})
    severities: dict[str, str] = {}
    overdue_days = section.get("revert-overdue-days", DEFAULT_OVERDUE_DAYS)
    if isinstance(overdue_days, bool) or not isinstance(overdue_days, int) or overdue_days < 1:
        findings.append(_bad(text, "revert-overdue-days", f"revert-overdue-days is {_shown(overdue_days)}; give a "
                             "whole number of days, e.g. revert-overdue-days = 14"))
        overdue_days = DEFAULT_OVERDUE_DAYS
    gains = _gain_settings(section, text, findings)
    history_pages = _patterns(section, "history-pages", HISTORY_PAGES, text, findings)
    excluded = _patterns(section, "stale-doc-exclude", (), text, findings)
    for code, level in entries.items():
        if code not in CODES:
            close = difflib.get_close_matches(code, [*CODES, *SETTINGS], n=1)
            hint = f"did you mean '{close[0]}'?" if close else "see `kb codes` for the list"
            findings.append(_bad(text, code,
                                 f"'{code}' in [tool.incident-kb] is not a finding code or setting; {hint}"))
        elif not isinstance(level, str) or level not in _LEVELS:
            findings.append(_bad(text, code,
                                 f"severity of '{code}' is {_shown(level)}; use \"error\", \"warning\" or \"off\""))
        else:
            severities[code] = level
    return Config(severities, overdue_days, float(gains["min-gain-pct"]), int(gains["restore-verify-days"]),
                  int(gains["unmeasured-value-days"]), history_pages, excluded), findings


def _patterns(section: dict[str, object], name: str, default: tuple[str, ...], text: str,
              findings: list[Finding]) -> tuple[str, ...]:
    """A list of path patterns; a bad one is a finding and the default is used."""
    value = section.get(name, list(default))
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        findings.append(_bad(text, name, f"{name} is {_shown(value)}; give a list of path patterns, e.g. "
                                         f"{name} = [\"docs/blog/**\", \"CHANGELOG*\"]"))
        return default
    return tuple(value)


def _gain_settings(section: dict[str, object], text: str, findings: list[Finding]) -> dict[str, float | int]:
    """min-gain-pct, restore-verify-days and unmeasured-value-days, each checked; a bad one is a
    finding and its default is used."""
    found: dict[str, float | int] = {}
    for name, default, days in (("min-gain-pct", 0.0, False),
                                ("restore-verify-days", DEFAULT_RESTORE_VERIFY_DAYS, True),
                                ("unmeasured-value-days", DEFAULT_UNMEASURED_VALUE_DAYS, True)):
        value = section.get(name, default)
        kinds = (int,) if days else (int, float)
        if isinstance(value, bool) or not isinstance(value, kinds) or not 0 <= value <= 1e6:
            example = f"{name} = {default}" if days else f"{name} = 2.5"
            what = "a whole number of days" if days else "a percentage (a number, 0 or more)"
            findings.append(_bad(text, name, f"{name} is {_shown(value)}; give {what}, e.g. {example}"))
            value = default
        found[name] = value
    return found


def _shown(value: object) -> str:
    if isinstance(value, str | int | float | bool):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return {"list": "a list", "dict": "a table"}.get(type(value).__name__, article(type(value).__name__))


def _bad(text: str, key: str, message: str) -> Finding:
    match = re.search(rf"^[ \t]*\"?{re.escape(key)}\"?[ \t]*=", text, re.MULTILINE) or re.search(re.escape(key), text)
    line = text.count("\n", 0, match.start()) + 1 if match else 1
    return finding("bad-config", "pyproject.toml", line, 1, None, message)
