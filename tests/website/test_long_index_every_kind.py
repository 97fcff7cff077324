"""Every index past one page of rows, not only the knobs index (test_long_index.py): the incidents
index (newest first) and the findings page (errors first) carry their first INDEX_FILE_ROWS rows,
pages of the others beside them, and every row as JSON for the script; a real strict build links
them all; a live preview renders them as a full render does."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import pytest

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core.incremental import render_site_again
from incident_kb.website.core.links import FINDINGS_PAGE, INCIDENT_INDEX, SiteSettings, index_part, index_rows_file
from incident_kb.website.core.overview_pages import INDEX_FILE_ROWS, INDEX_PAGE_SIZE
from incident_kb.website.core.pages import render_site

from ..site_support import (
    add_extra_incidents,
    build_site,
    copy_knowledge_base,
    json_rows,
    markdown_cells,
    serve,
    table_rows,
)
from .test_browser import browser, visiting  # noqa: F401

KB_JS = re.compile(r".*/kb\.js(\?.*)?$")

SETTINGS = SiteSettings(site_name="kb", docs_dir="docs", edit_base=None)
EXTRA = INDEX_FILE_ROWS + 23  # with the seed's incident (and its findings), two pages of each
@pytest.fixture(scope="module")
def many_findings(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """EXTRA incidents resolved without a root cause: EXTRA errors, and two pages of each index."""
    root = copy_knowledge_base(tmp_path_factory.mktemp("many-findings") / "kb")
    add_extra_incidents(root, EXTRA, findings=True)
    return root


@pytest.mark.parametrize(("index", "noun", "order", "called"), [
    (INCIDENT_INDEX, "incidents", "newest first", "the incidents index"),
    (FINDINGS_PAGE, "findings", "errors first", "the findings page"),
])
def test_a_long_index_carries_its_first_rows_and_a_page_holds_the_others(many_findings, index, noun, order, called):
    kb = check_knowledge_base(many_findings)
    site = render_site(kb, SETTINGS)
    second, rows_file = index_part(index, 2), index_rows_file(index)
    assert (second, rows_file) == {INCIDENT_INDEX: ("incidents/page_2.md", "incidents/index.json"),
                                   FINDINGS_PAGE: ("findings_page_2.md", "findings.json")}[index]
    first_rows, second_rows = table_rows(site.files[index]), table_rows(site.files[second])
    total = len(kb.catalog.incidents) if index == INCIDENT_INDEX else len(kb.findings)
    assert total > INDEX_FILE_ROWS + 20
    assert len(first_rows) == INDEX_FILE_ROWS and len(second_rows) == total - INDEX_FILE_ROWS
    assert index_part(index, 3) not in site.files
    carried = site.files[index]
    # Where the page is served (findings/ with directory URLs), as the script's fetch resolves it.
    served = {INCIDENT_INDEX: "index.json", FINDINGS_PAGE: "../findings.json"}[index]
    assert f'data-rows="{served}"' in carried and "data-rows" not in site.files[second]
    last = f"{noun} {INDEX_FILE_ROWS + 1}\u2013{total}"
    assert f"Pages of the index, {INDEX_FILE_ROWS} {noun} each, {order}: " in carried
    assert f"[{last}]({Path(second).name})" in carried
    assert f"<strong>{noun} 1\u2013{INDEX_FILE_ROWS}</strong> (this page)" in carried
    assert f"<strong>{last}</strong> (this page)" in site.files[second]
    assert f'aria-label="Pages of {called}" }}' in site.files[second]
    assert f"{last.capitalize()} of {total}, {order}. [{called.capitalize()}]({Path(index).name})" \
        in site.files[second]
    meta = site.pages[second]
    assert (meta.in_nav, meta.search_excluded) == (False, True)
    # Every row once, in the order of the one long table, and the JSON's cells as markdown makes them.
    columns = json.loads(site.files[rows_file])["columns"]
    assert json_rows(site.files[rows_file]) == markdown_cells(columns, first_rows + second_rows)
    if index == INCIDENT_INDEX:
        titles = re.findall(r"\[Extra incident number (\d+)\]", "\n".join(first_rows + second_rows))
        assert [int(number) for number in titles] == list(range(EXTRA - 1, -1, -1))  # newest first
    else:
        errors = ["kb-severity-error" in row for row in first_rows + second_rows]
        assert errors == sorted(errors, reverse=True) and sum(errors) >= EXTRA  # errors first
        assert sum('<code class="kb-nowrap">root-cause</code>' in row for row in first_rows + second_rows) == EXTRA


def test_the_rows_file_is_named_from_where_the_page_is_served(many_findings):
    """Without directory URLs findings.md is served as findings.html, beside its rows file."""
    site = render_site(check_knowledge_base(many_findings), dataclasses.replace(SETTINGS, directory_urls=False))
    assert 'data-rows="findings.json"' in site.files[FINDINGS_PAGE]
    assert 'data-rows="index.json"' in site.files[INCIDENT_INDEX]


def test_a_short_index_is_one_page_with_nothing_beside_it(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    add_extra_incidents(root, INDEX_FILE_ROWS - 1)
    files = render_site(check_knowledge_base(root), SETTINGS).files
    assert len(table_rows(files[INCIDENT_INDEX])) == INDEX_FILE_ROWS
    assert index_part(INCIDENT_INDEX, 2) not in files and index_rows_file(INCIDENT_INDEX) not in files
    assert "data-rows" not in files[INCIDENT_INDEX] and "kb-pages" not in files[INCIDENT_INDEX]


def test_the_live_preview_renders_the_pages_of_rows_as_a_full_render(many_findings):
    kb = check_knowledge_base(many_findings)
    first, full = render_site_again(kb, SETTINGS, None), render_site(kb, SETTINGS)
    assert first.site.files == full.files and first.site.pages == full.pages
    record = many_findings / "incidents/extra-incident-003.yaml"  # on the second page of each
    before = record.read_text()
    record.write_text(before.replace("Extra incident number 3\n", "Extra incident number three\n"))
    try:
        kb = check_knowledge_base(many_findings)
        again, full = render_site_again(kb, SETTINGS, first), render_site(kb, SETTINGS)
        assert again.site.files == full.files and again.site.pages == full.pages
        assert "number three" in full.files["incidents/page_2.md"]
        assert "number three" in full.files["incidents/index.json"]
    finally:
        record.write_text(before)


@pytest.fixture(scope="module")
def built(many_findings: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real `mkdocs build --strict`: it fails on a link to a page that is not there, so every row's
    link on the pages of rows, and the links between the pages, resolve in the built site."""
    out = tmp_path_factory.mktemp("many-findings-site") / "site"
    build_site(many_findings, out)
    return out


