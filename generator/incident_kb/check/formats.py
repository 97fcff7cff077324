"""Printing findings: one function per output format (text, json, github, gitlab).

Formats are an interface: CI parses them. Text is `path:line:column: severity code: message`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from itertools import groupby

from ..findings import Finding, Severity
from ..wording import INVISIBLE_CONTROLS, plural
from .owners import Ownership, by_owner

# What a terminal or a log would act on instead of showing: control characters (escape sequences
# can clear the screen or hide text; a newline would split a finding), bidirectional overrides
# (which reorder what is shown), and the lone surrogates that stand for bytes of a file name that
# is not UTF-8.
_UNSHOWABLE = re.compile(f"[\x00-\x08\x0a-\x1f\x7f-\x9f{INVISIBLE_CONTROLS}\ud800-\udfff]")


def displayable(text: str) -> str:
    """`text` with everything a terminal would not simply show written as an escape (\\x1b, \\n);
    bytes of a non-UTF-8 file name come back as \\xNN."""
    return _UNSHOWABLE.sub(_escape_char, text)


def _escape_char(match: re.Match[str]) -> str:
    char = ord(match.group(0))
    if char in (0x0A, 0x0D):
        return "\\n" if char == 0x0A else "\\r"
    if 0xDC80 <= char <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{char - 0xDC00:02x}"
    return f"\\x{char:02x}" if char <= 0xFF else f"\\u{char:04x}"


def count(findings: Sequence[Finding], severity: Severity) -> int:
    return sum(1 for f in findings if f.severity is severity)


def counts_text(findings: Sequence[Finding]) -> str:
    """'1 error, 2 warnings', and ', 1 info' when there is any (info never fails a run)."""
    text = f"{plural(count(findings, Severity.ERROR), 'error')}, {plural(count(findings, Severity.WARNING), 'warning')}"
    infos = count(findings, Severity.INFO)
    return text + (f", {infos} info" if infos else "")


def format_text(findings: Sequence[Finding], summary: str, ownership: Ownership | None = None) -> str:
    """Grouped by file, a blank line between files, and a closing count."""
    blocks = []
    for _, group in groupby(findings, key=lambda f: f.path):
        blocks.append("\n".join(displayable(f"{f.path}:{f.line}:{f.column}: {f.severity} {f.code}: {f.message}")
                                for f in group))
    if not findings:
        tail = f"all good: {displayable(summary)}"
    else:
        files = len({f.path for f in findings})
        tail = f"{counts_text(findings)} in {plural(files, 'file')} ({displayable(summary)})"
    return "\n\n".join([*blocks, tail]) + "\n"


def format_json(findings: Sequence[Finding], summary: str, ownership: Ownership | None = None) -> str:
    document = {
        "findings": [{"code": f.code, "severity": f.severity.value, "path": f.path, "line": f.line,
                      "column": f.column, "subject": f.subject, "message": f.message} for f in findings],
        "errors": count(findings, Severity.ERROR),
        "warnings": count(findings, Severity.WARNING),
        "info": count(findings, Severity.INFO),
    }
    return _json(document)


def _json(document: object) -> str:
    """JSON in ASCII: valid on any stream, and a file name that is not UTF-8 cannot break it."""
    return json.dumps(_surrogates_shown(document), indent=2) + "\n"


def _surrogates_shown(value: object) -> object:
    if isinstance(value, str):
        return _SURROGATE.sub(_escape_char, value)
    if isinstance(value, dict):
        return {key: _surrogates_shown(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_surrogates_shown(item) for item in value]
    return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _escape_data(text: str) -> str:
    return displayable(text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A"))


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


_GITHUB_COMMANDS = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.INFO: "notice"}


def format_github(findings: Sequence[Finding], summary: str, ownership: Ownership | None = None) -> str:
    """GitHub Actions workflow commands: one annotation per finding."""
    lines = []
    for f in findings:
        command = _GITHUB_COMMANDS[f.severity]
        props = f"file={_escape_property(f.path)},line={f.line},col={f.column},title={_escape_property(f.code)}"
        lines.append(f"::{command} {props}::{_escape_data(f.message)}")
    lines.append(f"kb: {counts_text(findings)} ({displayable(summary)})")
    return "\n".join(lines) + "\n"


def format_github_summary(findings: Sequence[Finding], summary: str, ownership: Ownership | None = None,
                          notices: Sequence[str] = ()) -> str:
    """Markdown for $GITHUB_STEP_SUMMARY: every finding (annotations stop at 10 of a kind per step).

    GitHub renders it as markdown with HTML, so record text in it is escaped as the pages escape
    it: text in `backticks` is code, everything else shows as the characters it is, never as an
    image, a link, emphasis, a heading or a table cell of its own. With `ownership`, a section "Who
    to tell" follows: per owner, the findings on what they own. `notices` (one line each, such as
    the exoneration notice of PR mode) come before the findings."""
    lines = ["## kb check", "", f"{counts_text(findings)} ({shown_text(summary)})", ""]
    for notice in notices:
        lines += [shown_message(notice), ""]
    if findings:
        lines += ["| where | severity | code | message |", "|---|---|---|---|"]
        lines += [f"| {code_span(f'{f.path}:{f.line}')} | {f.severity} | {code_span(f.code)} | "
                  f"{shown_message(f.message)} |" for f in findings]
        lines.append("")
    if findings and ownership is not None:
        lines += ["### Who to tell", ""]
        for owner, owned in by_owner(findings, ownership):
            lines.append(f"- {code_span(owner)}:" if owner is not None else "- owned by nobody:")
            for f in owned:
                nobody = "" if owner is not None else f" ({shown_text(ownership.of_finding(f).why_nobody)})"
                lines.append(f"  - {code_span(f'{f.path}:{f.line}')} {code_span(f.code)}{nobody}")
        lines.append("")
    return "\n".join(lines) + "\n"


# Every character GitHub's markdown could read as markup inside a table cell, as an entity, so it shows
# as itself: HTML, emphasis, links and images, '|' (a cell ends at one), ~strike~, :emoji:, @mentions,
# $math$, and '.' (GitHub links a bare `www.example.com` by itself; an entity ends the match).
_MARKUP = str.maketrans({char: f"&#{ord(char)};" for char in "&<>\\\"'`*_[](){}#!|~:@$."})


def shown_text(text: str) -> str:
    return displayable(text.replace("\r", " ").replace("\n", " ")).translate(_MARKUP)


def code_span(text: str) -> str:
    """`text` as a code span in a table cell: shown literally (only '|' needs its backslash there),
    fenced by more backticks than any run of them inside."""
    body = displayable(text.replace("\r", " ").replace("\n", " ")).replace("|", "\\|")
    fence = "`" * (max(map(len, re.findall("`+", body)), default=0) + 1)
    pad = " " if body.startswith("`") or body.endswith("`") else ""
    return f"{fence}{pad}{body}{pad}{fence}"


def shown_message(text: str) -> str:
    """A finding's message: its `backticked` parts as code spans, the rest as text (as on the pages)."""
    parts = text.split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick is just a character
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    return "".join(code_span(part) if i % 2 else shown_text(part) for i, part in enumerate(parts))


