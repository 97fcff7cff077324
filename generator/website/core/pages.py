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

from ...pipeline import KnowledgeBase
from ...records.schema import Incident, Knob
from ...records.vocabulary import RecordKind
from .overview_pages import HomePage, IndexPage, home_view, incident_index_view, knob_index_view
from .page_parts import doc_banner
from .incident_pages import IncidentPage, incident_view
from .knob_pages import KnobPage, knob_view
from .markup import plain
from .context import SiteContext, gather_site_context
from .links import ASSETS_DIR, HOME_PAGE, INCIDENT_INDEX, KNOB_INDEX, TAGS_PAGE, SiteSettings, incident_page, knob_page

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
    for knob in sorted(context.catalog.knobs.values(), key=lambda k: k.id):
        files.update(knob_files(context, knob))
    for incident in sorted(context.catalog.incidents.values(), key=lambda i: i.id):
        files.update(incident_files(context, incident))
    files[KNOB_INDEX] = render_index_page(knob_index_view(context))
    files[INCIDENT_INDEX] = render_index_page(incident_index_view(context))
    if context.settings.home:
        files[HOME_PAGE] = render_home_page(home_view(context))
    files.update(fixed_files(context.settings))
    return RenderedSite(files, edit_paths(context), banners(context))


def knob_files(context: SiteContext, knob: Knob) -> tuple[tuple[str, str], ...]:
    """A knob's page and its gain chart (light and dark)."""
    view = knob_view(context, knob)
    if view.chart is None:
        return ((view.path, render_knob_page(view)),)
    return ((view.path, render_knob_page(view)), (view.chart.light_file, view.chart.light_svg),
            (view.chart.dark_file, view.chart.dark_svg))


def incident_files(context: SiteContext, incident: Incident) -> tuple[tuple[str, str], ...]:
    view = incident_view(context, incident)
    return ((view.path, render_incident_page(view)),)


def fixed_files(settings: SiteSettings) -> dict[str, str]:
    """What every site has whatever its records: the tags page, the pages' script and style sheet."""
    files = {TAGS_PAGE: render_tags_page()} if settings.tags else {}
    for name in ASSET_FILES:
        files[f"{ASSETS_DIR}/{name}"] = (ASSETS / name).read_text(encoding="utf-8")
    return files


def edit_paths(context: SiteContext) -> dict[str, str]:
    """Each record page's record file, for the "edit this page" link."""
    catalog, settings = context.catalog, context.settings
    paths = {knob_page(knob_id): settings.edit_path(catalog.source(RecordKind.KNOB, knob_id).rel_path)
             for knob_id in sorted(catalog.knobs)}
    paths.update({incident_page(incident_id): settings.edit_path(catalog.source(RecordKind.INCIDENT, incident_id).rel_path)
                  for incident_id in sorted(catalog.incidents)})
    return paths


def banners(context: SiteContext) -> dict[str, str]:
    return {page: str(doc_banner(findings)) for page, findings in sorted(context.places.by_doc.items())}
