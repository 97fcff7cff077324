"""Findings: everything the tool reports, and the one error that stops it.

A finding is data, never an exception. Codes are stable slugs (an interface: outside tests and
configs name them); each has a default severity and a one-line meaning, declared here once.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, field, replace


class Severity(str, enum.Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"  # said, never a failure (a reference another knowledge base resolves)

    def __str__(self) -> str:
        return self.value


class KbError(Exception):
    """The tool cannot continue (unreadable root, bad arguments, git missing): exit 2."""


class NotAKnowledgeBase(KbError):
    """The folder taken as the knowledge base is not one (missing, unreadable, no record folders).
    As a string it tells the command line's user to pass --root; `problem` alone is for callers
    that name the folder another way (the MkDocs plugin's `root` option)."""

    def __init__(self, problem: str, fix: str) -> None:
        super().__init__(f"{problem}; {fix}")
        self.problem = problem


@dataclass(frozen=True, slots=True)
class Code:
    slug: str
    severity: Severity
    meaning: str


_CODES = (
    # Reading and schema
    Code("yaml-syntax", Severity.ERROR, "the file is not valid YAML (includes duplicate keys and aliases)"),
    Code("unreadable-file", Severity.ERROR, "the file cannot be read as UTF-8 text of a sane size"),
    Code("not-a-mapping", Severity.ERROR, "the file's top level is not a mapping of fields"),
    Code("unknown-field", Severity.ERROR, "a field the schema does not define (often a typo)"),
    Code("missing-field", Severity.ERROR, "a required field is absent"),
    Code("bad-type", Severity.ERROR, "a field holds the wrong kind of value"),
    Code("bad-value", Severity.ERROR, "a field's value is outside what the schema allows"),
    # Between fields and records
    Code("id-mismatch", Severity.ERROR, "a record's id differs from its file name"),
    Code("duplicate-id", Severity.ERROR, "two records, hypotheses or entries share an id"),
    Code("dangling-ref", Severity.ERROR, "a reference names a record or hypothesis that does not exist"),
    Code("unresolved-here", Severity.INFO,
         "a NAME:ID reference to another knowledge base's record, which kb org check resolves (not an error here)"),
    Code("unreadable-kb", Severity.ERROR,
         "an organisation's knowledge base that cannot be read (missing folder, git URL or ref); the rest is checked"),
    Code("date-order", Severity.ERROR, "dates that must be in order are not"),
    Code("status-mismatch", Severity.ERROR, "a knob's status differs from its last history entry"),
    Code("root-cause", Severity.ERROR, "a resolved incident lacks a confirmed root cause"),
    Code("bad-path", Severity.ERROR, "a path is absolute or escapes the repository"),
    Code("missing-path", Severity.ERROR, "a path names a file that does not exist"),
    Code("bad-config", Severity.ERROR, "the [tool.incident-kb] configuration is invalid"),
    Code("unmatchable-name", Severity.WARNING,
         "a knob's setting name or alias can never be found in a doc as one token (use 'aliases:')"),
    # What the records imply
    Code("reclaimable-knob", Severity.ERROR,
         "a knob stays reverted although every hypothesis behind its revert has fallen "
         "(refuted, or another root cause)"),
    Code("knob-drift", Severity.ERROR,
         "a knob's deploy files disagree with its status or value (at the deploy file's line)"),
    Code("unreadable-setting", Severity.ERROR,
         "a deploy file names a knob's setting in a form kb cannot read, so drift there cannot be judged"),
    Code("restore-candidate", Severity.WARNING,
         "the evidence since a revert, weighed (strongest, then newest), speaks against the hypothesis it tests"),
    Code("correlation-only-revert", Severity.WARNING,
         "a knob was reverted on correlation alone, under an open hypothesis"),
    Code("unexplained-revert", Severity.WARNING, "a reverted knob names no incident and hypothesis for its revert"),
    Code("changed-under-refuted", Severity.WARNING,
         "a knob's value or status was last changed under a hypothesis later refuted (or another root cause)"),
    Code("revert-overdue", Severity.WARNING,
         "a knob stays reverted under a hypothesis still open past its review date"),
    Code("gain-within-noise", Severity.WARNING,
         "a gain claimed for a knob's value whose 95% interval includes zero, or that is below min-gain-pct"),
    Code("unmeasured-value", Severity.WARNING,
         "an active knob with no measurement at its current value, unmeasured-value-days after it was set"),
    Code("restore-unverified", Severity.WARNING,
         "a knob restored more than restore-verify-days ago with nothing measured since the restore"),
    Code("restore-not-reproduced", Severity.WARNING,
         "a restored knob whose newest measurement since the restore does not show its gain back"),
    # What git history implies
    Code("stale-doc", Severity.ERROR, "a doc was last committed before a material change of a record it refers to"),
    Code("missing-history", Severity.ERROR,
         "record versions a partial clone lacks (kb does not fetch them): stale-doc cannot judge the docs about them"),
    Code("unjudged-doc", Severity.WARNING,
         "a doc refers to a record, but git has no history of it here (ignored, or in a submodule): "
         "stale-doc cannot judge it"),
)

CODES: dict[str, Code] = {code.slug: code for code in _CODES}
_NUMBER = re.compile(r"\b\d+\b")


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    severity: Severity
    path: str  # repository-relative, '/'-separated
    line: int  # 1-based; 1 when the finding is about the file as a whole
    column: int  # 1-based
    subject: str | None  # the record id, when known
    message: str
    # The field the finding is about, as a key path ('measurements[1].delta_pct'), when it was made
    # from one: PR mode matches findings by it, so a finding that moves lines stays the same one.
    key: str | None = field(default=None, compare=False)

    @property
    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.path, self.line, self.column, self.code, self.message)

    @property
    def identity(self) -> tuple[str, str, str | None, str]:
        """What stays the same when a finding only moves: code, file, record, message less its numbers."""
        return self.code, self.path, self.subject, _NUMBER.sub("#", self.message)

    def with_severity(self, severity: Severity) -> Finding:
        return replace(self, severity=severity)

    def to_json(self) -> list[object]:
        """The finding as JSON values (for the cache), read back by `finding_from_json`."""
        return [self.code, self.severity.value, self.path, self.line, self.column, self.subject, self.message, self.key]


def finding_from_json(values: list[object]) -> Finding:
    code, severity, path, line, column, subject, message, key = values
    return Finding(code, Severity(severity), path, line, column, subject, message, key)  # type: ignore[arg-type]


def finding(code: str, path: str, line: int, column: int, subject: str | None, message: str,
            key: str | None = None) -> Finding:
    """A finding with the code's default severity (configuration may change it later)."""
    return Finding(code, CODES[code].severity, path, line, column, subject, message, key)
