"""Rendering the site again after a change, re-rendering only the pages whose inputs changed (the
live preview of `mkdocs serve`).

A page's inputs are the questions its view asked of the context while it rendered, with their
answers (context.SiteContext records them: nothing is listed by hand beside a view). A page whose
every question gets the same answer again is reused as it was; any other is rendered as
`render_site` renders it. The settings, the root and the templates hold for every page: when one of
them changed, nothing is reused. The result is the same `Bundle` a full `render_site` of the same
knowledge base gives, byte for byte (tests/website/test_incremental.py proves it over series of edits).
Pure, like `pages`: writes nothing.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ...check.pipeline import KnowledgeBase
from ...records.model import Suspicion
from ...records.schema import Incident, Knob
from ...records.vocabulary import RecordKind
from .bundle import Bundle, site_needs
from .context import Read, SiteContext, gather_site_context
from .feed import FEED, render_feed
from .links import FINDINGS_PAGE, INCIDENT_INDEX, KNOB_INDEX, SiteSettings, incident_page, knob_page
from .overview_pages import Rows
from .pages import (
    TEMPLATES,
    RenderedPage,
    banner_pages,
    findings_files,
    fixed_files,
    fixed_pages,
    home_files,
    incident_files,
    incident_index_files,
    knob_files,
    knob_index_files,
)

Record = Knob | Incident
_NUMBERS = itertools.count()


@dataclass(frozen=True)
class _Page:
    reads: list[Read]  # the questions the page asked, with their answers
    rendered: RenderedPage


@dataclass(frozen=True)
class _Version:
    """A record in a recorded answer: equal versions, equal records (see _versions)."""

    kind: RecordKind
    record_id: str
    number: int


@dataclass(frozen=True)
class SiteRender:
    """A render of the site and what each of its pages was made from, for the next render."""

    site: Bundle
    rendered: tuple[str, ...]  # the pages rendered this time (the others were reused)
    stamp: object = None  # what every page depends on: settings, root, templates
    pages: dict[str, _Page] = field(default_factory=dict)
    records: dict[tuple[RecordKind, str], tuple[Record, _Version]] = field(default_factory=dict)
    rows: dict[str, Rows] = field(default_factory=dict)  # each index's rows, by record id


def render_site_again(kb: KnowledgeBase, settings: SiteSettings, previous: SiteRender | None) -> SiteRender:
    """The site of `kb`, as `render_site(kb, settings)` renders it, reusing from `previous` every
    page whose questions get the same answers (None: render everything)."""
    context = gather_site_context(kb, settings, lazy_charts=True)
    stamp = (settings, kb.root, _template_stamp())
    same = previous is not None and previous.stamp == stamp
    reusable = previous.pages if previous is not None and same else {}
    records = _versions(context, previous.records if previous is not None else {})
    context.recorded = functools.partial(_versioned, records=records)
    rows: dict[str, Rows] = {KNOB_INDEX: {}, INCIDENT_INDEX: {}}

    def index_rows(path: str) -> tuple[Rows, Rows]:
        return (previous.rows.get(path, {}) if previous is not None and same else {}), rows[path]
    pages: dict[str, _Page] = {}
    rendered: list[str] = []

    def page(path: str, render: Callable[[], RenderedPage]) -> None:
        before = reusable.get(path)
        if before is None or not context.answers_again(before.reads):
            with context.recording() as reads:
                rendered_page = render()
            before = _Page(_distinct(reads), rendered_page)
            rendered.append(path)
        pages[path] = before

    # page() calls each render before the loop moves on: the lambdas read this turn's record (B023).
    for knob in context.knobs():
        page(knob_page(knob.id), lambda: knob_files(context, knob))  # noqa: B023
    for incident in context.incidents():
        page(incident_page(incident.id), lambda: incident_files(context, incident))  # noqa: B023
    page(KNOB_INDEX, lambda: knob_index_files(context, index_rows(KNOB_INDEX)))
    page(INCIDENT_INDEX, lambda: incident_index_files(context, index_rows(INCIDENT_INDEX)))
    if settings.findings:
        page(FINDINGS_PAGE, lambda: findings_files(context))
    page(settings.home_path, lambda: home_files(context))
    files: dict[str, str] = {}
    for kept in pages.values():
        files.update(kept.rendered.files)
    files.update(fixed_files(settings))
    files[FEED] = render_feed(context.knobs(), context.incidents(), settings.site_name, settings.site_url,
                              settings.directory_urls)
    for path, known in rows.items():  # an index not rendered this time keeps its rows
        if not known and previous is not None and same:
            rows[path] = previous.rows.get(path, {})
    metas = {path: meta for kept in pages.values() for path, meta in kept.rendered.metas.items()}
    bundle = Bundle(files, {**metas, **fixed_pages(settings), **banner_pages(context)}, site_needs(kb.root))
    return SiteRender(bundle, tuple(rendered), stamp, pages, records, rows)


def _distinct(reads: list[Read]) -> list[Read]:
    """A page's reads, each question once (a page asks some of them several times; a context's
    answer to a question is the same each time): a third fewer to ask again after each save."""
    seen: set[tuple[str, tuple[object, ...]]] = set()
    kept: list[Read] = []
    for read in reads:
        key = (read[0], read[1])
        try:
            if key in seen:
                continue
            seen.add(key)
        except TypeError:  # an argument that cannot be a key: kept as asked
            pass
        kept.append(read)
    return kept


def _versions(context: SiteContext, before: dict[tuple[RecordKind, str], tuple[Record, _Version]]
              ) -> dict[tuple[RecordKind, str], tuple[Record, _Version]]:
    """Each record with a version that stays the same while the record stays equal: comparing
    answers then compares each record once per render, not once per page that shows it."""
    versions: dict[tuple[RecordKind, str], tuple[Record, _Version]] = {}
    for kind, records in ((RecordKind.KNOB, context.knobs()), (RecordKind.INCIDENT, context.incidents())):
        for record in records:
            key = (kind, record.id)
            known = before.get(key)
            same = known is not None and (known[0] is record or known[0] == record)
            versions[key] = (record,
                             known[1] if known is not None and same else _Version(kind, record.id, next(_NUMBERS)))
    return versions


def _versioned(value: object, records: dict[tuple[RecordKind, str], tuple[Record, _Version]]) -> object:
    """An answer as recorded: each record of the catalog in it replaced by its version."""
    kind = _KINDS.get(type(value))
    if kind is not None:
        known = records.get((kind, value.id))  # type: ignore[attr-defined]
        return known[1] if known is not None and known[0] is value else value
    if isinstance(value, tuple):
        return tuple([_versioned(item, records) for item in value]) if value else value
    if isinstance(value, (Knob, Incident)):  # a subclass (none today), as the catalog's look-up would give
        known = records.get((RecordKind.KNOB if isinstance(value, Knob) else RecordKind.INCIDENT, value.id))
        if known is not None and known[0] is value:
            return known[1]
    if isinstance(value, Suspicion):
        return (_versioned(value.incident, records), value.hypothesis)
    return value


_KINDS: dict[type, RecordKind] = {Knob: RecordKind.KNOB, Incident: RecordKind.INCIDENT}


def _template_stamp() -> tuple[tuple[str, int], ...]:
    """The templates as they are on disk (Jinja reloads a changed template: so must this)."""
    return tuple(sorted((path.name, path.stat().st_mtime_ns) for path in Path(TEMPLATES).iterdir()))