def format_gitlab(findings: Sequence[Finding], summary: str, ownership: Ownership | None = None) -> str:
    """A GitLab Code Quality report (artifacts:reports:codequality). Fingerprints leave out line
    numbers, so a finding that only moved keeps its fingerprint; repeats get an occurrence number.
    With `ownership`, each description ends with who owns what the finding is about."""
    seen: dict[str, int] = {}
    issues = []
    for f in findings:
        identity = "\0".join(part or "" for part in f.identity)
        seen[identity] = seen.get(identity, 0) + 1
        fingerprint = hashlib.md5(f"{identity}\0{seen[identity]}".encode("utf-8", "surrogatepass"),
                                  usedforsecurity=False).hexdigest()
        issues.append({
            "description": f.message if ownership is None else f"{f.message}; {ownership.of_finding(f).said}",
            "check_name": f.code,
            "fingerprint": fingerprint,
            "severity": {Severity.ERROR: "major", Severity.WARNING: "minor"}.get(f.severity, "info"),
            "location": {"path": f.path, "lines": {"begin": max(f.line, 1)}},
        })
    return _json(issues)


FORMATS: dict[str, Callable[[Sequence[Finding], str, Ownership | None], str]] = {
    "text": format_text,
    "json": format_json,
    "github": format_github,
    "gitlab": format_gitlab,
}
