"""Small pieces that several pages share: badges, dates, facts and tables, front matter, and the
boxes that show `kb check` findings.

Also decides where each finding is shown: on the page of the record file it is about, as a banner
on the hand-written page it is about, and always in the home page's list. The decision is by path
only, so findings that new rules add appear with no change here. Returns markup; reads no file
(it only asks whether a hand-written page exists).
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime

from markupsafe import Markup

from ...check.pipeline import KnowledgeBase
from ...deploy.patterns import value_text
from ...findings import Finding, Severity
from ...records.links import named_paths
from ...records.model import running_setting
from ...records.schema import Knob
from ...records.verdicts import EvidenceEffect
from ...records.vocabulary import DOC_SUFFIXES, EvidenceKind, RecordKind, Stance
from ...repository.files import is_file
from ...wording import day, plural
from .changes import Change, Committed
from .links import TAGS_FIELD, SiteSettings
from .markup import attribute, code, finding_message, label, plain, record_inline, showable


@dataclass(frozen=True)
class Fact:
    label: str
    value: Markup


@dataclass(frozen=True)
class Table:
    columns: tuple[str, ...]
    rows: tuple[tuple[Markup, ...], ...]


def page_tags(tags: Iterable[str]) -> tuple[str, ...]:
    """A page's tags as the site shows them: labelled, each once, in order."""
    return tuple(dict.fromkeys(map(label, tags)))


def front_matter(title: str, tags: tuple[str, ...], boost: float | None = None,
                 search_excluded: bool = False) -> Markup:
    """YAML front matter: the page title, tags (from page_tags) for the tags plugin, a search boost,
    or the page kept out of search."""
    lines = [f"title: {_yaml_text(label(title))}", f"{TAGS_FIELD}:", *(f"  - {_yaml_text(tag)}" for tag in tags)]
    if search_excluded:
        lines += ["search:", "  exclude: true"]
    elif boost is not None:
        lines += ["search:", f"  boost: {boost}"]
    return Markup("\n".join(lines))


# JSON strings are YAML's double-quoted ones, but YAML refuses DEL and the C1 controls written raw
# (a DEL in a title broke the page's front matter): those are written as escapes.
_YAML_UNPRINTABLE = re.compile("[\x7f-\x84\x86-\x9f\ufffe\uffff]")


def _yaml_text(text: str) -> str:
    return _YAML_UNPRINTABLE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", json.dumps(text, ensure_ascii=False))


def source_line(settings: SiteSettings, rel_path: str) -> Markup:
    """The record file behind a page, with a link that edits it."""
    url = settings.edit_url(rel_path)
    edit = f" · [Edit this record]({url})" if url else ""
    return Markup(f"Record: {code(rel_path)}{edit}")


def evidence_badge(kind: EvidenceKind) -> Markup:
    """Evidence marked by kind; CSS makes correlation, the weak kind, stand out."""
    return badge("evidence", kind.value)


_EFFECT_TITLES = {
    EvidenceEffect.PENDING: "the hypothesis is still open",
    EvidenceEffect.BORNE_OUT: "borne out by the verdict",
    EvidenceEffect.MISLEADING: "the verdict went the other way",
}


def stance_badge(stance: Stance, effect: EvidenceEffect) -> Markup:
    """For or against, coloured by what the evidence turned out to be once the hypothesis was
    settled (not by its stance: evidence for the confirmed cause is not alarming)."""
    css = f"kb-badge kb-stance-{stance.value} kb-effect-{effect.value}"
    return Markup(f'<span class="{css}" title="{attribute(_EFFECT_TITLES[effect])}">{attribute(stance.value)}</span>')


def when_text(moment: date | datetime | None) -> str:
    """A date or date-time as a record gives it: 2026-11-05, or 2026-11-05 20:25:00 -07:00 (always
    with seconds and the zone it was written in; UTC, labelled, when it was written without one)."""
    return "" if moment is None else day(moment)


def when_cell(moment: date | datetime | None) -> Markup:
    """when_text for a table cell: a narrow column may put the time (with its zone) under the date,
    but never splits either."""
    return Markup(" ").join(map(_nowrap, when_text(moment).split(" ", 1))) if moment else Markup()


