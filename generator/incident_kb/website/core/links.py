"""Where each generated page lives, and the links between pages.

Pages link to each other with relative markdown links, which MkDocs checks in a strict build and
rewrites for its URL style. A link is only made to something that exists: a record that failed
validation has no page, so a reference to it is shown as text. Knows no templates.
"""

from __future__ import annotations

import functools
import posixpath
import urllib.parse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Protocol

from markupsafe import Markup

from ...records.schema import Hypothesis, Incident, Knob
from ...records.vocabulary import RecordKind, split_reference
from ...repository.files import is_file
from .markup import breakable, code, plain, record_inline

HOME_PAGE = "index.md"
# Where the knowledge base's home (what needs action first) goes when it is not the site's home
# page: `home: false`, or the site's own index.md kept in its place.
ACTION_PAGE = "needs-action.md"
TAGS_PAGE = "tags.md"
# What the tags page and the pages' front matter say to a tags plugin (Material's, Zensical's): the
# listing's marker on the tags page, and the front matter field that holds a page's tags.
TAGS_LISTING = "material/tags"
TAGS_FIELD = "tags"
KNOB_INDEX = "knobs/index.md"
INCIDENT_INDEX = "incidents/index.md"
FINDINGS_PAGE = "findings.md"  # every finding of kb check, sortable and filterable (the home page summarises)
ASSETS_DIR = "assets/incident-kb"
# Every page the knowledge base generates that is no record's: the one list of where they go, which
# placement and `kb init --merge` (a team's page in one of these places) decide from.
GENERATED_PAGES = (HOME_PAGE, ACTION_PAGE, TAGS_PAGE, FINDINGS_PAGE, KNOB_INDEX, INCIDENT_INDEX)
FEED = "feed.xml"  # the Atom feed of the records' changes (feed.py), beside the home page
_URL_SAFE = ":/?#@!$&'()*+,;=%~"


def _page_of(kind: RecordKind) -> Callable[[str], str]:
    def page(reference: str) -> str:
        """The record's page: a `NAME:ID` reference's on knowledge base NAME's part of an org site
        (each knowledge base's pages under its name, beside this one's)."""
        kb_name, record_id = split_reference(reference)
        if kb_name is None:
            return kind.page_path(record_id)
        return posixpath.join("..", kb_name, kind.page_path(record_id))
    return page


knob_page = _page_of(RecordKind.KNOB)
incident_page = _page_of(RecordKind.INCIDENT)


def index_rows_file(index: str) -> str:
    """Where an index past one file's rows (overview_pages.INDEX_FILE_ROWS) keeps every row as data, for
    the script: beside it, under its name (knobs/index.json, findings.json)."""
    return index.removesuffix(".md") + ".json"


def index_part(index: str, number: int) -> str:
    """The index's page of rows `number` (the first is the index itself), beside it, so that the rows'
    links hold on each: knobs/page_2.md, findings_page_2.md. An underscore no record id holds (ids are
    slugs), so that none lands on a record's page."""
    if number == 1:
        return index
    folder, name = posixpath.split(index)
    stem = "page" if name == "index.md" else name.removesuffix(".md") + "_page"
    return posixpath.join(folder, f"{stem}_{number}.md")


def hypothesis_anchor(hypothesis_id: str) -> str:
    return f"hypothesis-{hypothesis_id}"


@dataclass(frozen=True, slots=True)
class SiteSettings:
    """What the pages need to know about the site around them (from mkdocs.yml)."""

    site_name: str = "incident-kb"
    site_url: str | None = None  # where the site is served (absolute links in the feed), if the site says
    directory_urls: bool = True  # pages served as 'knobs/ID/' (MkDocs' use_directory_urls), else 'knobs/ID.html'
    docs_dir: str = "docs"  # repository-relative
    edit_base: str | None = None  # URL that edits files of the docs folder, ending in '/'
    home: bool = True  # the knowledge base's home is the site's home page (index.md), else ACTION_PAGE
    tags: bool = True  # generate the tags page (tags.md, for Material's tags plugin)
    charts: bool = True  # draw gain charts on knob pages
    # kb check's findings on the pages (banners on docs, boxes on records, the findings page); False for
    # a site published to readers outside the team (the plugin's `public: true`): the check still fails
    findings: bool = True
    prefix: str = ""  # the folder inside the docs folder that holds the generated pages ('' its top)
    action_page: str = ACTION_PAGE  # the knowledge base's home when it is not the site's (see placement)
    # On an org site: each other knowledge base's min-gain-pct, by name, so that its knobs' gains are
    # told as its own check tells them (noise or not)
    neighbour_min_gains: tuple[tuple[str, float], ...] = ()

    @property
    def home_path(self) -> str:
        """The knowledge base's home page, which leads with what needs action: always generated."""
        return HOME_PAGE if self.home else self.action_page

    @property
    def home_title(self) -> str:
        """The site's name on the site's own home page; elsewhere the page is one part of the site."""
        return self.site_name if self.home and not self.prefix else "Knowledge base"

    def docs_path(self, rel_path: str) -> str | None:
        """A repository-relative path as a path inside the docs folder, or None if outside it."""
        path = posixpath.normpath(rel_path)
        prefix = posixpath.normpath(self.docs_dir)
        if prefix == ".":
            return None if path.startswith("../") else path
        return path[len(prefix) + 1:] if path.startswith(prefix + "/") else None

    def doc_target(self, inside: str) -> str:
        """A page of the docs folder as a generated page links to it: generated pages are laid out
        as if at the top of the docs folder, and sit under `prefix` there."""
        return _relative_path(inside, self.prefix) if self.prefix else inside

    def edit_path(self, rel_path: str) -> str:
        """The record's path relative to the docs folder, as mkdocs-gen-files' set_edit_path wants."""
        return _relative_path(rel_path, self.docs_dir)

    def edit_url(self, rel_path: str) -> str | None:
        return self.edit_url_of(self.edit_path(rel_path))

    def edit_url_of(self, edit_path: str) -> str | None:
        """The URL that edits a file given relative to the docs folder (None without edit_base)."""
        if not self.edit_base:
            return None
        return urllib.parse.urljoin(self.edit_base, urllib.parse.quote(edit_path, errors="surrogateescape"))


