"""The built site in headless Chromium (Debian's package, driven by Playwright): search finds the
knob, the incident page shows suspected vs actual, hostile records run nothing, index tables sort
and filter, and no request leaves 127.0.0.1. In CI (CI=true) a missing browser fails the run."""

from __future__ import annotations

import contextlib
import os
import re
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from ..site_support import serve

pytestmark = pytest.mark.slow  # a real browser on a real build: left out of `make test-fast`

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def focus_search(page, seconds: float = 20) -> None:
    """Put the focus in Material's search box as a reader does, with '/'. Material binds the key once
    its script has run, which on a loaded machine is some time after 'load': a key pressed before went
    nowhere, and the query typed after it was lost (a 20 s wait for results then failed). So press
    again until the box has the focus; never when it has it already, where '/' would be typed."""
    focused = "() => document.activeElement !== null && document.activeElement.matches('.md-search__input')"
    deadline = time.monotonic() + seconds
    while not page.evaluate(focused):
        if time.monotonic() > deadline:
            raise AssertionError(f"'/' did not focus the search box within {seconds} s")
        page.keyboard.press("/")
        page.wait_for_timeout(50)


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        message = f"{CHROMIUM} is missing: install Debian's chromium (.ci/run does it)"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS, headless=True)
        yield browser
        browser.close()


# The site's search box has listed its whole answer to the query given.
ANSWERED = "query => document.querySelector('[data-kb-search]')?.getAttribute('data-kb-answered') === query"


class Visit:
    """A browser page on a site served on 127.0.0.1 that records dialogs and any foreign request."""

    def __init__(self, browser, base: str) -> None:
        self.base = base
        self.context = browser.new_context(viewport={"width": 1280, "height": 1000})
        self.foreign: list[str] = []
        self.dialogs: list[str] = []
        self.context.route(re.compile(r"^(?!http://127\.0\.0\.1[:/]).*"), self._block)
        self.page = self.context.new_page()
        self.page.on("dialog", self._dialog)

    def _block(self, route) -> None:
        self.foreign.append(route.request.url)
        route.abort()

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def open(self, path: str) -> None:
        self.page.goto(self.base + path, wait_until="load")

    def search(self, query: str) -> list[str]:
        """Type into the site's search box; the paths of the results, best first, once it has answered."""
        focus_search(self.page)
        self.page.keyboard.type(query)
        return self.answer(query)

    def answer(self, query: str, seconds: float = 20) -> list[str]:
        """The results' paths once the box has listed its whole answer to `query` (kb-search.js names
        it). A list shown before answers a prefix typed earlier, or holds the names' step alone: a
        CI run read the results of 'T' for 'TARGET_CTAS' so."""
        self.page.wait_for_function(ANSWERED, arg=query, timeout=seconds * 1000)
        return self.listed()

    def listed(self) -> list[str]:
        """The paths of the results the search box lists now, best first."""
        return [urlsplit(href).path for href in self.page.locator(".md-search-result__item > a").evaluate_all(
            "links => links.map(a => a.href)")]


@contextlib.contextmanager
def visiting(browser, site_folder) -> Iterator[Visit]:
    """A Visit of a built site served on 127.0.0.1; no request may leave it."""
    with serve(site_folder) as base:
        visitor = Visit(browser, base)
        yield visitor
        visitor.context.close()
        assert visitor.foreign == [], "requests left 127.0.0.1"


@pytest.fixture
def visit(browser, seed_site) -> Iterator[Visit]:
    with visiting(browser, seed_site.out) as visitor:
        yield visitor


def test_searching_target_ctas_finds_the_knob_page(visit):
    visit.open("")
    assert visit.search("TARGET_CTAS")[0] == "/knobs/sglang-sm120-mma-target-ctas/"
    visit.page.locator(".md-search-result__item > a").first.click()
    visit.page.wait_for_url("**/knobs/sglang-sm120-mma-target-ctas/**")
    article = visit.page.locator("article").inner_text()
    assert "active" in article and "+12.8% output throughput at concurrency 64, +5.7% at 96" in article
    assert "Exonerated: the hypothesis was refuted." in article


