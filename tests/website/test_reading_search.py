"""The site's search as a reader meets it, in headless Chromium on a real build: the record's own
page first for its id, setting name, short name, title and root-cause words, even where a long doc
repeats the id dozens of times; results narrowed to knobs, incidents or docs; the query and the
filter still there on the page a result opens; a page its front matter keeps out of search is not
found; nothing requested outside 127.0.0.1 (the Visit fixture fails on any such request)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from ..conftest import edit
from ..site_support import Site, build_site, copy_knowledge_base
from .test_browser import Visit, browser, focus_search, visiting  # noqa: F401

pytestmark = pytest.mark.slow  # a real browser on a real build: left out of `make test-fast`

KNOB = "/knobs/sglang-sm120-mma-target-ctas/"
INCIDENT = "/incidents/multi-round-harness-hang/"
GUIDE = "/guide/writing-a-postmortem/"
SECOND_KNOB = "/knobs/decode-batch-tokens/"

# A second knob whose history names the incident and whose description quotes its root cause: a
# page that mentions the incident, not the incident's page.
SECOND_KNOB_YAML = """\
id: decode-batch-tokens
name: SGLANG_DECODE_MAX_BATCH_TOKENS
aliases: [MAX_BATCH_TOKENS]
summary: Upper bound of tokens one decode iteration batches.
description: |
  Looked at during multi-round-harness-hang, where one of the user's client-side proxies corrupts or
  drops requests after several rounds; this knob was not involved.
value: 16384
default: 8192
status: active
component: decode
history:
  - date: 2026-11-04
    status: reverted
    incident: multi-round-harness-hang
    hypothesis: target-ctas-causes-hang
  - date: 2026-11-07
    status: restored
    incident: multi-round-harness-hang
    hypothesis: target-ctas-causes-hang
"""
# A knob whose id and name start with a gain's digits ('12.8' is read as 128...): the number must
# still find the page that says +12.8%.
DIGITS_KNOB_YAML = """\
id: prefill-chunk-1280
name: SGLANG_PREFILL_CHUNK_1280
summary: Prefill chunk of 1280 tokens (SGLANG_PREFILL_CHUNK_1280, prefill-chunk-1280).
value: 1280
default: 1024
status: active
component: prefill
history:
  - date: 2026-11-02
    status: active
