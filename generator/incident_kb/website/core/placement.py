"""Where the generated pages go in a docs folder that has pages of its own: under the `prefix`
folder (the knowledge base in `kb/`, say), and never over a hand-written page.

A page the team wrote is kept at any path the knowledge base would generate (its `index.md`, its
`tags.md`, a `knobs/index.md` of its own): the generated file is not written there, and the adapter
says so once, naming each page kept and how to place the knowledge base apart. The knowledge base's
home, which leads with what needs action, always gets a page: it moves to ACTION_PAGE when the
site's own index.md holds the home page's place. Decided here once for every adapter (the MkDocs
plugin, `kb render`). Pure: looks at no file; the adapter says which pages are hand-written.
"""

from __future__ import annotations

import posixpath
from collections.abc import Collection
from dataclasses import dataclass, replace

from ...records.vocabulary import built_path
from .bundle import Bundle, PageMeta
from .links import ACTION_PAGE, HOME_PAGE, SiteSettings


@dataclass(frozen=True)
class Placed:
    bundle: Bundle  # the files and pages at their place in the docs folder, none over a hand-written one
    kept: tuple[str, ...]  # docs-relative hand-written pages that a generated one would have replaced
    home_path: str  # where the knowledge base's home went (docs-relative)


def in_docs(settings: SiteSettings, path: str) -> str:
    """A generated file's path inside the docs folder (generated paths are laid out from `prefix`)."""
    return posixpath.join(settings.prefix, path) if settings.prefix else path


def _holders(hand_written: Collection[str], directory_urls: bool) -> dict[str, str]:
    """Each place in the built site that a hand-written file holds -> that file."""
    return {built_path(path, directory_urls): path for path in sorted(hand_written, reverse=True)}


def place_settings(settings: SiteSettings, hand_written: Collection[str]) -> SiteSettings:
    """The settings to render with: the knowledge base's home off the site's own index.md (or README.md),
    on a page of its own that no hand-written page holds (needs-action.md, else needs-action-2.md...)."""
    directory_urls = settings.directory_urls
    held = _holders(hand_written, directory_urls)
    if settings.home and built_path(in_docs(settings, HOME_PAGE), directory_urls) in held:
        settings = replace(settings, home=False)
    if not settings.home:
        stem = posixpath.splitext(ACTION_PAGE)[0]
        page = next(name for name in (f"{stem}{f'-{n}' if n > 1 else ''}.md" for n in range(1, len(hand_written) + 2))
                    if built_path(in_docs(settings, name), directory_urls) not in held)
        settings = replace(settings, action_page=page)
    return settings


def place_bundle(bundle: Bundle, settings: SiteSettings, hand_written: Collection[str],
                 asked: SiteSettings | None = None) -> Placed:
    """The bundle rendered with `settings` (from `place_settings`) moved under the prefix, without
    any file a hand-written one holds the place of. `asked`: the settings before `place_settings`, so
    that a home page moved off the site's index.md is named among the pages kept."""
    directory_urls = settings.directory_urls
    held = _holders(hand_written, directory_urls)
    kept: set[str] = set()
    if asked is not None and asked.home and not settings.home:
        home = in_docs(settings, HOME_PAGE)
        kept.add(held.get(built_path(home, directory_urls), home))
    files: dict[str, str] = {}
    for path, text in bundle.files.items():
        where = in_docs(settings, path)
        if (holder := held.get(built_path(where, directory_urls))) is not None:
            kept.add(holder)
        else:
            files[where] = text
    pages: dict[str, PageMeta] = {}
    for path, meta in bundle.pages.items():
        if not meta.generated:
            pages[path] = meta  # a hand-written page with its banner: its path is its own
        elif (where := in_docs(settings, path)) in files:
            pages[where] = meta
    return Placed(Bundle(files, pages, bundle.needs), tuple(sorted(kept)), in_docs(settings, settings.home_path))


def kept_pages_message(placed: Placed, docs_dir: str, how_to_place: str) -> str | None:
    """One message for every hand-written page kept in a generated page's place (None when none
    was): which, where the knowledge base's home is, and how to place the knowledge base apart
    (`how_to_place`, worded for the adapter's own settings)."""
    if not placed.kept:
        return None
    shown = ", ".join(posixpath.join(docs_dir, path) if docs_dir not in ("", ".") else path for path in placed.kept)
    return (f"kept the hand-written {shown}: the knowledge base's generated page at each of these paths was not "
            f"written; the knowledge base's home, with what needs action, is at {placed.home_path}. {how_to_place}")
