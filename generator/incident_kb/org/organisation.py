"""The organisation checked: every knowledge base its configuration names, each read where it lies
and checked as `kb check` checks it, with `NAME:ID` references resolved among them (a dangling one
is an error) and verdicts following them (a knob reverted under another knowledge base's refuted
hypothesis is reclaimable). A knowledge base that cannot be read is a finding naming it; the others
are checked all the same.

Findings keep their knowledge base's name: `payments/knobs/db-pool-size.yaml` (`member_path`); those
about the configuration itself are at its own lines (`mkdocs.yml:12:11`).
"""

from __future__ import annotations

import dataclasses
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from ..check.pipeline import CheckMode, KnowledgeBase, RecordsRead, check_knowledge_base, read_records
from ..findings import Finding, KbError, NotAKnowledgeBase, Severity, finding
from ..records.model import Catalog
from ..records.vocabulary import RecordKind
from ..wording import plural
from .configuration import KnowledgeBaseEntry, OrgConfig
from .sources import SourceUnreadable, knowledge_base_folder


@dataclass(frozen=True, slots=True)
class Member:
    """One knowledge base of the organisation: where it was read, and the check of it (None when it
    could not be read: the organisation's findings say why)."""

    entry: KnowledgeBaseEntry
    root: Path | None
    kb: KnowledgeBase | None

    @property
    def name(self) -> str:
        return self.entry.name


@dataclass(frozen=True, slots=True)
class Organisation:
    """The checked organisation: its members in the configuration's order, and every finding (the
    configuration's, each unreadable knowledge base's, each member's under its name), sorted by place."""

    config: OrgConfig
    members: tuple[Member, ...]
    findings: tuple[Finding, ...]
    notes: tuple[str, ...] = ()

    @property
    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)

    @property
    def summary(self) -> str:
        """'2 knowledge bases (1 not read): 1 knob, 1 incident checked'."""
        read = [m.kb for m in self.members if m.kb is not None]
        counts = [(sum(len(kb.catalog.records(kind)) + len(kb.catalog.broken_ids[kind]) for kb in read), kind.value)
                  for kind in RecordKind]
        unread = len(self.members) - len(read)
        return (plural(len(self.members), "knowledge base") + (f" ({unread} not read)" if unread else "") + ": "
                + ", ".join(plural(n, word) for n, word in counts) + " checked")


def member_path(name: str, rel_path: str) -> str:
    """A knowledge base's file as the organisation names it: 'payments/knobs/db-pool-size.yaml'."""
    return f"{name}/{rel_path}"


def check_organisation(config: OrgConfig, *, today: date | None = None, allow_shallow: bool = False,
                       timelines: bool = False) -> Organisation:
    """Every knowledge base of `config` read and checked together (see the module's docstring)."""
    findings: list[Finding] = list(config.findings)
    with ExitStack() as held:  # the clones in kb's cache, locked until every knowledge base is checked
        roots: dict[str, Path] = {}
        read: dict[str, RecordsRead] = {}  # each knowledge base's records, read once: for the others, then its check
        catalogs: dict[str, Catalog] = {}
        for entry in config.entries:  # first every catalog, so references resolve whatever the order
            try:
                root = knowledge_base_folder(entry, config.folder, held)
                read[entry.name] = read_records(root, {}, cache=True)
                catalogs[entry.name] = read[entry.name].catalog
                roots[entry.name] = root
            except NotAKnowledgeBase as exc:  # its own words tell a command line's user to pass --root
                findings.append(_unreadable(config, entry, f"{exc.problem}, so it is not a knowledge base"))
            except (SourceUnreadable, KbError) as exc:
                findings.append(_unreadable(config, entry, str(exc)))
        members: list[Member] = []
        notes: list[str] = []
        for entry in config.entries:
            kb = None
            if entry.name in roots:
                try:
                    kb = check_knowledge_base(roots[entry.name], CheckMode(today, allow_shallow, timelines=timelines),
                                              neighbourhood=(entry.name, catalogs), read=read[entry.name])
                except KbError as exc:  # e.g. a shallow clone: its history cannot be judged
                    findings.append(_unreadable(config, entry, str(exc)))
                else:
                    findings.extend(dataclasses.replace(f, path=member_path(entry.name, f.path)) for f in kb.findings)
                    notes.extend(f"{entry.name}: {note}" for note in kb.notes)
            members.append(Member(entry, roots.get(entry.name), kb))
    return Organisation(config, tuple(members), tuple(sorted(findings, key=lambda f: f.sort_key)), tuple(notes))


def _unreadable(config: OrgConfig, entry: KnowledgeBaseEntry, why: str) -> Finding:
    return finding("unreadable-kb", config.rel_path, entry.line, entry.column, entry.name,
                   f"knowledge base '{entry.name}' ({entry.where}) cannot be read: {why}; the others were checked. "
                   "Fix its entry under knowledge_bases:, or make it readable")

