"""Printing findings: one function per output format (text, json, github, gitlab).

Formats are an interface: CI parses them. Text is `path:line:column: severity code: message`.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Sequence
from itertools import groupby

from ..findings import Finding, Severity
from ..wording import plural


def count(findings: Sequence[Finding], severity: Severity) -> int:
    return sum(1 for f in findings if f.severity is severity)


def format_text(findings: Sequence[Finding], summary: str) -> str:
    """Grouped by file, a blank line between files, and a closing count."""
    blocks = []
    for _, group in groupby(findings, key=lambda f: f.path):
        blocks.append("\n".join(f"{f.path}:{f.line}:{f.column}: {f.severity} {f.code}: {f.message}" for f in group))
    errors, warnings = count(findings, Severity.ERROR), count(findings, Severity.WARNING)
    if not findings:
        tail = f"all good: {summary}"
    else:
        files = len({f.path for f in findings})
        tail = f"{plural(errors, 'error')}, {plural(warnings, 'warning')} in {plural(files, 'file')} ({summary})"
    return "\n\n".join([*blocks, tail]) + "\n"


def format_json(findings: Sequence[Finding], summary: str) -> str:
    document = {
        "findings": [{"code": f.code, "severity": f.severity.value, "path": f.path, "line": f.line,
                      "column": f.column, "subject": f.subject, "message": f.message} for f in findings],
        "errors": count(findings, Severity.ERROR),
        "warnings": count(findings, Severity.WARNING),
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def format_github(findings: Sequence[Finding], summary: str) -> str:
    """GitHub Actions workflow commands: one annotation per finding."""
    lines = []
    for f in findings:
        command = "error" if f.severity is Severity.ERROR else "warning"
        props = f"file={_escape_property(f.path)},line={f.line},col={f.column},title={_escape_property(f.code)}"
        lines.append(f"::{command} {props}::{_escape_data(f.message)}")
    errors, warnings = count(findings, Severity.ERROR), count(findings, Severity.WARNING)
    lines.append(f"kb: {plural(errors, 'error')}, {plural(warnings, 'warning')} ({summary})")
    return "\n".join(lines) + "\n"


def format_github_summary(findings: Sequence[Finding], summary: str) -> str:
    """Markdown for $GITHUB_STEP_SUMMARY: every finding (annotations stop at 10 of a kind per step)."""
    errors, warnings = count(findings, Severity.ERROR), count(findings, Severity.WARNING)
    lines = ["## kb check", "", f"{plural(errors, 'error')}, {plural(warnings, 'warning')} ({summary})", ""]
    if findings:
        lines += ["| where | severity | code | message |", "|---|---|---|---|"]
        lines += [f"| `{_cell(f.path)}:{f.line}` | {f.severity} | `{f.code}` | {_cell(f.message)} |" for f in findings]
        lines.append("")
    return "\n".join(lines) + "\n"


def _cell(text: str) -> str:
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")


def format_gitlab(findings: Sequence[Finding], summary: str) -> str:
    """A GitLab Code Quality report (artifacts:reports:codequality). Fingerprints leave out line
    numbers, so a finding that only moved keeps its fingerprint; repeats get an occurrence number."""
    seen: dict[str, int] = {}
    issues = []
    for f in findings:
        identity = "\0".join(part or "" for part in f.identity)
        seen[identity] = seen.get(identity, 0) + 1
        fingerprint = hashlib.md5(f"{identity}\0{seen[identity]}".encode(), usedforsecurity=False).hexdigest()
        issues.append({
            "description": f.message,
            "check_name": f.code,
            "fingerprint": fingerprint,
            "severity": "major" if f.severity is Severity.ERROR else "minor",
            "location": {"path": f.path, "lines": {"begin": max(f.line, 1)}},
        })
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"


FORMATS: dict[str, Callable[[Sequence[Finding], str], str]] = {
    "text": format_text,
    "json": format_json,
    "github": format_github,
    "gitlab": format_gitlab,
}
