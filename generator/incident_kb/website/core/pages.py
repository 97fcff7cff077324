"""Rendering: the checked knowledge base in, the site's generated files out.

Markdown pages (home, one index per record kind, a page per record, the tags page), gain charts
and the script and style sheet the pages use, as a Bundle (see bundle.py): docs-relative paths to
text, what each page is (its edit path, in the nav or not, tags, kept out of search) and the
banner for each hand-written page that findings are about. Pure: writes nothing. The MkDocs
adapter and `kb render` write the same bundle.

One Jinja environment with StrictUndefined. Every value a template prints is escaped for markdown
unless Python prepared it as markup, so a template cannot forget to escape.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TypeVar

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from ...check.pipeline import KnowledgeBase
from ...forked import split_map
from ...records.model import knob_gains
from ...records.schema import Incident, Knob
from ...records.vocabulary import RecordKind
from ...repository.files import looks_recorded
from .bundle import Bundle, PageMeta, SearchKind, site_needs
from .context import SiteContext, gather_site_context
from .feed import FEED, render_feed
from .home_page import HomePage, home_view
from .incident_pages import IncidentPage, incident_view
from .knob_pages import KnobPage, knob_view
from .links import ASSETS_DIR, TAGS_LISTING, TAGS_PAGE, SiteSettings, index_rows_file
from .markup import inline_html, plain
from .overview_pages import (
    IndexPage,
    Rows,
    SplitIndex,
    findings_view,
    incident_index_view,
    knob_index_view,
    split_index,
)
from .page_parts import doc_banner

TEMPLATES = Path(__file__).parent / "templates"
ASSETS = Path(__file__).parent / "assets"
ASSET_FILES = ("kb.css", "kb.js")
# A page whose text passes this is kept out of search: Zensical fails a build on a page past about
# 128 KiB of search text, and an index's rows are each a record page that search finds anyway.
SEARCH_LIMIT_BYTES = 120 * 1024


def _escape_unless_prepared(value: object) -> object:
    if isinstance(value, Markup):
        return value
    if value is None:
        raise TypeError("a template printed None: test optional values with {% if %}")
    return plain(value)


ENVIRONMENT = Environment(
    loader=FileSystemLoader(TEMPLATES),
    undefined=StrictUndefined,
    finalize=_escape_unless_prepared,
    autoescape=False,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)


def render_knob_page(page: KnobPage) -> str:
    return ENVIRONMENT.get_template("knob.md.j2").render(page=page)


def render_incident_page(page: IncidentPage) -> str:
    return ENVIRONMENT.get_template("incident.md.j2").render(page=page)


def render_index_page(page: IndexPage) -> str:
    return ENVIRONMENT.get_template("index.md.j2").render(page=page)


def render_home_page(page: HomePage) -> str:
    return ENVIRONMENT.get_template("home.md.j2").render(page=page)


def render_tags_page() -> str:
    return ENVIRONMENT.get_template("tags.md.j2").render(listing=Markup(TAGS_LISTING))


def render_site(kb: KnowledgeBase, settings: SiteSettings) -> Bundle:
    context = gather_site_context(kb, settings)
    return render_context(context)


def render_context(context: SiteContext) -> Bundle:
    files: dict[str, str] = {}
    pages: dict[str, PageMeta] = {}
    overviews = [functools.partial(knob_index_files, context), functools.partial(incident_index_files, context),
                 *((functools.partial(findings_files, context),) if context.settings.findings else ()),
                 functools.partial(home_files, context)]
    records = [*(functools.partial(knob_files, context, knob) for knob in context.knobs()),
               *(functools.partial(incident_files, context, incident) for incident in context.incidents())]
    # On two cores: a forked child renders the last of the record pages while this process renders
    # the overviews and the first (none when the looks at files are written down: the child's would
    # be lost). The same pages, in the same order.
    jobs = [*overviews, *records]
    rendered = [job() for job in jobs] if looks_recorded() else \
        split_map(_rendered, jobs, weight=functools.partial(_render_weight, len(records)))
    for page in rendered[len(overviews):]:
        files.update(page.files)
        pages[page.path] = page.meta
    for page in rendered[:len(overviews)]:
        files.update(page.files)
        pages.update(page.metas)
    files.update(fixed_files(context.settings))
    files[FEED] = render_feed(context.knobs(), context.incidents(), context.settings.site_name,
                              context.settings.site_url, context.settings.directory_urls)
    return Bundle(files, {**pages, **fixed_pages(context.settings), **banner_pages(context)}, site_needs(context.root))


def _rendered(job: Callable[[], RenderedPage]) -> RenderedPage:
    return job()


def _render_weight(records: int, job: functools.partial[RenderedPage]) -> int:
    """About how long a page takes to render: a record's page 1, an overview a sixteenth of one per
    record (the four take about a fifth of the time of the record pages)."""
    return 1 if job.func in (knob_files, incident_files) else records // 16 + 1


@dataclass(frozen=True)
class RenderedPage:
    """A generated page: its path, its files (the page and what belongs to it: its charts) and what it is."""

    path: str
    files: tuple[tuple[str, str], ...]
    meta: PageMeta
    more: tuple[tuple[str, PageMeta], ...] = ()  # pages of its own beside it (a long index's pages of rows)

    @property
    def metas(self) -> dict[str, PageMeta]:
        return {self.path: self.meta, **dict(self.more)}


View = TypeVar("View", KnobPage, IncidentPage, IndexPage, HomePage)


def _within_search_limit(view: View, render: Callable[[View], str]) -> tuple[View, str]:
    """The page rendered, kept out of search when its text would pass SEARCH_LIMIT_BYTES (the
    markdown's size bounds its text's: markup only adds)."""
    text = render(view)
    if len(text.encode("utf-8")) <= SEARCH_LIMIT_BYTES:
        return view, text
    view = replace(view, search_excluded=True)
    return view, render(view)


def knob_files(context: SiteContext, knob: Knob) -> RenderedPage:
    """A knob's page and its gain chart (light and dark)."""
    view, text = _within_search_limit(knob_view(context, knob), render_knob_page)
    files: tuple[tuple[str, str], ...] = ((view.path, text),)
    if view.chart is not None:
        files += ((view.chart.light_file, view.chart.light_svg), (view.chart.dark_file, view.chart.dark_svg))
    # A gain's number names the knob too, as a reader types it ('12.8' for '+12.8%'): typed alone, a
    # number would otherwise also match ids and names that start with its digits (knob-1280).
    numbers = tuple(gain.change_text.lstrip("+\u2212").rstrip("%") for gain in knob_gains(knob))
    names = (knob.id, knob.name, *knob.aliases, *numbers)
    return RenderedPage(view.path, files, _record_meta(context, view, RecordKind.KNOB, knob.id, names))


