"""The knobs index past one page of rows (INDEX_FILE_ROWS knobs): its first rows on the index, the
others on pages of their own that each link to every page, and every row in one JSON file for the
script, each cell as markdown makes it; an index of one page is as it always was."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core.bundle import Bundle
from incident_kb.website.core.incremental import render_site_again
from incident_kb.website.core.links import KNOB_INDEX, SiteSettings, index_rows_file
from incident_kb.website.core.overview_pages import INDEX_FILE_ROWS
from incident_kb.website.core.pages import render_site

from ..site_support import LONG_EXTRA, add_extra_knobs, copy_knowledge_base, json_rows, markdown_cells, table_rows

SETTINGS = SiteSettings(site_name="kb", docs_dir="docs", edit_base=None)
TOTAL = LONG_EXTRA + 1  # and the seed's knob
SECOND = "knobs/page_2.md"
KNOB_ROWS = index_rows_file(KNOB_INDEX)
LINK = re.compile(r"\]\(([a-z0-9-]+)\.md\)")


@pytest.fixture(scope="module")
def long_kb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = copy_knowledge_base(tmp_path_factory.mktemp("long-index") / "kb")
    add_extra_knobs(root, LONG_EXTRA)
    return root


@pytest.fixture(scope="module")
def site(long_kb: Path) -> Bundle:
    return render_site(check_knowledge_base(long_kb), SETTINGS)


def test_the_index_carries_its_first_rows_and_a_page_holds_the_others(site):
    index, second = site.files[KNOB_INDEX], site.files[SECOND]
    assert len(table_rows(index)) == INDEX_FILE_ROWS and len(table_rows(second)) == TOTAL - INDEX_FILE_ROWS
    assert "knobs/page_3.md" not in site.files
    shown = LINK.findall("\n".join(table_rows(index) + table_rows(second)))
    assert len(shown) == len(set(shown)) == TOTAL  # every knob on one page, once
    assert "sglang-sm120-mma-target-ctas" in LINK.findall("\n".join(table_rows(second)))  # sorted by name
    assert 'data-rows="index.json"' in index and "data-rows" not in second
    assert "[knobs 501\u2013541](page_2.md)" in index and "<strong>knobs 1\u2013500</strong> (this page)" in index
    assert "[knobs 1\u2013500](index.md)" in second and "<strong>knobs 501\u2013541</strong> (this page)" in second
    assert '{: .kb-pages role="navigation" aria-label="Pages of the knobs index" }' in second
    assert "# Knobs, page 2 of 2\n" in second and "[The knobs index](index.md) filters and sorts" in second
    page = site.pages[SECOND]
    assert (page.title, page.in_nav, page.search_excluded) == ("Knobs, page 2 of 2", False, True)
    assert site.pages[KNOB_INDEX].in_nav


def test_the_rows_file_holds_every_row_as_markdown_makes_its_cells(site):
    """Each cell's HTML in the JSON is what markdown makes of the page's own cell (the script shows
    the JSON's rows where the page showed its own)."""
    rows = table_rows(site.files[KNOB_INDEX]) + table_rows(site.files[SECOND])
    cells = markdown_cells(json.loads(site.files[KNOB_ROWS])["columns"], rows)
    assert json_rows(site.files[KNOB_ROWS]) == cells
    assert len(cells) == TOTAL and '<a href="extra-000.md">SGLANG_<wbr>EXTRA_<wbr>SETTING_<wbr>000</a>' in cells[0][0]
    assert len(site.files[KNOB_ROWS]) < 0.8 * sum(map(len, rows))  # cells that rows share are written once


def test_an_index_of_one_page_carries_every_row_and_nothing_beside_it(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    add_extra_knobs(root, INDEX_FILE_ROWS - 1)
    files = render_site(check_knowledge_base(root), SETTINGS).files
    assert len(table_rows(files[KNOB_INDEX])) == INDEX_FILE_ROWS
    assert SECOND not in files and KNOB_ROWS not in files
    assert "data-rows" not in files[KNOB_INDEX] and "kb-pages" not in files[KNOB_INDEX]


def test_the_live_preview_renders_the_pages_of_rows_as_a_full_render(long_kb):
    kb = check_knowledge_base(long_kb)
    first, full = render_site_again(kb, SETTINGS, None), render_site(kb, SETTINGS)
    assert first.site.files == full.files and first.site.pages == full.pages
    knob = long_kb / "knobs/extra-530.yaml"  # on the second page
    knob.write_text(knob.read_text().replace("component: prefill", "component: sampler"))
    try:
        kb = check_knowledge_base(long_kb)
        again = render_site_again(kb, SETTINGS, first)
        full = render_site(kb, SETTINGS)
        assert again.site.files == full.files and again.site.pages == full.pages
        assert "sampler" in full.files[SECOND] and "sampler" in full.files[KNOB_ROWS]
    finally:
        knob.write_text(knob.read_text().replace("component: sampler", "component: prefill"))
