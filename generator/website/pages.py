"""Rendering: the checked knowledge base in, the site's generated files out.

Markdown pages (home, one index per record kind, a page per record, the tags page), gain charts
and the script and style sheet the pages use, as a mapping of docs-relative paths to text. Also
the edit path of each record page and the banner for each hand-written page that findings are
about. Pure: writes nothing. The mkdocs-gen-files glue and `kb render` write the same result.

One Jinja environment with StrictUndefined. Every value a template prints is escaped for markdown
unless Python prepared it as markup, so a template cannot forget to escape.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markupsafe import Markup

from ..pipeline import KnowledgeBase
from ..records.vocabulary import RecordKind
from .overview_pages import HomePage, IndexPage, home_view, incident_index_view, knob_index_view
from .page_parts import doc_banner
from .incident_pages import IncidentPage, incident_view
from .knob_pages import KnobPage, knob_view
from .markup import plain
from .context import SiteContext, gather_site_context
from .links import ASSETS_DIR, TAGS_PAGE, SiteSettings

TEMPLATES = Path(__file__).parent / "templates"
ASSETS = Path(__file__).parent / "assets"
ASSET_FILES = ("kb.css", "kb.js")


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


@dataclass(frozen=True)
class RenderedSite:
    files: dict[str, str]  # docs-relative path -> content: pages, charts, assets
    edit_paths: dict[str, str]  # record page -> its record file, relative to the docs folder
    banners: dict[str, str]  # hand-written page (docs-relative) -> banner HTML for its top

    @property
    def pages(self) -> dict[str, str]:
        return {path: text for path, text in self.files.items() if path.endswith(".md")}


def render_knob_page(page: KnobPage) -> str:
    return ENVIRONMENT.get_template("knob.md.j2").render(page=page)


def render_incident_page(page: IncidentPage) -> str:
    return ENVIRONMENT.get_template("incident.md.j2").render(page=page)


def render_index_page(page: IndexPage) -> str:
    return ENVIRONMENT.get_template("index.md.j2").render(page=page)


def render_home_page(page: HomePage) -> str:
    return ENVIRONMENT.get_template("home.md.j2").render(page=page)


def render_tags_page() -> str:
    return ENVIRONMENT.get_template("tags.md.j2").render()


def render_site(kb: KnowledgeBase, settings: SiteSettings) -> RenderedSite:
    context = gather_site_context(kb, settings)
    return render_context(context)


def render_context(context: SiteContext) -> RenderedSite:
    files: dict[str, str] = {}
    edit_paths: dict[str, str] = {}
    catalog = context.catalog
    for knob in sorted(catalog.knobs.values(), key=lambda k: k.id):
        view = knob_view(context, knob)
        files[view.path] = render_knob_page(view)
        edit_paths[view.path] = context.settings.edit_path(catalog.source(RecordKind.KNOB, knob.id).rel_path)
        if view.chart is not None:
            files[view.chart.light_file] = view.chart.light_svg
            files[view.chart.dark_file] = view.chart.dark_svg
    for incident in sorted(catalog.incidents.values(), key=lambda i: i.id):
        incident_page = incident_view(context, incident)
        files[incident_page.path] = render_incident_page(incident_page)
        edit_paths[incident_page.path] = context.settings.edit_path(catalog.source(RecordKind.INCIDENT, incident.id).rel_path)
    for index in (knob_index_view(context), incident_index_view(context)):
        files[index.path] = render_index_page(index)
    if context.settings.home:
        home = home_view(context)
        files[home.path] = render_home_page(home)
    if context.settings.tags:
        files[TAGS_PAGE] = render_tags_page()
    for name in ASSET_FILES:
        files[f"{ASSETS_DIR}/{name}"] = (ASSETS / name).read_text(encoding="utf-8")
    banners = {page: str(doc_banner(findings)) for page, findings in sorted(context.places.by_doc.items())}
    return RenderedSite(files, edit_paths, banners)