@functools.lru_cache(maxsize=65536)
def _relative_path(rel_path: str, folder: str) -> str:
    return posixpath.relpath(rel_path, posixpath.normpath(folder))


@functools.lru_cache(maxsize=65536)
def _relative_url(target: str, folder: str) -> str:
    # A file name that is not UTF-8 keeps its bytes, percent-encoded: the link finds the file.
    return urllib.parse.quote(posixpath.relpath(target, folder), errors="surrogateescape")


def site_has_file(settings: SiteSettings, root: Path, rel_path: str) -> bool:
    """Whether a repository file is one the site has (a file under the docs folder): what
    `Links.repo_file` links to, and what a page that names the file depends on."""
    return settings.docs_path(rel_path) is not None and is_file(root / PurePosixPath(rel_path))


class Sources(Protocol):
    """What links ask of the site (the context's queries: see context.SiteContext)."""

    settings: SiteSettings

    def knob(self, knob_id: str) -> Knob | None: ...
    def incident(self, incident_id: str) -> Incident | None: ...
    def hypothesis(self, incident_id: str | None, hypothesis_id: str | None) -> Hypothesis | None: ...
    def has_file(self, rel_path: str) -> bool: ...


class Links:
    """Links as seen from one generated page."""

    def __init__(self, page: str, site: Sources) -> None:
        self.page = page
        self.site = site
        self.settings = site.settings

    def url(self, target: str, anchor: str | None = None, query: str | None = None) -> str:
        return (_relative_url(target, posixpath.dirname(self.page) or ".") + (f"?{query}" if query else "")
                + (f"#{anchor}" if anchor else ""))

    def to(self, target: str, text: object, anchor: str | None = None, query: str | None = None) -> Markup:
        """A link; `text` is shown as plain text unless it is already markup. `query`: what an index
        page's script reads from its address (filters, order), already URL-encoded."""
        label = text if isinstance(text, Markup) else plain(text)
        return Markup(f"[{label}]({self.url(target, anchor, query)})")

    def knob(self, knob_id: str, text: object | None = None) -> Markup:
        knob = self.site.knob(knob_id)
        if knob is None:
            return plain(knob_id)
        return self.to(knob_page(knob_id), text if text is not None else knob.name)

    def knob_in_table(self, knob_id: str) -> Markup:
        """A knob's link for a narrow table column: its name may break after an underscore."""
        knob = self.site.knob(knob_id)
        return self.knob(knob_id, breakable(knob.name)) if knob is not None else plain(knob_id)

    def incident(self, incident_id: str, text: object | None = None) -> Markup:
        incident = self.site.incident(incident_id)
        if incident is None:
            return plain(incident_id)
        return self.to(incident_page(incident_id), text if text is not None else incident.title)

    def hypothesis(self, incident_id: str, hypothesis_id: str, text: object | None = None) -> Markup:
        if self.site.hypothesis(incident_id, hypothesis_id) is None:
            return plain(text if text is not None else hypothesis_id)
        return self.to(incident_page(incident_id), text if text is not None else hypothesis_id,
                       hypothesis_anchor(hypothesis_id))

    def root_cause(self, incident: Incident, reference: str | None = None) -> Markup | None:
        """The incident's root cause: a link to the confirmed hypothesis, with its statement;
        `reference`: the incident's when another knowledge base's (`NAME:ID`)."""
        cause = incident.root_cause
        if cause is None:
            return None
        link = self.hypothesis(reference or incident.id, cause.hypothesis)
        confirmed = self.site.hypothesis(reference or incident.id, cause.hypothesis)
        return link + Markup(": ") + record_inline(confirmed.statement) if confirmed is not None else link

    def repo_file(self, rel_path: str, short: bool = False) -> Markup:
        """A repository file: a link when the site has it (under the docs folder), else its path.
        `short` shows only the file name."""
        text = PurePosixPath(rel_path).name if short else rel_path
        if self.site.has_file(rel_path):
            inside = self.settings.docs_path(rel_path)
            assert inside is not None
            # short: a table's Source column
            return self.to(self.settings.doc_target(inside), breakable(text) if short else text)
        return code(text)

    def reference(self, where: str, short: bool = False) -> Markup:
        """A path or a URL, as measurement evidence gives it. `short` shows a file's name, or a
        URL's host (a whole dashboard URL would widen a table past the page)."""
        if where.startswith(("https://", "http://")):
            text = breakable(urllib.parse.urlsplit(where).hostname or where) if short else plain(where)
            return Markup(f"[{text}](<{urllib.parse.quote(where, safe=_URL_SAFE)}>)")
        return self.repo_file(where, short)
