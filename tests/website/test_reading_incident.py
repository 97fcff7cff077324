"""The incident page closes the loop, in headless Chromium on real builds: at its top the root cause
(in the first screen at 1280 and 390 px), then the knobs still reverted under its hypotheses with
the gains at stake and the restore command; its status is not a green "resolved" while one of them
is to restore, and the incidents index and home page say the same."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ..conftest import break_seed_story
from ..site_support import Site, build_site, copy_knowledge_base, serve
from .test_browser import Visit, browser, visiting  # noqa: F401

pytestmark = pytest.mark.slow  # a real browser on a real build: left out of `make test-fast`

INCIDENT = "incidents/multi-round-harness-hang/"
GREEN = "rgb(46, 125, 50)"  # kb.css's resolved/active badge

# Reverted under the incident's confirmed hypothesis: it stays reverted, and says why.
CONFIRMED_REVERT = """\
id: proxy-pool-size
name: HARNESS_PROXY_POOL_SIZE
summary: Connections the harness keeps open through its proxies.
value: 8
default: 2
status: reverted
history:
  - date: 2026-10-01
    status: active
  - date: 2026-11-06
    status: reverted
    incident: multi-round-harness-hang
    hypothesis: client-proxy-fault
"""


@pytest.fixture(scope="module")
def troubled(tmp_path_factory: pytest.TempPathFactory) -> Site:
    base = tmp_path_factory.mktemp("incident-site")
    root = copy_knowledge_base(base / "kb")
    break_seed_story(root)
    (root / "knobs/proxy-pool-size.yaml").write_text(CONFIRMED_REVERT)
    build_site(root, base / "site")
    return Site(root, base / "site")


@pytest.fixture
def visit(browser, troubled) -> Iterator[Visit]:  # noqa: F811
    with visiting(browser, troubled.out) as visitor:
        yield visitor


def status_badge(visit: Visit):
    return visit.page.locator("article h1 + p .kb-badge").first


def test_the_top_says_what_is_still_to_restore_and_how(visit):
    visit.open(INCIDENT)
    badge = status_badge(visit)
    assert badge.inner_text() == "resolved, 1 knob still reverted"
    assert badge.evaluate("e => getComputedStyle(e).backgroundColor") != GREEN
    box = visit.page.locator("article .admonition.danger").first
    title = box.locator(".admonition-title").inner_text()
    assert title.startswith("1 knob to restore")
    items = box.locator("li")
    assert items.count() == 2
    first = items.nth(0).inner_text()
    assert first.startswith("SGLANG_SM120_MMA_TARGET_CTAS, reverted 2026-11-04 "
                            "under hypothesis target-ctas-causes-hang refuted")
    assert "Restoring it reclaims +12.8% output throughput at concurrency 64, +5.7% at 96." in first
    assert items.nth(0).locator("code").inner_text() == "kb restore sglang-sm120-mma-target-ctas"
    second = items.nth(1).inner_text()
    assert second.startswith("HARNESS_PROXY_POOL_SIZE, reverted 2026-11-06 "
                             "under hypothesis client-proxy-fault confirmed")
    assert "Stays reverted: client-proxy-fault was confirmed." in second and "kb restore" not in second
    # The box comes before the facts and the story.
    article = visit.page.locator("article").inner_text()
    assert article.index("1 knob to restore") < article.index("Started:") < article.index("Suspected vs actual")


def assert_root_cause_in_first_screen(browser, site: Site, width: int, height: int, words: str) -> None:  # noqa: F811
    """The incident page's root-cause paragraph ends within the first screen, and says `words`."""
    with serve(site.out) as base:
        context = browser.new_context(viewport={"width": width, "height": height})
        try:
            page = context.new_page()
            page.goto(base + INCIDENT, wait_until="load")
            cause = page.locator("article p", has_text="Root cause:").first
            box = cause.bounding_box()
            assert box is not None and box["y"] + box["height"] <= height, box
            assert words in cause.inner_text()
        finally:
            context.close()


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_the_root_cause_is_in_the_first_screen(browser, troubled, width, height):  # noqa: F811
    assert_root_cause_in_first_screen(browser, troubled, width, height, "client-proxy-fault")


def test_the_index_and_the_home_page_say_it_too(visit):
    visit.open("incidents/")
    visit.page.locator(".kb-table-tools[data-ready]").wait_for()
    row = visit.page.locator("article table tbody tr").first
    assert "resolved, 1 knob still reverted" in row.inner_text()
    visit.page.get_by_label("Filter by still reverted").select_option("yes")
    assert visit.page.locator("article table tbody tr").count() == 1
    visit.page.get_by_label("Filter by status").select_option("resolved")  # the status itself, still filterable
    assert visit.page.locator("article table tbody tr").count() == 1
    visit.open("")
    home = visit.page.locator("#incidents ~ ul li").first
    assert "resolved, 1 knob still reverted" in home.inner_text()


def test_once_restored_the_incident_is_resolved_and_green(browser, seed_site):  # noqa: F811
    with serve(seed_site.out) as base:
        visit = Visit(browser, base)
        try:
            visit.open(INCIDENT)
            badge = status_badge(visit)
            assert badge.inner_text() == "resolved"
            assert badge.evaluate("e => getComputedStyle(e).backgroundColor") == GREEN
            assert visit.page.locator("article .admonition.danger").count() == 0
        finally:
            visit.context.close()


LONG_TITLE = ("Decode service wedges under the multi-round agent harness after several rounds of conversation, "
              "leaving the SGLang server idle while requests pile up at the router, the proxy pool and the "
              "client retry queue of every user")
LONG_CAUSE = ("One of the user's client-side proxies corrupts or drops requests after several rounds, because it "
              "recycles its upstream connection pool every ninety seconds and silently discards the requests in "
              "flight, so the harness waits forever for answers the server never received, and every retry joins "
              "the same queue.")


@pytest.fixture(scope="module")
def wordy(tmp_path_factory: pytest.TempPathFactory) -> Site:
    base = tmp_path_factory.mktemp("wordy-incident-site")
    root = copy_knowledge_base(base / "kb")
    break_seed_story(root)
    incident = root / "incidents/multi-round-harness-hang.yaml"
    text = incident.read_text()
    text = text.replace("title: Multi-round agent harness hangs after several rounds", f"title: {LONG_TITLE}")
    text = text.replace("statement: One of the user's client-side proxies corrupts or drops requests "
                        "after several rounds.",
                        f"statement: {LONG_CAUSE}")
    assert LONG_TITLE in text and LONG_CAUSE in text
    incident.write_text(text)
    build_site(root, base / "site")
    return Site(root, base / "site")


@pytest.mark.parametrize(("width", "height"), [(1280, 900), (390, 844)])
def test_a_long_title_and_cause_keep_the_root_cause_in_the_first_screen(browser, wordy, width, height):  # noqa: F811
    assert_root_cause_in_first_screen(browser, wordy, width, height, "recycles its upstream connection pool")
