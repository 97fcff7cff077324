"""What the live preview (`mkdocs serve --dirty`, see glue's Preview) keeps of the work of
Material's tags and search plugins between builds, so that a save costs what it changed rather
than what the site holds.

- The tags plugin learns a page's tags when the page's markdown goes through `on_page_markdown`.
  A page MkDocs did not read again has the markdown and front matter of the build that last read
  it, so its tags are the ones that build found: they are given back to the plugin as they were,
  without reading the page again (a page that hosts a tags listing still goes through the plugin).
- The tags plugin renders every listing again on each build. A listing whose inputs are those of
  the last build (every tagged page's address, title and tags, and the listing's own page, not
  read again) is given back as that build rendered it.
- Material's search plugin writes the whole index as JSON on each build. Each page's entries are
  kept with their JSON, and the index is written from them, byte for byte what the plugin writes.

Relies on Material 9.8's internals (its tags plugin's `mappings.data`, `listings.data`, the order
of its `on_env`; its search plugin's `search_index` and `search_index_prev`), read here and
nowhere else; tests/website/test_site_adapters.py asserts they exist on the installed Material, a plugin
not in that shape gets the slower path with one log line, and tests/website/test_live_preview.py compares
the preview with a fresh server after each kind of edit. Knows nothing of MkDocs' classes (it gets
MkDocs' and Material's objects from the glue) and nothing of records.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

_TAGS_PLUGIN = "material.plugins.tags"
log = logging.getLogger("mkdocs.plugins.incident-kb")
_said: set[str] = set()


def say_once(message: str) -> None:
    """A shortcut that falls back says so, once per process (tests/website/test_site_adapters.py asserts
    the state it relies on exists on the installed versions)."""
    if message not in _said:
        _said.add(message)
        log.info("incident-kb: %s", message)


def tags_plugins(plugins: Iterable[Any]) -> tuple[Any, ...]:
    """The instances of Material's tags plugin this build runs, enabled, in their usual shape."""
    found = []
    for plugin in plugins:
        if not type(plugin).__module__.startswith(_TAGS_PLUGIN) or not plugin.config.enabled:
            continue
        if isinstance(getattr(getattr(plugin, "mappings", None), "data", None), dict) and \
                isinstance(getattr(getattr(plugin, "listings", None), "data", None), set):
            found.append(plugin)
        else:
            say_once("Material's tags plugin is not in the shape this version knows (mappings.data, listings.data): "
                     "the preview reads every page's tags again on each save")
    return tuple(found)


@dataclass(frozen=True)
class PageTags:
    """What the tags plugins found on a page when it was last read: per plugin (in the order of
    `tags_plugins`), the class and tags of the page's mapping, or None (no tags); and whether the
    page hosts a listing."""

    mappings: tuple[tuple[type, frozenset[Any]] | None, ...]
    hosts_listing: bool


def tags_found(plugins: tuple[Any, ...], page: Any) -> PageTags:
    """After MkDocs read `page` in this build: what the tags plugins found on it."""
    mappings = []
    for plugin in plugins:
        mapping = plugin.mappings.data.get(page.url)
        mappings.append(None if mapping is None else (type(mapping), frozenset(mapping.tags)))
    hosts = any(listing.page is page for plugin in plugins for listing in plugin.listings.data)
    return PageTags(tuple(mappings), hosts)


def replay_markdown(plugins: Any, tags: tuple[Any, ...], found: PageTags | None, raw: str, page: Any,
                    **context: Any) -> None:
    """A page MkDocs did not read again, through the `on_page_markdown` handlers as if it had been
    (`raw` its markdown as read, before any handler): the tags plugins get its mapping back as
    `found` records it, the other handlers run. Without `found` (or when the page hosts a
    listing), every handler runs."""
    markdown = raw
    shortcut = found is not None and not found.hosts_listing and len(found.mappings) == len(tags)
    for method in plugins.events["page_markdown"]:
        owner: Any = getattr(method, "__self__", None)
        if shortcut and owner in tags:
            assert found is not None
            known = found.mappings[tags.index(owner)]
            if known is not None:
                kind, found_tags = known
                owner.mappings.data[page.url] = kind(page, tags=found_tags)
            continue
        result = method(markdown, page=page, **context)
        if result is not None:
            markdown = result


def order_mappings(plugins: tuple[Any, ...], urls: list[str]) -> None:
    """Each tags plugin's mappings in the order of the site's pages, as a full build adds them (a
    listing keeps that order among pages of the same title)."""
    for plugin in plugins:
        data = plugin.mappings.data
        ordered = {url: data[url] for url in urls if url in data}
        ordered.update((url, mapping) for url, mapping in data.items() if url not in ordered)
        plugin.mappings.data = ordered


@dataclass
class _Listing:
    inputs: object
    content: str  # the listing's page as the tags plugin left it
    toc: Any


@dataclass
class Listings:
    """The tags listings as the last build rendered them, by listing id; and this build's."""

    rendered: dict[str, _Listing] = field(default_factory=dict)
    inputs: dict[str, object] = field(default_factory=dict)  # this build's, by listing id
    held: list[tuple[Any, Any]] = field(default_factory=list)  # (plugin, listing) not rendered again