@pytest.mark.parametrize("query", ["sglang-sm120-mma-target-ctas", "SGLANG_SM120_MMA_TARGET_CTAS"])
def test_search_finds_the_knob_by_id_and_by_setting_name(visit, query):
    visit.open("")
    assert visit.search(query)[0] == "/knobs/sglang-sm120-mma-target-ctas/"


def test_search_finds_words_from_an_incidents_hypotheses(visit):
    visit.open("")
    assert "/incidents/multi-round-harness-hang/" in visit.search("corrupts drops")


def test_incident_page_shows_refuted_and_confirmed_hypotheses(visit):
    visit.open("incidents/multi-round-harness-hang/")
    refuted = visit.page.locator("#hypothesis-target-ctas-causes-hang")
    confirmed = visit.page.locator("#hypothesis-client-proxy-fault")
    assert refuted.inner_text().startswith("Refuted: target-ctas-causes-hang")
    assert confirmed.inner_text().startswith("Confirmed (root cause): client-proxy-fault")
    assert refuted.is_visible() and confirmed.is_visible()
    warning = visit.page.locator(".admonition.warning", has_text="Reverted on correlation alone")
    assert warning.is_visible()
    assert visit.page.locator(".kb-evidence-correlation").first.is_visible()


def test_index_tables_sort_and_filter_in_the_browser(visit):
    visit.open("incidents/")
    visit.page.locator(".kb-table-tools select").first.wait_for()
    rows = visit.page.locator("article table tbody tr")
    assert rows.count() == 1
    # Material styles only tables without a class: the script must not add one.
    assert visit.page.locator("article table").get_attribute("class") is None
    status = visit.page.locator('select[data-column="Status"]')
    assert status.locator("option").all_inner_texts() == ["all", "resolved"]
    visit.open("knobs/?status=retired")  # a preset filter that matches nothing keeps all rows
    assert visit.page.locator("article table tbody tr:visible").count() == 1
    visit.page.locator('select[data-column="Tags"]').select_option("sm120")
    assert visit.page.locator("article table tbody tr:visible").count() == 1
    visit.page.fill(".kb-table-tools input[type=search]", "no such knob")
    assert visit.page.locator("article table tbody tr:visible").count() == 0
    assert visit.page.locator(".kb-count").inner_text() == "0 of 1 shown"
    header = visit.page.locator("article table th", has_text="Best gain")
    header.click()
    assert header.get_attribute("aria-sort") == "ascending"
    header.click()
    assert header.get_attribute("aria-sort") == "descending"


def test_hostile_records_run_nothing(browser, hostile_site):
    with serve(hostile_site.out) as base:
        visit = Visit(browser, base)
        try:
            for path in ("incidents/injected/", "knobs/injected-knob/", "incidents/", "knobs/", "tags/", ""):
                visit.open(path)
                visit.page.wait_for_timeout(200)
            visit.open("")
            assert "/incidents/injected/" in visit.search("Injectedsummary")
            visit.page.wait_for_timeout(500)
            visit.open("incidents/injected/")
            summary = visit.page.locator(".kb-text").first.inner_text()
            assert "<script>alert('summary')</script>" in summary  # shown as text
            assert visit.dialogs == []
            assert visit.foreign == []  # the remote image in the summary was dropped, not fetched
        finally:
            visit.context.close()


def test_last_change_and_recent_changes_say_what_changed_on_the_records_own_date(visit):
    """One clock: the knob page's Last change is the restore its history dates 2026-11-07, saying
    what changed; the home page's recent changes say it too (never 'created')."""
    visit.open("knobs/sglang-sm120-mma-target-ctas/")
    last = visit.page.locator("article li", has_text="Last change").inner_text()
    assert last.startswith("Last change: 2026-11-07, reverted -> restored"), last
    visit.open("")
    recent = visit.page.locator("#recent-changes ~ * table").first.inner_text()
    assert "reverted -> restored" in recent and "active -> reverted" in recent and "created" not in recent
