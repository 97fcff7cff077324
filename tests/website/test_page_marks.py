"""What Pagefind reads of a page (`site_search.mark_page`), whichever copy of the core's modules
made the page: the live preview imports them again when their source changes, so a page's kind can
be a member of the reloaded `SearchKind`, equal to this one's but not the same object (the home page
then carried a kind filter a fresh server's had not, and the preview's site differed)."""

from __future__ import annotations

import enum

from incident_kb.website.core.bundle import PageMeta, SearchKind
from incident_kb.website.mkdocs.site_search import mark_page


def test_an_overview_page_is_indexed_by_its_opening_without_a_kind_filter():
    marked = mark_page("<h1>Home</h1><p>First lines.</p>", PageMeta(search_kind=SearchKind.OVERVIEW), False)
    assert "data-pagefind-filter" not in marked and marked.startswith("<div data-pagefind-body>")


def test_a_kind_from_a_reloaded_copy_of_the_core_marks_the_page_the_same():
    reloaded = enum.Enum("SearchKind", [(kind.name, kind.value) for kind in SearchKind], type=str)
    assert reloaded.OVERVIEW is not SearchKind.OVERVIEW
    for kind in SearchKind:
        page = "<h1>Page</h1><p>Text.</p>"
        assert mark_page(page, PageMeta(search_kind=reloaded[kind.name]), False) == \
            mark_page(page, PageMeta(search_kind=kind), False), kind

