"""The walk over the mainline: each record path's lineage of versions, each doc's last change.

Replays the changes `gitio.read_log` lists (and the work tree's), following renames. Knows what a
record path and a doc are, nothing of what a record says.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..records.vocabulary import record_kind_of
from ..wording import day
from .gitio import FileChange


@dataclass(frozen=True, slots=True)
class Moment:
    """A point on the mainline: a commit, or the uncommitted state of the work tree, or the commit
    being made (`kb check --staged`; either is the newest)."""

    index: int  # position among the commits read, oldest first; the work tree comes after them all
    commit: str | None  # None for uncommitted changes
    date: datetime | None
    staged: bool = False  # the index's changes: the commit being made

    @property
    def short_id(self) -> str | None:
        return self.commit[:7] if self.commit else None

    def __str__(self) -> str:
        if self.commit is None:
            return "the commit being made" if self.staged else "uncommitted changes in the work tree"
        if self.date is None:
            return f"commit {self.commit[:7]} (its date cannot be read)"
        return f"commit {self.commit[:7]} ({day(self.date.astimezone(UTC))})"  # as the site says it


@dataclass(slots=True)
class Version:
    at: Moment
    blob: str | None  # None: read the work tree's file
    path: str


class Walk:
    """Replays the commits' changes: each record path's lineage of versions, each doc's last change."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.lineages: dict[str, list[Version]] = {}
        self.doc_changes: dict[str, Moment] = {}

    def apply(self, changes: Iterable[FileChange], at: Moment, from_work_tree: bool = False) -> None:
        changes = list(changes)
        moved_records: dict[str, list[Version]] = {}
        moved_docs: dict[str, Moment] = {}
        for change in changes:  # first take away what was deleted or renamed
            old = self._relative(change.old_path if change.status == "R" else change.path)
            if old is None or change.status not in "RD":
                continue
            if old in self.lineages:
                moved_records[old] = self.lineages.pop(old)
            if old in self.doc_changes:
                moved_docs[old] = self.doc_changes.pop(old)
        for change in changes:
            path = self._relative(change.path)
            if path is None or change.status == "D":
                continue
            old = self._relative(change.old_path) if change.status == "R" else None
            unchanged = change.status == "R" and change.similarity == 100 and not from_work_tree
            if is_record(path):
                if change.status == "R":
                    lineage = moved_records.get(old or "", [])
                elif change.status == "A":
                    lineage = []
                else:
                    lineage = self.lineages.get(path, [])
                if not (unchanged and lineage):
                    lineage.append(Version(at, None if from_work_tree else change.new_blob, path))
                self.lineages[path] = lineage
            elif unchanged and old in moved_docs:
                self.doc_changes[path] = moved_docs[old]
            else:
                self.doc_changes[path] = at

    def _relative(self, path: str | None) -> str | None:
        if path is None or not path.startswith(self.prefix):
            return None
        return path[len(self.prefix):]


def is_record(path: str) -> bool:
    return record_kind_of(path) is not None
