"""The knobs index as a reader meets it, in headless Chromium on a real build of 130 knobs: what runs
and the default side by side, a "reclaimable" filter, filters, order and page kept in the address,
pages of rows, a header that stays in view, a phone's width, and every row without scripts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from incident_kb.website.core.overview_pages import INDEX_PAGE_SIZE
from incident_kb.website.core.pages import ASSETS

from ..site_support import EXTRA, RECLAIMABLE, Site, serve
from .test_browser import Visit, browser, visiting  # noqa: F401

pytestmark = pytest.mark.slow  # a real browser on a real build: left out of `make test-fast`

@pytest.fixture
def site(many_knobs_site: Site) -> Site:
    """The seed plus EXTRA knobs, built once per worker (tests/website/conftest.py)."""
    return many_knobs_site


@pytest.fixture
def visit(browser, site) -> Iterator[Visit]:  # noqa: F811
    with visiting(browser, site.out) as visitor:
        yield visitor


def rows(visit: Visit):
    return visit.page.locator("article table tbody tr")


def ready(visit: Visit, path: str) -> None:
    visit.open(path)
    visit.page.locator(".kb-table-tools[data-ready]").wait_for()


def query(visit: Visit) -> dict[str, list[str]]:
    return parse_qs(urlsplit(visit.page.url).query)


def column(visit: Visit, name: str) -> int:
    headers = visit.page.locator("article table thead th").all_inner_texts()
    return [h.strip() for h in headers].index(name)


def test_the_style_sheet_hides_what_the_first_page_does_not_show():
    """kb.css lays out only the first page until the script runs: its rule and the page size agree."""
    assert f"tr:nth-child(n+{INDEX_PAGE_SIZE + 1})" in (ASSETS / "kb.css").read_text(encoding="utf-8")


def test_a_reverted_knob_shows_what_runs_then_the_tuned_value(visit):
    ready(visit, "knobs/?q=SGLANG_EXTRA_SETTING_003")
    assert rows(visit).count() == 1
    cells = rows(visit).first.locator("td")
    running = cells.nth(column(visit, "Running")).inner_text()
    assert running.split()[0] == "3" and "default; tuned 1003" in running  # the default runs; 1003 comes back
    assert cells.nth(column(visit, "Default")).inner_text().strip() == "3"
    ready(visit, "knobs/?q=SGLANG_EXTRA_SETTING_100")
    assert rows(visit).first.locator("td").nth(column(visit, "Running")).inner_text().strip() == "1100"  # active: tuned


def test_the_reclaimable_filter_shows_the_knobs_to_restore(visit):
    ready(visit, "knobs/")
    visit.page.get_by_label("Filter by reclaimable").select_option("yes")
    assert rows(visit).count() == RECLAIMABLE
    assert visit.page.locator(".kb-count").inner_text() == f"{RECLAIMABLE} of {EXTRA + 1} shown"
    assert query(visit)["reclaimable"] == ["yes"]
    statuses = rows(visit).locator(f"td:nth-child({column(visit, 'Status') + 1})").all_inner_texts()
    assert set(s.strip() for s in statuses) == {"reverted"}


def test_filters_order_and_page_are_kept_in_the_address(visit):
    ready(visit, "knobs/")
    visit.page.get_by_label("Filter by component").select_option("decode")
    visit.page.locator("article table th", has_text="Best gain").click()
    visit.page.locator("article table th", has_text="Best gain").click()
    kept = visit.page.url
    assert query(visit) == {"component": ["decode"], "sort": ["best-gain"], "order": ["descending"]}
    first = rows(visit).first.inner_text()
    ready(visit, urlsplit(kept).path.lstrip("/") + "?" + urlsplit(kept).query)  # the link, opened anew
    assert visit.page.get_by_label("Filter by component").input_value() == "decode"
    assert visit.page.locator("article table th", has_text="Best gain").get_attribute("aria-sort") == "descending"
    assert rows(visit).first.inner_text() == first
    assert "SGLANG_SM120_MMA_TARGET_CTAS" in first  # decode, +12.8%: above the extra knobs' 12.7% at most


def test_rows_come_in_pages(visit):
    ready(visit, "knobs/")
    assert rows(visit).count() == INDEX_PAGE_SIZE
    pager = visit.page.locator(".kb-pager")
    assert "Rows 1–50 of 130" in pager.inner_text()
    pager.get_by_role("button", name="Next").click()
    assert "Rows 51–100 of 130" in pager.inner_text() and query(visit)["page"] == ["2"]
    ready(visit, "knobs/?page=3")
    assert rows(visit).count() == 130 - 2 * INDEX_PAGE_SIZE
    assert visit.page.locator(".kb-pager").get_by_role("button", name="Next").is_disabled()
    visit.page.get_by_label("Filter rows").fill("SGLANG_EXTRA_SETTING_00")
    assert rows(visit).count() == 10 and visit.page.locator(".kb-pager").is_hidden()  # one page: no pager


def test_the_header_stays_in_view_while_the_rows_scroll(visit):
    ready(visit, "knobs/")
    header = visit.page.locator("article table thead th").first
    before = header.bounding_box()["y"]
    visit.page.mouse.wheel(0, 2500)
    for _ in range(50):  # until the page has scrolled (a loaded machine scrolls later)
        if visit.page.evaluate("window.scrollY") > 2000:
            break
        visit.page.wait_for_timeout(100)
    visit.page.wait_for_timeout(100)
    after = header.bounding_box()["y"]
    top_bar = visit.page.locator(".md-header").bounding_box()
    assert before > 300 and abs(after - (top_bar["y"] + top_bar["height"])) < 4  # just under Material's header
    assert visit.page.evaluate("window.scrollY") > 2000


def test_at_390_px_a_page_of_cards_fits_and_pages_on(browser, site):  # noqa: F811
    with serve(site.out) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        try:
            page = context.new_page()
            page.goto(base + "knobs/", wait_until="load")
            page.locator(".kb-table-tools[data-ready]").wait_for()
            assert page.locator("article table tbody tr").count() == INDEX_PAGE_SIZE
            assert page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")
            height = page.evaluate("document.documentElement.scrollHeight")
            card = page.locator("article table tbody tr").nth(1).bounding_box()["height"]
            assert height < (INDEX_PAGE_SIZE + 12) * card  # one page of cards, not 130
            page.locator(".kb-pager").get_by_role("button", name="Next").click()
            assert "Rows 51–100" in page.locator(".kb-pager").inner_text()
        finally:
            context.close()


def test_without_scripts_every_row_shows(browser, site):  # noqa: F811
    with serve(site.out) as base:
        context = browser.new_context(viewport={"width": 1280, "height": 900}, java_script_enabled=False)
        try:
            page = context.new_page()
            page.goto(base + "knobs/", wait_until="load")
            visible = page.evaluate("Array.from(document.querySelectorAll('article table tbody tr'))"
                                    ".filter(r => getComputedStyle(r).display !== 'none').length")
            assert visible == EXTRA + 1
        finally:
            context.close()


def test_until_the_script_runs_only_the_first_page_is_laid_out(browser, site):  # noqa: F811
    """Thousands of rows laid out before kb.js pages them cost seconds and a gigabyte at 6,000 knobs
    (Material's script measures the whole table): with kb.js held back, the rows are all in the page
    but only the first page's are displayed."""
    with serve(site.out) as base:
        context = browser.new_context(viewport={"width": 390, "height": 844})
        try:
            context.route(re.compile(r".*/kb\.js(\?.*)?$"), lambda route: route.abort())
            page = context.new_page()
            page.goto(base + "knobs/", wait_until="load")
            shown = page.evaluate("Array.from(document.querySelectorAll('article table tbody tr'))"
                                  ".map(r => getComputedStyle(r).display !== 'none')")
            assert len(shown) == EXTRA + 1  # every row is in the page...
            assert sum(shown) == INDEX_PAGE_SIZE and all(shown[:INDEX_PAGE_SIZE])  # ...the first page's displayed
        finally:
            context.close()


def test_the_incidents_index_pages_and_filters_the_same_way(visit):
    ready(visit, "incidents/?status=resolved")
    assert visit.page.get_by_label("Filter by status").input_value() == "resolved"
    assert re.fullmatch(r"\d+ of \d+ shown", visit.page.locator(".kb-count").inner_text())


def test_an_address_naming_no_value_leaves_the_filters_at_all_and_runs_nothing(visit):
    """Names every object inherits ('constructor', 'toString', '__proto__') are no filter value: the
    filter stays at 'all' (it showed a blank choice and no row matched); markup in the text filter
    stays text; an unknown sort and a page out of range are ignored."""
    ready(visit, "knobs/?status=constructor&reclaimable=toString&component=__proto__&sort=__proto__&page=-5"
                 "&q=%3Cimg%20src%3Dx%20onerror%3Dalert(1)%3E")
    for name in ("status", "reclaimable", "component"):
        select = visit.page.get_by_label(f"Filter by {name}")
        assert select.evaluate("s => [s.selectedIndex, s.value]") == [0, ""], name
    assert visit.page.get_by_label("Filter rows").input_value() == "<img src=x onerror=alert(1)>"
    assert visit.page.locator("article table img").count() == 0 and visit.dialogs == []
    visit.page.get_by_label("Filter rows").fill("")
    assert visit.page.locator(".kb-count").inner_text() == f"{EXTRA + 1} of {EXTRA + 1} shown"
    assert query(visit) == {}


def test_back_and_forward_come_back_to_the_filtered_view(visit):
    ready(visit, "knobs/")
    visit.page.get_by_label("Filter by reclaimable").select_option("yes")
    rows(visit).first.locator("a").first.click()
    visit.page.wait_for_url("**/knobs/*/")
    visit.page.go_back()
    visit.page.locator(".kb-table-tools[data-ready]").wait_for()
    assert query(visit)["reclaimable"] == ["yes"]
    assert visit.page.get_by_label("Filter by reclaimable").input_value() == "yes"
    assert rows(visit).count() == RECLAIMABLE
