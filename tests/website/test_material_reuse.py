"""The live preview's search index, written from each page's JSON kept between builds, is byte for
byte the index Material's search plugin serializes from the same entries (its own SearchIndex)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from material.plugins.search.plugin import SearchIndex

from incident_kb.website.mkdocs.material_reuse import merge_search_index

CONFIG = {"lang": ["en"], "separator": r"[\s\-_,:!=\[\]()\"/]+|\.(?!\d)", "pipeline": ["stopWordFilter"],
          "fields": {"title": {"boost": 1000.0}, "text": {"boost": 1.0}, "tags": {"boost": 1000000.0}}}
URLS = ["", "knobs/", "knobs/a/", "knobs/b/", "tags/"]


def _entries(url: str, text: str) -> list[dict[str, Any]]:
    if url == "tags/":
        return []  # a page with no entries (excluded from search)
    return [{"location": url, "title": f"Page {url or 'home'}", "text": text, "tags": ["décodé", "sm120"]},
            {"location": f"{url}#gains", "title": "Gains \u2192 +12.8%", "text": f"<p>{text} \"quoted\"</p>"}]


def _plugin(entries: list[dict[str, Any]], prev: Any) -> SimpleNamespace:
    """What merge_search_index reads of Material's search plugin, around a real SearchIndex."""
    index = SearchIndex(**CONFIG)
    index.entries = list(entries)
    return SimpleNamespace(config=SimpleNamespace(enabled=True), search_index=index, search_index_prev=prev)


def _material(entries: list[dict[str, Any]]) -> str:
    index = SearchIndex(**CONFIG)
    index.entries = list(entries)
    return index.generate_search_index(None)


def test_the_index_is_the_bytes_material_writes_after_every_build():
    first = [entry for url in URLS for entry in _entries(url, "first")]
    search = _plugin(first, None)
    kept = merge_search_index(search, {}, URLS, set(URLS))  # the first build writes every page
    assert search.search_index.generate_search_index(None) == _material(first)

    # A save: one page written again, the others' entries as kept.
    search = _plugin(_entries("knobs/a/", "saved"), search.search_index)
    kept = merge_search_index(search, kept, URLS, {"knobs/a/"})
    expected = [entry for url in URLS for entry in _entries(url, "saved" if url == "knobs/a/" else "first")]
    assert search.search_index.generate_search_index(None) == _material(expected)
    assert search.search_index_prev is None  # the plugin's own merge does not run

    # A page removed, another added.
    urls = ["", "knobs/", "knobs/a/", "knobs/c/", "tags/"]
    search = _plugin(_entries("knobs/c/", "new"), search.search_index)
    merge_search_index(search, kept, urls, {"knobs/c/"})
    expected = [entry for url in urls for entry in
                _entries(url, {"knobs/a/": "saved", "knobs/c/": "new"}.get(url, "first"))]
    assert search.search_index.generate_search_index(None) == _material(expected)


def test_a_first_build_that_did_not_write_every_page_is_left_to_the_plugin():
    entries = _entries("knobs/a/", "only")
    search = _plugin(entries, None)
    assert merge_search_index(search, {}, URLS, {"knobs/a/"}) == {}
    assert search.search_index.generate_search_index(None) == _material(entries)