def commit_time_text(moment: datetime) -> str:
    """A commit's time in UTC, saying so: 2026-11-30 13:50:00 UTC."""
    return day(moment.astimezone(UTC) if moment.tzinfo is not None else moment)


def change_when(change: Change) -> Markup:
    """When a record says it changed: its own date or date-time (one clock; see changes.py)."""
    return when_cell(change.when)


def change_what(change: Change, badges: bool = True) -> Markup:
    """What changed: a knob's statuses, before and after ('reverted -> restored', as the issue and
    the record's history say it; as badges unless `badges` is off), or an incident's event."""
    if change.kind is RecordKind.KNOB and change.new_status is not None:
        if not badges:
            return plain(change.what)
        after = badge("status", change.new_status)
        if change.status_moved and change.old_status is not None:
            said = badge("status", change.old_status) + plain(" -> ") + after
        elif change.changed_nothing:
            said = plain("still ") + after
        else:
            said = after
        return said + plain(f", value {change.value_change}") if change.value_change else said
    return record_inline(change.what)


def committed_text(committed: Committed) -> Markup:
    """Git's word, second to the record's: 'committed 08776b1 on 2026-11-30 09:15:20 UTC', or
    'not committed yet: value 512 -> 1024'."""
    if committed.commit is None or committed.when is None:
        return plain("not committed yet" + (f": {committed.pending}" if committed.pending else ""))
    return plain(f"committed {committed.commit} on ") + _nowrap(commit_time_text(committed.when))


def last_changed_fact(change: Change | None, committed: Committed | None) -> tuple[Fact, ...]:
    """'Last change: 2026-11-07, reverted -> restored; committed 08776b1 on 2026-11-30 09:15:20 UTC':
    the record's own dated change first, git second."""
    if change is None:
        return ()
    text = change_when(change) + Markup(", ") + change_what(change)
    if committed is not None:
        text += Markup("; ") + committed_text(committed)
    return (Fact("Last change", text),)


def _nowrap(text: str) -> Markup:
    return Markup('<span class="kb-nowrap">') + plain(text) + Markup("</span>")


def badge(family: str, value: str, text: str | None = None) -> Markup:
    """A coloured label; its text is the value, so the index tables can filter on it."""
    css = re.sub(r"[^a-z0-9]+", "-", f"{family}-{value}".lower()).strip("-")
    return Markup(f'<span class="kb-badge kb-{css}">{attribute(text if text is not None else value)}</span>')


def finding_title(item: Finding) -> str:
    where = f"{item.path}:{item.line}" if item.line else item.path
    return f"{item.severity.value.capitalize()} {item.code} ({where})"


def finding_box(item: Finding) -> Markup:
    """One finding as a warning box; kept out of the search index."""
    kind = {Severity.ERROR: "danger", Severity.WARNING: "warning"}.get(item.severity, "info")
    return Markup(
        f'<div class="admonition {kind} kb-finding" data-search-exclude>\n'
        f'<p class="admonition-title">{html.escape(finding_title(item))}</p>\n'
        f"<p>{finding_message(item.message, in_markdown=False)}</p>\n</div>")


def doc_banner(findings: Sequence[Finding]) -> Markup:
    """The banner on top of a hand-written page that `kb check` reports about."""
    errors = sum(1 for f in findings if f.severity is Severity.ERROR)
    warnings = len(findings) - errors
    counts = ", ".join(part for part in (_count(errors, "error"), _count(warnings, "warning")) if part)
    kind = "danger" if errors else "warning"
    items = "\n".join(f"<li><strong>{html.escape(f.code)}</strong>"
                      f"{' (line ' + str(f.line) + ')' if f.line else ''}: "
                      f"{finding_message(f.message, in_markdown=False)}</li>"
                      for f in findings)
    return Markup(
        f'<div class="admonition {kind} kb-finding kb-banner" data-search-exclude>\n'
        f'<p class="admonition-title">kb check: {counts} about this page</p>\n<ul>\n{items}\n</ul>\n</div>\n')


def _count(n: int, word: str) -> str:
    return plural(n, word) if n else ""


