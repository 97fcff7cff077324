"""The knowledge base's own settings: `[tool.incident-kb]` in its pyproject.toml.

Today: a severity per finding code, so a team can start a rule in warn mode and enforce it later:

    [tool.incident-kb.severity]
    reclaimable-knob = "warning"   # or "error", or "off"

(Codes may also be written directly under [tool.incident-kb].) Problems with the settings are
findings on pyproject.toml, not exceptions.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from ..findings import CODES, Finding, Severity, finding

_LEVELS = ("error", "warning", "off")


@dataclass(frozen=True)
class Config:
    severities: dict[str, str] = field(default_factory=dict)  # code -> error | warning | off

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
    entries = dict(section.get("severity", {}) or {})
    entries.update({k: v for k, v in section.items() if k != "severity"})
    severities: dict[str, str] = {}
    findings = []
    for code, level in entries.items():
        if code not in CODES:
            close = difflib.get_close_matches(code, list(CODES), n=1)
            hint = f"did you mean '{close[0]}'?" if close else "see `kb codes` for the list"
            findings.append(_bad(text, code, f"'{code}' in [tool.incident-kb] is not a finding code; {hint}"))
        elif level not in _LEVELS:
            findings.append(_bad(text, code, f"severity of '{code}' is {level!r}; use \"error\", \"warning\" or \"off\""))
        else:
            severities[code] = level
    return Config(severities), findings


def _bad(text: str, key: str, message: str) -> Finding:
    match = re.search(rf"^\s*\"?{re.escape(key)}\"?\s*=", text, re.MULTILINE) or re.search(re.escape(key), text)
    line = text.count("\n", 0, match.start()) + 1 if match else 1
    return finding("bad-config", "pyproject.toml", line, 1, None, message)
