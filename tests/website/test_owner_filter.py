"""The knobs and incidents indexes filter by owner (`?owner=NAME`, as the other filters): each row
carries its record's owners as a facet; the browser test opens the filter from the address."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core.pages import render_site
from incident_kb.website.core.site_config import SiteSettings

from ..site_support import build_site, copy_knowledge_base
from .test_browser import browser, visiting  # noqa: F401

KNOB = "sglang-sm120-mma-target-ctas"
INCIDENT = "multi-round-harness-hang"


def owned(root: Path) -> Path:
    """The seed with owners: the knob two, the incident one, and a second knob owned by nobody."""
    knob = root / f"knobs/{KNOB}.yaml"
    knob.write_text(knob.read_text().replace("applies_to:\n", "owners: ['@decode-team', '@perf|team']\napplies_to:\n"))
    incident = root / f"incidents/{INCIDENT}.yaml"
    incident.write_text(incident.read_text().replace("\ndocs:\n", "\nowners: ['@sre']\ndocs:\n"))
    (root / "knobs/prefill-chunk.yaml").write_text(
        "id: prefill-chunk\nname: PREFILL_CHUNK\nsummary: Prefill chunk size.\nvalue: 8192\nstatus: active\n"
        "history:\n  - date: 2026-11-01\n    status: active\n")
    return root


def test_index_rows_carry_their_owners(seed_kb):
    files = render_site(check_knowledge_base(owned(seed_kb)), SiteSettings(site_name="kb", docs_dir="docs",
                                                                           edit_base=None)).files
    knobs, incidents = files["knobs/index.md"], files["incidents/index.md"]
    assert 'data-filters="Status,Component,Tags,Owner,Reclaimable,Restore"' in knobs
    assert 'data-owner="@decode-team&#124;@perf/team"' in knobs  # '|' separates the values (an entity in HTML)
    assert 'data-owner=""' in knobs  # owned by nobody: matches no owner
    assert 'data-filters="Status,Severity,Owner,Still reverted"' in incidents
    assert 'data-owner="@sre"' in incidents


@pytest.fixture(scope="module")
def owned_site(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("owned-site")
    owned(copy_knowledge_base(base / "kb"))
    build_site(base / "kb", base / "site")
    return base / "site"


@contextlib.contextmanager
def _visit(browser, site) -> Iterator[object]:  # noqa: F811
    with visiting(browser, site) as visitor:
        yield visitor


@pytest.mark.slow
def test_the_owner_filter_in_the_browser(browser, owned_site):  # noqa: F811
    with _visit(browser, owned_site) as visit:
        visit.open("knobs/?owner=@decode-team")
        select = visit.page.locator('select[data-column="Owner"]')
        select.wait_for()
        assert select.locator("option").all_inner_texts() == ["all", "@decode-team", "@perf/team"]
        assert select.input_value() == "@decode-team"
        rows = visit.page.locator("article table tbody tr:visible")
        assert rows.count() == 1 and KNOB in rows.first.inner_html()
        select.select_option("")
        assert rows.count() == 2
        assert "owner=" not in visit.page.url
        select.select_option("@perf/team")
        assert rows.count() == 1 and "owner=%40perf%2Fteam" in visit.page.url
        visit.open("incidents/?owner=@sre")
        visit.page.locator('select[data-column="Owner"]').wait_for()
        assert visit.page.locator("article table tbody tr:visible").count() == 1
        visit.open("incidents/?owner=@nobody-such")  # no such owner: the filter stays at all
        visit.page.locator('select[data-column="Owner"]').wait_for()
        assert visit.page.locator('select[data-column="Owner"]').input_value() == ""
