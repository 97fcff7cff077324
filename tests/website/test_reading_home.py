"""The home page as a reader meets it, in headless Chromium on a real build of 130 knobs, 13 of them
reclaimable: the ledger ranked by the gain at stake and cut at ten with a link to the whole list,
findings summarised by code with links to each code's list, restores by how they were checked, and
the knobs and incidents sections a click away at the top."""

from __future__ import annotations

from collections.abc import Iterator
from urllib.parse import parse_qs, urlsplit

import pytest

from incident_kb.website.core.home_page import HOME_ROWS

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



def test_the_ledger_ranks_by_gain_at_stake_and_links_to_all_of_it(visit):
    visit.open("")
    rows = visit.page.locator("#reclaimable-performance ~ * table").first.locator("tbody tr")
    assert rows.count() == HOME_ROWS
    names = [rows.nth(i).locator("td").first.inner_text().replace("\n", "") for i in range(HOME_ROWS)]
    # The extra knobs' gains grow with their number: the most at stake is the last reclaimable one.
    assert names == [f"SGLANG_EXTRA_SETTING_{i:03d}" for i in range(RECLAIMABLE - 1, RECLAIMABLE - 1 - HOME_ROWS, -1)]
    link = visit.page.get_by_role("link", name="the knobs index, reclaimable only")
    assert f"all {RECLAIMABLE}, sortable" in visit.page.locator("article").inner_text()
    link.click()
    visit.page.locator(".kb-table-tools[data-ready]").wait_for()
    assert parse_qs(urlsplit(visit.page.url).query) == {"reclaimable": ["yes"], "sort": ["best-gain"],
                                                        "order": ["descending"]}
    assert visit.page.locator(".kb-count").inner_text() == f"{RECLAIMABLE} of {EXTRA + 1} shown"
    first = visit.page.locator("article table tbody tr").first.locator("td").first.inner_text().replace("\n", "")
    assert first == f"SGLANG_EXTRA_SETTING_{RECLAIMABLE - 1:03d}"


def test_findings_are_summarised_by_code_with_a_link_to_each_list(visit):
    visit.open("")
    row = visit.page.locator("#findings ~ * table").first.locator("tbody tr", has_text="reclaimable-knob")
    count = row.locator("td").nth(2)
    assert count.inner_text().strip() == str(RECLAIMABLE)
    count.get_by_role("link").click()
    visit.page.wait_for_url("**/findings/**")
    visit.page.locator(".kb-table-tools[data-ready]").wait_for()
    assert visit.page.get_by_label("Filter by code").input_value() == "reclaimable-knob"
    assert visit.page.locator(".kb-count").inner_text().startswith(f"{RECLAIMABLE} of ")
    codes = visit.page.locator("article table tbody tr td:nth-child(3)").all_inner_texts()
    assert set(codes) == {"reclaimable-knob"}


def test_restores_are_counted_by_how_they_were_checked(visit):
    visit.open("")
    link = visit.page.get_by_role("link", name="1 not yet verified")
    link.click()
    visit.page.locator(".kb-table-tools[data-ready]").wait_for()
    assert visit.page.get_by_label("Filter by restore").input_value() == "unverified"
    assert visit.page.locator("article table tbody tr").count() == 1


@pytest.mark.parametrize("width", [1280, 390])
def test_the_knobs_and_incidents_are_a_click_from_the_top(browser, site, width):  # noqa: F811
    with serve(site.out) as base:
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            page = context.new_page()
            page.goto(base, wait_until="load")
            jump = page.locator(".kb-jump")
            assert jump.bounding_box()["y"] < 900  # on the first screen
            assert jump.inner_text().startswith(f"Reclaimable ({RECLAIMABLE})")
            for name, anchor in ((f"Knobs ({EXTRA + 1})", "knobs"), ("Incidents (1)", "incidents")):
                jump.get_by_role("link", name=name).click()
                for _ in range(50):  # until the jump has landed (a loaded machine scrolls later)
                    heading = page.locator(f"h2#{anchor}").bounding_box()
                    if 0 <= heading["y"] < 300:
                        break
                    page.wait_for_timeout(100)
                assert 0 <= heading["y"] < 300, (name, heading)
            # The whole page stays a few screens long: every list is cut at ten rows.
            limit = 9 if width > 400 else 22
            assert page.evaluate("document.documentElement.scrollHeight") < limit * 900
        finally:
            context.close()
