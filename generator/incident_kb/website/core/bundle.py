"""What the core hands a site generator's adapter: the generated files, what each page is (title,
edit path, in the nav or not, banner, tags, kept out of search), and what the site needs around
them (style sheet and script, markdown extensions, search separator; the theme overrides each
adapter supplies are named in THEME_OVERRIDES).

An adapter turns this into its generator's terms: the MkDocs plugin into Files, edit URIs,
inclusion levels and hook events; `kb render` into a folder, front matter and a theme override
for Zensical. The bundle decides nothing an adapter must re-derive. Knows no generator.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from pathlib import Path

from .links import ASSETS_DIR

# What the generated pages are written with; MkDocs itself always adds toc, tables and fenced_code.
MARKDOWN_EXTENSIONS = ("admonition", "attr_list")
# Splits on '_' too, so that a short name (TARGET_CTAS) finds SGLANG_SM120_MMA_TARGET_CTAS, and on
# '+', '%' and '−', so that a gain is found by its number (12.8 in '+12.8%').
SEARCH_SEPARATOR = r'[\s\-_,:!=\[\]()"/+%−]+|\.(?!\d)'
# Material partials the pages expect overridden: the tags after the page's content (not above its
# title), and an accessible name for the search dialog. Each adapter supplies them for its theme.
THEME_OVERRIDES = ("partials/content.html", "partials/search.html")


class SearchKind(str, enum.Enum):
    """What a page is to search: the kinds a reader can narrow the results to, and the overview
    pages (home, indexes, tags), found by their title and first lines only: their rows are record
    pages of their own."""

    KNOB = "knob"
    INCIDENT = "incident"
    DOC = "doc"
    OVERVIEW = "overview"


@dataclass(frozen=True, slots=True)
class PageMeta:
    """A page of the site as the core sees it. Hand-written pages appear only for their banner."""

    title: str | None = None
    edit_path: str | None = None  # the file that "edit this page" opens, relative to the docs folder
    in_nav: bool = True  # record pages are reached through indexes, tags and search instead
    banner: str | None = None  # HTML for the top of a hand-written page that findings are about
    tags: tuple[str, ...] = ()
    search_excluded: bool = False  # over the per-page search limit (see pages.SEARCH_LIMIT_BYTES)
    generated: bool = True
    search_kind: SearchKind = SearchKind.DOC
    search_names: tuple[str, ...] = ()  # the words that name the page's record (id, name, aliases, title):
    # search lists the page first for any of them


@dataclass(frozen=True, slots=True)
class SiteNeeds:
    stylesheets: tuple[str, ...] = (f"{ASSETS_DIR}/kb.css",)  # docs-relative
    scripts: tuple[str, ...] = (f"{ASSETS_DIR}/kb.js",)
    markdown_extensions: tuple[str, ...] = MARKDOWN_EXTENSIONS
    search_separator: str = SEARCH_SEPARATOR


@dataclass(frozen=True)
class Bundle:
    files: dict[str, str]  # docs-relative path -> content: pages, charts, assets
    pages: dict[str, PageMeta]  # docs-relative page -> what it is: the generated pages, and
    # the hand-written pages that carry a banner
    needs: SiteNeeds = field(default_factory=SiteNeeds)

    @property
    def markdown(self) -> dict[str, str]:
        """The generated markdown pages."""
        return {path: text for path, text in self.files.items() if path.endswith(".md")}

    @property
    def banners(self) -> dict[str, str]:
        return {path: meta.banner for path, meta in self.pages.items() if meta.banner is not None}


def site_needs(root: Path) -> SiteNeeds:
    """What the site of the knowledge base at `root` needs around its pages (known before rendering:
    an adapter sets its generator up with it)."""
    return SiteNeeds()
