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
from pathlib import Path

from ..findings import CODES, Finding, Severity, finding

_LEVELS = ("error", "warning", "off")
DEFAULT_OVERDUE_DAYS = 14
SETTINGS = {"revert-overdue-days": "days a revert may test a still-open hypothesis before it is overdue"}
assert not set(SETTINGS) & set(CODES), "a setting must not share its name with a finding code"


@dataclass(frozen=True)
class Config:
    severities: dict[str, str] = field(default_factory=dict)  # code -> error | warning | off
    revert_overdue_days: int = DEFAULT_OVERDUE_DAYS

    def apply(self, findings: list[Finding]) -> list[Finding]:
        """Findings with configured severities; those turned off are dropped."""
        result = []
        for item in findings:
            level = self.severities.get(item.code)
            if level == "off":
                continue
            result.append(item.with_severity(Severity(level)) if level else item)
        return result


def load_config(root: Path) -> tuple[Config, list[Finding]]:
    path = root / "pyproject.toml"
    if not path.is_file():
        return Config(), []
    try:
        text = path.read_text(encoding="utf-8")
        document = tomllib.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        return Config(), [finding("bad-config", "pyproject.toml", 1, 1, None, f"cannot read pyproject.toml: {exc}")]
    except tomllib.TOMLDecodeError as exc:
        where = re.search(r"line (\d+), column (\d+)", str(exc))
        line, column = (int(where[1]), int(where[2])) if where else (1, 1)
        return Config(), [finding("bad-config", "pyproject.toml", line, column, None,
                                  f"pyproject.toml is not valid TOML: {exc}")]
    section = document.get("tool", {}).get("incident-kb", {})
    if not isinstance(section, dict):
        return Config(), [_bad(text, "incident-kb", "[tool.incident-kb] must be a table")]
    severity_table = section.get("severity", {}) or {}
    if not isinstance(severity_table, dict):
        return Config(), [_bad(text, "severity", "[tool.incident-kb.severity] must be a table of code = level")]
    entries = dict(severity_table)
    entries.update({k: v for k, v in section.items() if k != "severity" and k not in SETTINGS})
    severities: dict[str, str] = {}
    findings = []
    overdue_days = section.get("revert-overdue-days", DEFAULT_OVERDUE_DAYS)
    if isinstance(overdue_days, bool) or not isinstance(overdue_days, int) or overdue_days < 1:
        findings.append(_bad(text, "revert-overdue-days", f"revert-overdue-days is {overdue_days!r}; give a whole "
                             "number of days, e.g. revert-overdue-days = 14"))
        overdue_days = DEFAULT_OVERDUE_DAYS
    for code, level in entries.items():
        if code not in CODES:
            close = difflib.get_close_matches(code, [*CODES, *SETTINGS], n=1)
            hint = f"did you mean '{close[0]}'?" if close else "see `kb codes` for the list"
            findings.append(_bad(text, code, f"'{code}' in [tool.incident-kb] is not a finding code or setting; {hint}"))
        elif level not in _LEVELS:
            findings.append(_bad(text, code, f"severity of '{code}' is {level!r}; use \"error\", \"warning\" or \"off\""))
        else:
            severities[code] = level
    return Config(severities, overdue_days), findings


def _bad(text: str, key: str, message: str) -> Finding:
    match = re.search(rf"^\s*\"?{re.escape(key)}\"?\s*=", text, re.MULTILINE) or re.search(re.escape(key), text)
    line = text.count("\n", 0, match.start()) + 1 if match else 1
    return finding("bad-config", "pyproject.toml", line, 1, None, message)