def hold_unchanged_listings(listings: Listings, plugins: tuple[Any, ...], read: set[str]) -> None:
    """on_env, before the tags plugin's (priority 100): take out of the plugin every listing whose
    inputs are the last build's and whose page MkDocs did not read again, so that the plugin
    renders only the others."""
    listings.inputs, listings.held = {}, []
    for plugin in plugins:
        mappings = tuple((getattr(m.item, "url", None), getattr(m.item, "title", None),
                          tuple(sorted((tag.name, tag.hidden) for tag in m.tags)))
                         for m in plugin.mappings.data.values())
        for listing in list(plugin.listings.data):
            inputs = (listing.page.url, listing.page.title, mappings)
            listings.inputs[listing.id] = inputs
            before = listings.rendered.get(listing.id)
            if listing.page.file.src_uri not in read and before is not None and before.inputs == inputs:
                plugin.listings.data.discard(listing)
                listings.held.append((plugin, listing))


def give_back_listings(listings: Listings, plugins: tuple[Any, ...], copy_toc: Any) -> None:
    """on_env, right after the tags plugin's: each listing held back is given back to the plugin
    (its pages' tags link to it) and its page gets the content the last build rendered; each
    listing rendered now is kept for the next build."""
    held = {listing.id for _, listing in listings.held}
    for plugin, listing in listings.held:
        before = listings.rendered[listing.id]
        listing.page.content, listing.page.toc = before.content, copy_toc(before.toc)
        plugin.listings.data.add(listing)
    for plugin in plugins:
        for listing in plugin.listings.data:
            if listing.id not in held and listing.id in listings.inputs:
                listings.rendered[listing.id] = _Listing(listings.inputs[listing.id], listing.page.content or "",
                                                         copy_toc(listing.page.toc))
    listings.held = []


def search_plugin(plugins: Iterable[Any]) -> Any:
    """Material's search plugin, if the site uses it (in the shape this module knows)."""
    for plugin in plugins:
        if hasattr(plugin, "search_index_prev") and hasattr(plugin, "search_index"):
            return plugin
        if type(plugin).__module__.startswith("material.plugins.search"):
            say_once("Material's search plugin is not in the shape this version knows (search_index, "
                     "search_index_prev): the preview's search index is the plugin's own, which a dirty build "
                     "leaves incomplete")
    return None


class _WrittenIndex:
    """The search index the plugin writes this build: its entries and their JSON, already made."""

    def __init__(self, entries: list[dict[str, Any]], text: str) -> None:
        self.entries = entries
        self._text = text

    def generate_search_index(self, prev: object) -> str:
        return self._text


def merge_search_index(search: Any, kept: dict[str, tuple[list[dict[str, Any]], str]], urls: list[str],
                       built: set[str]) -> dict[str, tuple[list[dict[str, Any]], str]]:
    """on_post_build, before the search plugin writes the index. Under a dirty build it holds the
    entries of the pages written in this build only, and its own merge assumes there is one such
    page (with several it duplicates entries, and one whose url begins the others', the home
    page's, drops theirs). Here every page of `urls` (in the order a full build gives them) gets
    its entries: this build's if it was written (`built`), else those `kept` from the last build
    (or the last index's); a removed page none. The index is handed to the plugin already
    serialized from each page's JSON. Returns what to keep for the next build. The first build
    wrote every page: its entries are kept as they are (so the first save need not serialize them)."""
    if search is None or not search.config.enabled:
        return {}
    if search.search_index_prev is None and not built.issuperset(urls):
        return {}  # a first build that did not write every page: the plugin's own index
    fresh: dict[str, list[dict[str, Any]]] = {}
    for entry in search.search_index.entries:
        fresh.setdefault(entry["location"].partition("#")[0], []).append(entry)
    before: dict[str, list[dict[str, Any]]] | None = None
    pages: dict[str, tuple[list[dict[str, Any]], str]] = {}
    for url in urls:
        if url not in built and url in kept:
            pages[url] = kept[url]
            continue
        if url in built:
            entries = fresh.get(url, [])
        else:
            if before is None:
                before = {}
                for entry in search.search_index_prev.entries:  # not None: not every page was built
                    before.setdefault(entry["location"].partition("#")[0], []).append(entry)
            entries = before.get(url, [])
        pages[url] = (entries, _json(entries)[1:-1])
    entries = [entry for url in urls for entry in pages[url][0]]
    index = search.search_index
    empty = type(index)(**index.config).generate_search_index(None)  # the plugin's own framing
    if not empty.endswith(',"docs":[]}'):  # not the shape this module knows: the plugin writes it
        say_once("Material's search index is not framed as this version knows: the plugin serializes the whole "
                 "index on each save")
        index.entries = entries
    else:
        docs = ",".join(text for url in urls if (text := pages[url][1]))
        search.search_index = _WrittenIndex(entries, f"{empty[:-2]}{docs}]}}")
    search.search_index_prev = None  # the index is whole: the plugin's own merge must not run
    return pages


def _json(value: object) -> str:
    """As the search plugin serializes its index."""
    return json.dumps(value, separators=(",", ":"), default=str)