"""
# A hand-written page that asks to stay out of search.
PRIVATE_DOC = "---\nsearch:\n  exclude: true\n---\n# Private notes\n\nZanzibarword appears only here.\n"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    base = tmp_path_factory.mktemp("search-site")
    root = copy_knowledge_base(base / "kb")
    (root / "knobs/decode-batch-tokens.yaml").write_text(SECOND_KNOB_YAML)
    (root / "knobs/prefill-chunk-1280.yaml").write_text(DIGITS_KNOB_YAML)
    (root / "docs/guide/private.md").write_text(PRIVATE_DOC)
    edit(root / "mkdocs.yml", "      - Writing a postmortem: guide/writing-a-postmortem.md\n",
         "      - Writing a postmortem: guide/writing-a-postmortem.md\n      - guide/private.md\n")
    build_site(root, base / "site")
    return Site(root, base / "site")


@pytest.fixture
def visit(browser, site) -> Iterator[Visit]:  # noqa: F811
    with visiting(browser, site.out) as visitor:
        yield visitor
        assert visitor.dialogs == []


def test_the_guide_repeats_the_incident_id_far_more_than_the_incident_page(site):
    """The premise of the ranking tests below: a long doc that mentions the id dozens of times."""
    assert (site.root / "docs/guide/writing-a-postmortem.md").read_text().count("multi-round-harness-hang") > 20


@pytest.mark.parametrize(("query", "page"), [
    ("sglang-sm120-mma-target-ctas", KNOB),  # id
    ("SGLANG_SM120_MMA_TARGET_CTAS", KNOB),  # setting name
    ("TARGET_CTAS", KNOB),  # short name (an alias)
    ("MAX_BATCH_TOKENS", SECOND_KNOB),  # another knob's short name
    ("multi-round-harness-hang", INCIDENT),  # id, which the guide repeats and a knob's history names
    ("Multi-round agent harness hangs", INCIDENT),  # title
    ("proxies corrupts drops", INCIDENT),  # root-cause words, which the second knob quotes
    ("12.8", KNOB),  # a gain's number, though prefill-chunk-1280 starts with its digits
    ("+12.8%", KNOB),  # as the page says it
    ("5.7", KNOB),
])
def test_the_records_own_page_ranks_first(visit, query, page):
    visit.open("")
    results = visit.search(query)
    assert results[0] == page, results


def test_the_box_names_the_query_once_its_whole_answer_is_listed(visit):
    """Typed slowly, each prefix is asked and answered in turn: the box names the query whose answer
    the list holds only once the whole of it is there (the names' step, then the pages')."""
    visit.open("")
    focus_search(visit.page)
    visit.page.keyboard.type("proxy", delay=150)  # slower than the box's pause: each prefix is asked
    results = visit.answer("proxy")
    assert KNOB in results and INCIDENT in results
    visit.page.wait_for_timeout(1_000)
    assert visit.listed() == results  # nothing came after the box said it had answered
    visit.page.keyboard.press("Backspace")
    assert visit.answer("prox") != []
    visit.page.keyboard.press("Control+A")
    visit.page.keyboard.press("Backspace")  # an empty box answers nothing
    visit.page.wait_for_function("() => !document.querySelector('[data-kb-search]').hasAttribute('data-kb-answered')",
                                 timeout=20_000)
    assert visit.listed() == []


def test_results_narrow_to_knobs_incidents_or_docs(visit):
    visit.open("")
    everything = visit.search("proxy")
    assert KNOB in everything and INCIDENT in everything and any(p.startswith("/design/") for p in everything)
    visit.page.get_by_role("button", name="Incidents").click()
    assert visit.answer("proxy") == [INCIDENT]
    assert visit.page.get_by_role("button", name="Incidents").get_attribute("aria-pressed") == "true"
    visit.page.get_by_role("button", name="Docs").click()
    docs = visit.answer("proxy")
    assert docs and INCIDENT not in docs and all(p.startswith(("/design/", "/guide/")) for p in docs)


def test_the_query_and_the_filter_survive_going_to_a_result(visit):
    visit.open("")
    visit.search("proxy")
    visit.page.get_by_role("button", name="Knobs").click()
    knobs = visit.answer("proxy")
    assert knobs and all(p.startswith("/knobs/") for p in knobs)
    visit.page.locator(".md-search-result__item > a").first.click()
    visit.page.wait_for_url(f"**{knobs[0]}")
    assert visit.page.locator(".md-search__input").input_value() == "proxy"
    focus_search(visit.page)  # the box opens with the query and the filter kept, and answers them again
    assert visit.answer("proxy") == knobs
    assert visit.page.get_by_role("button", name="Knobs").get_attribute("aria-pressed") == "true"


def test_a_page_kept_out_of_search_by_its_front_matter_is_not_found(visit, site):
    assert "Zanzibarword" in site.html("guide/private")
    visit.open("")
    assert visit.search("Zanzibarword") == []
    assert "No matching" in visit.page.locator(".kb-search__meta").inner_text()


def test_search_is_ready_on_a_page_without_a_search(visit):
    """The index's entry point loads with the page: the box says it is ready before any key."""
    visit.open("incidents/")
    visit.page.locator('.kb-search[data-state="ready"]').wait_for(timeout=20_000)
    focus_search(visit.page)
    assert visit.page.locator(".kb-search__meta").inner_text().strip() == "Type to start searching"


def test_hand_written_pages_have_their_own_kind(visit):
    visit.open("")
    results = visit.search("postmortem")
    assert GUIDE in results
    badge = visit.page.locator(f'.md-search-result__item > a[href$="{GUIDE}"] .kb-search__kind')
    assert badge.inner_text() == "doc"


def test_enter_opens_the_first_result(visit):
    visit.open("")
    visit.search("TARGET_CTAS")
    visit.page.locator(".md-search__input").press("Enter")
    visit.page.wait_for_url(f"**{KNOB}")
