"""Who owns what a finding is about, decided once: a knob's or incident's `owners:`, any other file's
owners from CODEOWNERS (settings/codeowners.py). The output formats, the exoneration notice and
`kb report` all ask here. Nothing is guessed: a path nobody owns is said to be owned by nobody,
with the reason.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..findings import Finding
from ..records.vocabulary import RecordKind

if TYPE_CHECKING:  # light at import: the output formats import this module before any check runs
    from ..records.model import Catalog
    from ..settings.codeowners import CodeOwners
    from .pipeline import KnowledgeBase

# Findings made at a deploy file about a knob: the knob's owners act on them.
_ABOUT_THE_KNOB = ("knob-drift", "unreadable-setting")


@dataclass(frozen=True, slots=True)
class Owners:
    names: tuple[str, ...]
    why_nobody: str = ""  # when names is empty: why, in a few words

    @property
    def text(self) -> str:
        """'@a, @b', or 'owned by nobody (why)'."""
        return ", ".join(self.names) if self.names else f"owned by nobody ({self.why_nobody})"

    @property
    def said(self) -> str:
        """'owners: @a, @b', or 'owned by nobody: why' (the end of a sentence about the thing owned)."""
        return f"owners: {', '.join(self.names)}" if self.names else f"owned by nobody: {self.why_nobody}"


class Ownership:
    """The owners of a knowledge base's records and files."""

    def __init__(self, catalog: Catalog, codeowners: CodeOwners) -> None:
        self.catalog = catalog
        self.codeowners = codeowners
        self._records = {source.rel_path: key for key, source in catalog.sources.items()}

    @classmethod
    def of(cls, kb: KnowledgeBase) -> Ownership:
        return cls(kb.catalog, kb.settings.codeowners)

    def of_record(self, kind: RecordKind, record_id: str) -> Owners:
        record = self.catalog.records(kind).get(record_id)
        if record is None:
            return Owners((), f"no valid {kind} '{record_id}'")
        return Owners(tuple(record.owners), f"{kind} '{record_id}' has no owners:")

    def of_path(self, rel_path: str) -> Owners:
        """A record file's record's owners; any other file's from CODEOWNERS."""
        key = self._records.get(rel_path)
        if key is not None:
            return self.of_record(*key)
        codeowners = self.codeowners
        if codeowners.problem is not None:
            return Owners((), codeowners.problem)
        if codeowners.rel_path is None:
            return Owners((), "no CODEOWNERS file")
        return Owners(codeowners.owners_of(rel_path), f"no line of {codeowners.rel_path} gives it an owner")

    def of_finding(self, item: Finding) -> Owners:
        if item.code in _ABOUT_THE_KNOB and item.subject is not None and item.subject in self.catalog.knobs:
            return self.of_record(RecordKind.KNOB, item.subject)
        return self.of_path(item.path)


def by_owner(findings: Sequence[Finding], ownership: Ownership) -> list[tuple[str | None, list[Finding]]]:
    """The findings grouped by owner (a finding with two owners is in both groups), owners by name,
    then those owned by nobody (owner None)."""
    groups: dict[str | None, list[Finding]] = {}
    for item in findings:
        names: Iterable[str | None] = ownership.of_finding(item).names or (None,)
        for name in names:
            groups.setdefault(name, []).append(item)
    return sorted(groups.items(), key=lambda group: (group[0] is None, (group[0] or "").lower()))