@pytest.mark.slow  # a real build of 1,000 pages
def test_a_strict_build_links_every_page_of_rows(built):
    for page in ("incidents/page_2/index.html", "findings_page_2/index.html"):
        html = (built / page).read_text(encoding="utf-8")
        assert 'class="kb-pages"' in html and "(this page)" in html
    assert json.loads((built / "findings.json").read_text(encoding="utf-8"))["rows"]
    assert json.loads((built / "incidents/index.json").read_text(encoding="utf-8"))["rows"]


ROWS = "article table tbody tr"
CELLS = f"Array.from(document.querySelectorAll('{ROWS}')).map(r => Array.from(r.cells).map(c => c.innerHTML))"


@pytest.mark.slow  # a real browser
@pytest.mark.parametrize(("path", "rows_file", "link"), [
    ("incidents/", "/incidents/index.json", 'href="multi-round-harness-hang/"'),
    ("findings/", "/findings.json", 'href="../incidents/extra-incident-000/"'),
])
def test_the_script_shows_every_row_from_the_file_as_the_page_shows_its_own(browser, built, path, rows_file,  # noqa: F811
                                                                                link):
    """The first rows as the page carries them (kb.js held back) and as kb.js made them from the JSON:
    the same cells, links given the site's form of address (the findings page's lead out of its folder);
    with the file read, the count is every row's."""
    with serve(built) as base:
        context = browser.new_context()
        try:
            context.route(KB_JS, lambda route: route.abort())
            page = context.new_page()
            page.goto(base + path, wait_until="load")
            carried = page.evaluate(CELLS)[:INDEX_PAGE_SIZE]
        finally:
            context.close()
    with visiting(browser, built) as visit:
        visit.open(path)
        visit.page.locator(".kb-table-tools[data-ready]").wait_for()
        made = visit.page.evaluate(CELLS)
        assert visit.page.evaluate("performance.getEntriesByType('resource')"
                                   f".some(e => e.name.endsWith('{rows_file}'))")
        shown, total = re.fullmatch(r"(\d[\d,]*) of (\d[\d,]*) shown",
                                    visit.page.locator(".kb-count").inner_text()).groups()
        assert shown == total and int(total.replace(",", "")) > INDEX_FILE_ROWS
        assert visit.page.locator(".kb-pages").is_hidden()
    assert len(made) == INDEX_PAGE_SIZE and made == carried
    assert link in made[0][0] or link in made[0][1]
