"""A knobs index past one page of rows, in headless Chromium on a real build of 541 knobs: the page
carries its first 500 rows and links to a page of the others; with scripts, kb.js reads every row
from the JSON beside the page and filters, sorts and pages all of them (the address keeps the view,
back from a knob returns to it); without scripts, the links reach every row; axe finds nothing
serious on either page."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from incident_kb.website.core.overview_pages import INDEX_FILE_ROWS, INDEX_PAGE_SIZE

from ..site_support import LONG_EXTRA, RECLAIMABLE, Site, serve
from .test_browser import Visit, browser, visiting  # noqa: F401

pytestmark = pytest.mark.slow  # a real browser on a real build: left out of `make test-fast`

TOTAL = LONG_EXTRA + 1
ROWS = "article table tbody tr"
CELLS = f"Array.from(document.querySelectorAll('{ROWS}')).map(r => Array.from(r.cells).map(c => c.innerHTML))"
KB_JS = re.compile(r".*/kb\.js(\?.*)?$")


@pytest.fixture
def site(long_index_site: Site) -> Site:
    """The seed plus LONG_EXTRA knobs, built once per worker (tests/website/conftest.py)."""
    return long_index_site


@pytest.fixture
def visit(browser, site) -> Iterator[Visit]:  # noqa: F811
    with visiting(browser, site.out) as visitor:
        yield visitor


def ready(visit: Visit, path: str) -> None:
    visit.open(path)
    visit.page.locator(".kb-table-tools[data-ready]").wait_for()


def count(visit: Visit) -> str:
    return visit.page.locator(".kb-count").inner_text()


def test_the_script_shows_the_rows_file_as_the_page_shows_its_own_rows(browser, site):  # noqa: F811
    """The first page of rows, as the page carries them (kb.js held back) and as kb.js made them from
    the JSON: the same cells, links included (the JSON names `.md` pages; the site says `extra-000/`)."""
    with serve(site.out) as base:
        context = browser.new_context()
        try:
            context.route(KB_JS, lambda route: route.abort())
            page = context.new_page()
            page.goto(base + "knobs/", wait_until="load")
            carried = page.evaluate(CELLS)[:INDEX_PAGE_SIZE]
        finally:
            context.close()
    with visiting(browser, site.out) as visit:
        ready(visit, "knobs/")
        made = visit.page.evaluate(CELLS)
        assert visit.page.evaluate("performance.getEntriesByType('resource')"
                                   ".some(e => e.name.endsWith('/knobs/index.json'))")
    assert len(made) == INDEX_PAGE_SIZE and made == carried
    assert 'href="extra-000/"' in made[0][0]


def test_filters_and_order_run_over_every_row(visit):
    ready(visit, "knobs/")
    assert count(visit) == f"{TOTAL} of {TOTAL} shown"
    assert visit.page.locator(".kb-pages").is_hidden()  # the script pages every row: no links to pages of rows
    assert f"Rows 1–{INDEX_PAGE_SIZE} of {TOTAL}" in visit.page.locator(".kb-pager").inner_text()
    visit.page.locator("article table th", has_text="Best gain").click()
    visit.page.locator("article table th", has_text="Best gain").click()
    assert "SGLANG_EXTRA_SETTING_539" in visit.page.locator(ROWS).first.inner_text()  # +53.9%: on the second page
    assert parse_qs(urlsplit(visit.page.url).query) == {"sort": ["best-gain"], "order": ["descending"]}
    ready(visit, "knobs/?reclaimable=yes")
    assert count(visit) == f"{RECLAIMABLE} of {TOTAL} shown"
    ready(visit, "knobs/?page=11")
    assert visit.page.locator(ROWS).count() == TOTAL - 10 * INDEX_PAGE_SIZE  # the last rows, past the page's 500


def test_back_from_a_knob_of_the_second_page_returns_to_the_filtered_view(visit):
    ready(visit, "knobs/")
    visit.page.get_by_label("Filter rows").fill("SGLANG_EXTRA_SETTING_530")
    assert count(visit) == f"1 of {TOTAL} shown"
    visit.page.locator(ROWS).first.locator("a").first.click()
    visit.page.wait_for_url("**/knobs/extra-530/")
    assert "SGLANG_EXTRA_SETTING_530" in visit.page.locator("article h1").inner_text()
    visit.page.go_back()
    visit.page.locator(".kb-table-tools[data-ready]").wait_for()
    assert parse_qs(urlsplit(visit.page.url).query) == {"q": ["SGLANG_EXTRA_SETTING_530"]}
    assert visit.page.get_by_label("Filter rows").input_value() == "SGLANG_EXTRA_SETTING_530"
    assert count(visit) == f"1 of {TOTAL} shown"


def test_without_its_rows_file_the_index_works_on_the_rows_it_carries(browser, site):  # noqa: F811
    """The JSON unreadable (a page opened from disk, a host that lost it): the script pages the page's
    own rows, and the links to the pages of rows stay."""
    with serve(site.out) as base:
        context = browser.new_context()
        try:
            context.route(re.compile(r".*/knobs/index\.json$"), lambda route: route.abort())
            page = context.new_page()
            page.goto(base + "knobs/", wait_until="load")
            page.locator(".kb-table-tools[data-ready]").wait_for()
            assert page.locator(".kb-count").inner_text() == f"{INDEX_FILE_ROWS} of {INDEX_FILE_ROWS} shown"
            assert page.locator(ROWS).count() == INDEX_PAGE_SIZE
            assert page.get_by_role("navigation", name="Pages of the knobs index").is_visible()
        finally:
            context.close()


def test_without_scripts_the_pages_of_rows_reach_every_row(browser, site):  # noqa: F811
    with serve(site.out) as base:
        context = browser.new_context(java_script_enabled=False)
        try:
            page = context.new_page()
            page.goto(base + "knobs/", wait_until="load")
            links = page.locator(f"{ROWS} td:first-child a")
            assert links.count() == INDEX_FILE_ROWS
            assert page.evaluate(f"Array.from(document.querySelectorAll('{ROWS}'))"
                                 ".every(r => getComputedStyle(r).display !== 'none')")
            seen = set(links.evaluate_all("links => links.map(a => a.href)"))
            pages = page.get_by_role("navigation", name="Pages of the knobs index")
            assert pages.is_visible()
            pages.get_by_role("link", name=f"knobs 501–{TOTAL}").click()
            page.wait_for_url("**/knobs/page_2/")
            assert page.locator("article h1").inner_text().startswith("Knobs, page 2 of 2")
            seen |= set(page.locator(f"{ROWS} td:first-child a").evaluate_all("links => links.map(a => a.href)"))
            assert len(seen) == TOTAL
            page.get_by_role("navigation", name="Pages of the knobs index").get_by_role(
                "link", name="knobs 1–500").click()
            page.wait_for_url(re.compile(r".*/knobs/$"))
        finally:
            context.close()


@pytest.mark.parametrize("path, script", [("knobs/", True), ("knobs/", False), ("knobs/page_2/", True)])
def test_axe_finds_nothing_serious_on_the_pages_of_rows(browser, site, path, script):  # noqa: F811
    """The index as the script shows it, as it is before the script (its links to pages of rows
    shown) and the second page, in the light palette (test_site_reading audits both palettes)."""
    from axe_playwright_python.sync_playwright import Axe

    with serve(site.out) as base:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, reduced_motion="reduce")
        try:
            if not script:
                context.route(KB_JS, lambda route: route.abort())
            page = context.new_page()
            page.goto(base + path, wait_until="load")
            if script and path == "knobs/":
                page.locator(".kb-table-tools[data-ready]").wait_for()
            results = Axe().run(page).response["violations"]
        finally:
            context.close()
    assert [f"{v['id']} ({v['impact']})" for v in results if v["impact"] in ("serious", "critical")] == []
