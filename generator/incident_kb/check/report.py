"""`kb report`: what needs action, for a scheduled issue: reclaimable performance with the gains at
stake, overdue reverts, unverified restores and stale docs, each with its owners.

Made from the checked knowledge base's findings (the rules decide what needs action; nothing is
judged here a second time) and, for the knobs to restore, `find_reclaimable`'s gains. Printed as
markdown (escaped as the step summary is: record text never becomes markup) or JSON.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date

from ..findings import Finding
from ..rules.knob_rules import find_reclaimable
from ..wording import plural
from .formats import code_span, shown_message, shown_text
from .owners import Owners, Ownership
from .pipeline import KnowledgeBase


@dataclass(frozen=True, slots=True)
class Section:
    key: str  # the JSON key: an interface
    title: str
    code: str  # the finding code that puts an item here
    one: str  # how the count line says one item
    many: str


SECTIONS = (
    Section("reclaimable", "Reclaimable performance", "reclaimable-knob", "knob to restore", "knobs to restore"),
    Section("overdue_reverts", "Overdue reverts", "revert-overdue", "overdue revert", "overdue reverts"),
    Section("unverified_restores", "Unverified restores", "restore-unverified", "unverified restore",
            "unverified restores"),
    Section("stale_docs", "Stale docs", "stale-doc", "stale doc", "stale docs"),
)


@dataclass(frozen=True, slots=True)
class Item:
    finding: Finding
    owners: Owners
    gains: str | None = None  # reclaimable: what restoring it reclaims
    stake_pct: float | None = None  # reclaimable: the largest gain told from noise

    def to_json(self) -> dict[str, object]:
        f = self.finding
        found: dict[str, object] = {"path": f.path, "line": f.line, "subject": f.subject,
                                    "owners": list(self.owners.names),
                                    "owned_by_nobody": None if self.owners.names else self.owners.why_nobody,
                                    "message": f.message}
        if self.gains is not None:
            found |= {"gains": self.gains, "stake_pct": self.stake_pct}
        return found


@dataclass(frozen=True)
class Report:
    today: date
    summary: str
    items: tuple[tuple[Section, tuple[Item, ...]], ...]

    @property
    def needs_action(self) -> int:
        return sum(len(items) for _, items in self.items)


def build_report(kb: KnowledgeBase) -> Report:
    """What needs action in the checked knowledge base `kb`, each item with its owners."""
    ownership = Ownership.of(kb)
    reclaimable = {item.knob.id: item for item in find_reclaimable(kb.catalog, kb.rule_settings.min_gain_pct)}
    sections = []
    for section in SECTIONS:
        items = []
        for f in kb.findings:
            if f.code != section.code:
                continue
            knob = reclaimable.get(f.subject or "") if section.key == "reclaimable" else None
            items.append(Item(f, ownership.of_finding(f), knob.gains_text if knob else None,
                              knob.stake_pct if knob else None))
        if section.key == "reclaimable":  # the most at stake first, then those with nothing told from noise
            items.sort(key=lambda item: (item.stake_pct is None, -(item.stake_pct or 0.0), item.finding.subject or ""))
        sections.append((section, tuple(items)))
    return Report(kb.today or kb.rule_settings.today, kb.summary, tuple(sections))


def format_report_json(report: Report) -> str:
    document: dict[str, object] = {"today": report.today.isoformat(), "needs_action": report.needs_action}
    document |= {section.key: [item.to_json() for item in items] for section, items in report.items}
    return json.dumps(document, indent=2, ensure_ascii=True) + "\n"


def format_report_markdown(report: Report) -> str:
    """The issue's body: a heading, one line of counts, then a section per kind that has items."""
    lines = ["# incident-kb report", ""]
    if not report.needs_action:
        lines += [f"Nothing needs action as of {report.today.isoformat()} ({shown_text(report.summary)}).", ""]
        return "\n".join(lines)
    counts = ", ".join(plural(len(items), section.one, section.many) for section, items in report.items if items)
    lines += [f"As of {report.today.isoformat()}, {plural(report.needs_action, 'thing needs', 'things need')} "
              f"action: {counts} ({shown_text(report.summary)}).", ""]
    for section, items in report.items:
        if not items:
            continue
        lines += [f"## {section.title} ({len(items)})", ""]
        if section.key == "reclaimable":
            lines += ["| knob | at stake | owners | what to do |", "|---|---|---|---|"]
            lines += [f"| {code_span(item.finding.subject or item.finding.path)} | {shown_text(item.gains or '')} | "
                      f"{_owners_cell(item.owners)} | {shown_message(item.finding.message)} |" for item in items]
        else:
            lines += ["| where | owners | what to do |", "|---|---|---|"]
            lines += [f"| {code_span(f'{item.finding.path}:{item.finding.line}')} | {_owners_cell(item.owners)} | "
                      f"{shown_message(item.finding.message)} |" for item in items]
        lines.append("")
    return "\n".join(lines)


def _owners_cell(owners: Owners) -> str:
    if owners.names:
        return ", ".join(code_span(name) for name in owners.names)
    return shown_text(f"owned by nobody ({owners.why_nobody})")