@dataclass(frozen=True)
class FindingPlaces:
    """Where each finding shows, besides the home page's list."""

    by_record: dict[tuple[RecordKind, str], list[Finding]] = field(default_factory=dict)  # (kind, id)
    by_doc: dict[str, list[Finding]] = field(default_factory=dict)  # page path inside the docs folder
    record_pages: dict[str, str] = field(default_factory=dict)  # record file -> generated page

    knob_pages: dict[str, str] = field(default_factory=dict)  # knob id -> its page

    def page_of(self, item: Finding, settings: SiteSettings) -> str | None:
        if item.path in self.record_pages:
            return self.record_pages[item.path]
        inside = settings.docs_path(item.path)
        if inside in self.by_doc:
            return settings.doc_target(inside)
        return self.knob_pages.get(item.subject or "") if (RecordKind.KNOB, item.subject) in self.by_record \
            and item in self.by_record[(RecordKind.KNOB, item.subject or "")] else None


def place_findings(kb: KnowledgeBase, settings: SiteSettings,
                   record_pages: Mapping[str, tuple[RecordKind, str, str]]) -> FindingPlaces:
    """`record_pages` maps a record file to (kind, id, page) for every record that has a page. A
    finding about a knob in another file (drift, at the deploy file's line) shows on the knob's page."""
    places = FindingPlaces(record_pages={path: page for path, (_, _, page) in record_pages.items()},
                           knob_pages={record_id: page for kind, record_id, page in record_pages.values()
                                       if kind is RecordKind.KNOB})
    for item in kb.findings if settings.findings else ():
        if item.path in record_pages:
            kind, record_id, _ = record_pages[item.path]
            places.by_record.setdefault((kind, record_id), []).append(item)
            continue
        inside = settings.docs_path(item.path)
        if inside is not None and inside.endswith(DOC_SUFFIXES) and is_file(kb.root / item.path):
            places.by_doc.setdefault(inside, []).append(item)
        elif _is_deploy_file_of(kb, item):
            places.by_record.setdefault((RecordKind.KNOB, item.subject or ""), []).append(item)
    return places


def _is_deploy_file_of(kb: KnowledgeBase, item: Finding) -> bool:
    """A finding about a knob at a line of one of its deploy files (drift, an unreadable setting): a
    file the knob names as its deployment (`links.named_paths`)."""
    knob = kb.catalog.knobs.get(item.subject or "")
    return knob is not None and any(named.path == item.path for named in named_paths(knob, role="deploy"))


def value_code(value: object, name: str | None = None) -> Markup:
    """A knob's value in code type as a deploy file writes it (`true`, not Python's `True`), as the
    check's messages and `kb` commands say it; with `name`, the setting: `K=true`."""
    return code(f"{name}={value_text(value)}" if name is not None else value_text(value))


def running_sentence(knob: Knob) -> Markup:
    """What runs, then the tuned value, as a sentence (the incident page's knobs still reverted):
    'Runs K=256 (the default); tuned value 512.' (records.model.running_setting decides). Plain
    text: the restore command beside it stays the item's one piece of code."""
    running = running_setting(knob)
    if running.is_tuned:
        return plain(f"Runs {knob.name}={value_text(knob.value)}.")
    runs = f"{knob.name}={value_text(running.value)} (the default)" if running.value is not None else \
        f"{knob.name} unset (its default, not recorded)"
    return plain(f"Runs {runs}; tuned value {value_text(knob.value)}.")


def running_cell(knob: Knob) -> Markup:
    """What runs, for an index cell: the running value (sorted by it), and for a knob that does not
    run its tuned value, where the value comes from and the tuned value it would get back
    (records.model.running_setting decides)."""
    running = running_setting(knob)
    shown = value_code(running.value) if running.value is not None else plain("its default (not recorded)")
    sort = value_text(running.value) if running.value is not None else ""
    cell = Markup(f'<span data-sort="{attribute(showable(sort))}">') + shown + Markup("</span>")
    if not running.is_tuned:
        cell += (Markup('<br><span class="kb-aside">') + plain("default; tuned ") + value_code(knob.value)
                 + Markup("</span>"))
    return cell


def facets(**values: str) -> Markup:
    """A row's facets for an index table's filters (an empty, hidden element in its first cell): the
    values the site decided (reclaimable or not), which the script filters on and never decides."""
    attributes = "".join(f' data-{name.replace("_", "-")}="{attribute(value)}"' for name, value in values.items())
    return Markup(f"<span data-kb-facets{attributes} hidden></span>")
