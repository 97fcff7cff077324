"""The org site's home page: the organisation's reclaimable ledger (each knowledge base's knobs kept
reverted although every hypothesis behind the revert has fallen, per knowledge base and in total),
and every knowledge base's findings, each linking to the pages under the knowledge base's name.

Pure: the checked organisation in, markdown out. The verdicts are the rules' own
(`rules.knob_rules.find_reclaimable`, which follows `NAME:ID` references through the catalog): the
page never decides what the check does not. Beside each knowledge base's row, who owns its records.
"""

from __future__ import annotations

from collections import Counter

from ...org.organisation import Member, Organisation, member_path
from ...records.model import signed_pct
from ...records.vocabulary import RecordKind
from ...rules.knob_rules import find_reclaimable
from ...wording import plural
from .markup import code, finding_message, plain

ORG_HOME = "index.md"
SHOWN_FINDINGS = 50  # per knowledge base: the rest are on its own findings page
SHOWN_OWNERS = 3  # per knowledge base, on its row: the rest filter its indexes


def render_org_home(organisation: Organisation, site_name: str, findings: bool = True) -> str:
    """The org home page's markdown (`findings`: False on a site for readers outside the teams)."""
    lines = [f"# {plain(site_name)}", "",
             f"{plural(len(organisation.members), 'knowledge base')}, one site: every record page lives under its "
             "knowledge base's name, and search covers them all.", "", "## Reclaimable across the organisation", ""]
    rows: list[str] = []
    total = 0
    for member in organisation.members:
        if member.kb is None:
            continue
        found = find_reclaimable(member.kb.catalog, member.kb.config.min_gain_pct)
        total += len(found)
        for item in sorted(found, key=lambda r: (-(r.stake_pct or 0.0), r.knob.id)):
            page = member_path(member.name, RecordKind.KNOB.page_path(item.knob.id))
            stake = signed_pct(item.stake_pct) if item.stake_pct is not None else "within noise"
            rows.append(f"| {plain(member.name)} | [{plain(item.knob.name)}]({page}) | {plain(stake)} | "
                        f"{plain(item.gains_text or 'nothing measured')} | {plain(item.reason)} |")
    per_kb = [f"{plain(m.name)} {_reclaimable_count(m)}" for m in organisation.members if m.kb is not None]
    lines.append(f"**{plural(total, 'knob')} reclaimable in total** ({', '.join(per_kb) or 'no knowledge base read'}).")
    lines.append("")
    if rows:
        lines += ["| knowledge base | knob | best gain | what restoring reclaims | why its revert fell |",
                  "|---|---|---|---|---|", *rows, ""]
    lines += ["## Knowledge bases", "",
              "| knowledge base | owners | knobs | incidents | reclaimable | errors | warnings |",
              "|---|---|---|---|---|---|---|"]
    for member in organisation.members:
        if member.kb is None:
            lines.append(f"| {plain(member.name)} | | not read | | | | |")
            continue
        catalog = member.kb.catalog
        errors = sum(1 for f in member.kb.findings if f.severity.value == "error")
        warnings = sum(1 for f in member.kb.findings if f.severity.value == "warning")
        lines.append(f"| [{plain(member.name)}]({member.name}/index.md) | {_owners(member)} | {len(catalog.knobs)} | "
                     f"{len(catalog.incidents)} | {_reclaimable_count(member)} | {errors} | {warnings} |")
    lines.append("")
    if findings:
        lines += _findings(organisation)
    return "\n".join(lines) + "\n"


def _owners(member: Member) -> str:
    """Who owns the knowledge base's records (their `owners:`), those owning most first: at most
    SHOWN_OWNERS, then how many more; its knobs and incidents indexes filter by each."""
    assert member.kb is not None
    catalog = member.kb.catalog
    counted = Counter(owner for kind in RecordKind for record in catalog.records(kind).values()
                      for owner in dict.fromkeys(record.owners))
    if not counted:
        return "none recorded"
    ranked = sorted(counted, key=lambda owner: (-counted[owner], owner))
    more = len(ranked) - SHOWN_OWNERS
    return ", ".join(plain(owner) for owner in ranked[:SHOWN_OWNERS]) + (
        f" and {more} more" if more > 0 else "")


def _reclaimable_count(member: Member) -> str:
    kb = member.kb
    return str(len(find_reclaimable(kb.catalog, kb.config.min_gain_pct))) if kb is not None else "0"


def _findings(organisation: Organisation) -> list[str]:
    """Every finding of the organisation (its configuration's, each knowledge base's), by place."""
    lines = ["## Findings", ""]
    if not organisation.findings:
        return [*lines, "kb org check reports nothing: all good.", ""]
    shown = organisation.findings[:SHOWN_FINDINGS * max(1, len(organisation.members))]
    for item in shown:
        where = f"{item.path}:{item.line}"
        lines.append(f"- {code(where)} {plain(item.severity.value)} {code(item.code)}: "
                     f"{finding_message(item.message, in_markdown=True)}")
    if len(shown) < len(organisation.findings):
        lines.append(f"- and {len(organisation.findings) - len(shown)} more: run `kb org check`")
    return [*lines, ""]