def incident_files(context: SiteContext, incident: Incident) -> RenderedPage:
    view, text = _within_search_limit(incident_view(context, incident), render_incident_page)
    names = (incident.id, incident.title)
    return RenderedPage(view.path, ((view.path, text),),
                        _record_meta(context, view, RecordKind.INCIDENT, incident.id, names))


def knob_index_files(context: SiteContext, rows: tuple[Rows, Rows] | None = None) -> RenderedPage:
    return _index_files(context, knob_index_view(context, rows))


def _index_files(context: SiteContext, view: IndexPage) -> RenderedPage:
    """An index; past INDEX_FILE_ROWS rows, its first rows, the pages of the others (out of the nav and
    of search: each row is a page that search finds, or a finding the findings page filters) and every
    row as JSON."""
    split = split_index(context, view)
    if split is None:
        return _overview(view, render_index_page)
    page = _overview(split.first, render_index_page)
    others = tuple((other.path, render_index_page(other)) for other in split.others)
    return replace(page, files=(*page.files, *others, (index_rows_file(view.path), index_rows_json(split))),
                   more=tuple((other.path, PageMeta(title=other.title, in_nav=False, search_excluded=True,
                                                    search_kind=SearchKind.OVERVIEW)) for other in split.others))


def index_rows_json(split: SplitIndex) -> str:
    """Every row of a long index as the script reads it: each cell's HTML (links to `.md` pages,
    as the page's own markdown has them: the script gives them the site's form of address). A cell
    that several rows of a column share (a status, a date) is written once, in `shared`, and the rows
    give its number there."""
    rows = [[inline_html(cell) for cell in row] for row in split.every_row]
    counts = [Counter(row[column] for row in rows) for column in range(len(split.first.columns))]
    shared = [[cell for cell, times in count.items() if times > 1 and len(cell) > 2] for count in counts]
    numbers = [{cell: number for number, cell in enumerate(cells)} for cells in shared]
    return json.dumps({"columns": split.first.columns, "shared": shared,
                       "rows": [[numbers[column].get(cell, cell) for column, cell in enumerate(row)] for row in rows]},
                      ensure_ascii=False, separators=(",", ":"))


def incident_index_files(context: SiteContext, rows: tuple[Rows, Rows] | None = None) -> RenderedPage:
    return _index_files(context, incident_index_view(context, rows))


def home_files(context: SiteContext) -> RenderedPage:
    return _overview(home_view(context), render_home_page)


def findings_files(context: SiteContext) -> RenderedPage:
    """Every finding: reached from the home page's summary, kept out of the nav."""
    page = _index_files(context, findings_view(context))
    return replace(page, meta=replace(page.meta, in_nav=False))


def _overview(view: View, render: Callable[[View], str]) -> RenderedPage:
    view, text = _within_search_limit(view, render)
    return RenderedPage(view.path, ((view.path, text),),
                        PageMeta(title=view.title, search_excluded=view.search_excluded,
                                 search_kind=SearchKind.OVERVIEW))


def _record_meta(context: SiteContext, view: KnobPage | IncidentPage, kind: RecordKind, record_id: str,
                 names: tuple[str, ...]) -> PageMeta:
    """A record's page: out of the nav (in it, every page would embed every record page and the build
    would grow as the square of the records); "edit this page" opens the record's YAML."""
    return PageMeta(title=view.title, edit_path=context.settings.edit_path(context.source_path(kind, record_id)),
                    in_nav=False, tags=view.tags, search_excluded=view.search_excluded,
                    search_kind=SearchKind.KNOB if kind is RecordKind.KNOB else SearchKind.INCIDENT,
                    search_names=tuple(dict.fromkeys(names)))


def fixed_files(settings: SiteSettings) -> dict[str, str]:
    """What every site has whatever its records: the tags page, the pages' script and style sheet."""
    files = {TAGS_PAGE: render_tags_page()} if settings.tags else {}
    for name in ASSET_FILES:
        files[f"{ASSETS_DIR}/{name}"] = (ASSETS / name).read_text(encoding="utf-8")
    return files


def fixed_pages(settings: SiteSettings) -> dict[str, PageMeta]:
    return {TAGS_PAGE: PageMeta(title="Tags", search_kind=SearchKind.OVERVIEW)} if settings.tags else {}


def banner_pages(context: SiteContext) -> dict[str, PageMeta]:
    """The hand-written pages that findings are about, with the banner for their top."""
    return {page: PageMeta(banner=str(doc_banner(findings)), generated=False)
            for page, findings in sorted(context.banners_by_doc.items())}

