"""The org site: a real `mkdocs build --strict` of an org repository whose mkdocs.yml lists two
knowledge bases; record pages under each knowledge base's name, one home page with the org-wide
ledger and findings, one search index over all of them."""

from __future__ import annotations

import re

import pytest

from ..org_support import incident_text, write_org, write_payments, write_platform
from ..site_support import search_pages, try_build_site


@pytest.fixture
def org_site(tmp_path, user_cache):
    write_payments(tmp_path / "payments")
    write_platform(tmp_path / "platform")
    config = write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                          {"name": "platform", "path": "../platform"},
                                          {"name": "search", "path": "../search-missing"}])
    out = tmp_path / "site"
    failure, logged = try_build_site(config.parent, out, strict=False)
    assert failure is None, logged
    return out, logged


@pytest.mark.slow
def test_every_record_page_lives_under_its_knowledge_base(org_site):
    out, _ = org_site
    assert (out / "payments/knobs/db-pool-size/index.html").is_file()
    assert (out / "platform/incidents/edge-outage/index.html").is_file()
    knob = (out / "payments/knobs/db-pool-size/index.html").read_text()
    # the revert's hypothesis links to the other knowledge base's incident page
    assert 'href="../../../platform/incidents/edge-outage/#hypothesis-pool-exhaustion"' in knob


@pytest.mark.slow
def test_the_home_page_holds_the_org_ledger_and_findings(org_site):
    out, logged = org_site
    home = (out / "index.html").read_text()
    assert "1 knob reclaimable in total" in home and "payments 1, platform 0" in home
    assert 'href="payments/knobs/db-pool-size/"' in home
    assert "unreadable-kb" in home and "search" in home
    assert "knowledge base 'search' (path ../search-missing) cannot be read" in logged


@pytest.mark.slow
def test_one_search_covers_every_knowledge_base(org_site):
    out, _ = org_site
    pages = search_pages(out)
    urls = " ".join(pages)
    assert "payments/knobs/db-pool-size" in urls and "platform/incidents/edge-outage" in urls


@pytest.mark.slow
def test_the_org_site_builds_strict_when_every_knowledge_base_is_read(tmp_path, user_cache):
    write_payments(tmp_path / "payments")
    write_platform(tmp_path / "platform")
    config = write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                          {"name": "platform", "path": "../platform"}])
    failure, logged = try_build_site(config.parent, tmp_path / "site", strict=True)
    assert failure is None, logged


def _primary_nav_links(page: str) -> list[str]:
    """The links of Material's primary navigation on a built page (the sidebar, before the content)."""
    nav = page[page.index('md-nav--primary'):page.index('class="md-content"')]
    return re.findall(r'href="([^"#]*)"', nav)


@pytest.mark.slow
def test_the_nav_holds_one_entry_per_knowledge_base(org_site):
    """Every page renders the whole nav: one entry per knowledge base (its home, whose page leads to its
    indexes), not each knowledge base's indexes, so a page's size does not grow with theirs."""
    out, _ = org_site
    links = _primary_nav_links((out / "payments/knobs/db-pool-size/index.html").read_text())
    assert "../../../payments/" not in links  # its own home is "../../" from here
    assert set(links) == {"../../..", "../../", "../../../platform/"}, links
    entry = r'href="../../../platform/"[^>]*>\s*(<[^>]*>\s*)*Platform\s*<'  # the section's title, not the page's
    assert re.search(entry, (out / "payments/knobs/db-pool-size/index.html").read_text())
    home = (out / "payments/index.html").read_text()
    assert 'href="knobs/"' in home and 'href="incidents/"' in home


@pytest.mark.slow
def test_the_incident_page_lists_other_knowledge_bases_knobs_changed_under_its_hypotheses(org_site):
    """payments' knob was reverted under platform:edge-outage's hypothesis: the platform incident's page
    says so under the hypothesis, linking to the knob's page in payments' part of the site."""
    out, _ = org_site
    page = (out / "platform/incidents/edge-outage/index.html").read_text()
    hypothesis = page[page.index('id="hypothesis-pool-exhaustion"'):]
    assert ('<li>2026-11-02 <span class="kb-badge kb-status-reverted">reverted</span> '
            '<a href="../../../payments/knobs/db-pool-size/">DB_POOL_SIZE</a></li>') in hypothesis
    # and in the hypotheses' overview, the change beside the suspect
    overview = page[:page.index('id="hypothesis-pool-exhaustion"')]
    assert ('<span class="kb-badge kb-status-reverted">reverted</span> '
            '<span class="kb-nowrap">2026-11-02</span>') in overview


def _box(page: str) -> str:
    """The incident page's box of knobs still reverted under its hypotheses (an admonition)."""
    start = page.index('<div class="admonition')
    return page[start:page.index("</div>", start)]


@pytest.mark.slow
def test_the_incident_page_says_another_knowledge_bases_knob_is_still_reverted_under_it(org_site):
    """payments' knob stands reverted under platform:edge-outage's refuted hypothesis: the platform
    incident's box lists it to restore (linking to payments' page), its status says so, as do the
    platform incidents index's row and filter."""
    out, _ = org_site
    page = (out / "platform/incidents/edge-outage/index.html").read_text()
    box = _box(page)
    assert "admonition danger" in box and "1 knob to restore: still reverted under this incident" in box
    assert '<a href="../../../payments/knobs/db-pool-size/">DB_POOL_SIZE</a>, reverted 2026-11-02 under' in box
    assert 'href="./#hypothesis-pool-exhaustion">pool-exhaustion</a>' in box
    assert "Restoring it reclaims +9.5% checkout throughput." in box
    assert "Restore it in knowledge base payments: <code>kb restore db-pool-size</code>" in box
    assert "open, 1 knob still reverted" in page
    index = (out / "platform/incidents/index.html").read_text()
    row = index[index.index('href="edge-outage/"') - 300:]
    assert 'data-still-reverted="yes"' in row[:400] and "open, 1 knob still reverted" in row[:1500]
    assert "open, 1 knob still reverted" in (out / "platform/index.html").read_text()


@pytest.mark.slow
@pytest.mark.parametrize(("floors", "said"), [
    ({"payments": 12}, "Restoring it reclaims nothing distinguishable from noise (+9.5% checkout throughput)."),
    ({"platform": 12}, "Restoring it reclaims +9.5% checkout throughput."),
])
def test_another_knowledge_bases_gain_is_told_by_its_own_min_gain(tmp_path, user_cache, floors, said):
    """payments' +9.5% is noise where payments' min-gain-pct is 12, and a gain where only platform's
    is: platform's box tells it as payments' own check does, whatever platform's floor."""
    write_payments(tmp_path / "payments")
    write_platform(tmp_path / "platform")
    for name, floor in floors.items():
        (tmp_path / name / "pyproject.toml").write_text(f"[tool.incident-kb]\nmin-gain-pct = {floor}\n")
    config = write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                          {"name": "platform", "path": "../platform"}])
    failure, logged = try_build_site(config.parent, tmp_path / "site", strict=False)
    assert failure is None, logged
    box = _box((tmp_path / "site/platform/incidents/edge-outage/index.html").read_text())
    assert said in box


@pytest.mark.slow
def test_while_the_hypothesis_is_open_another_knowledge_bases_knob_stays_a_test(tmp_path, user_cache):
    """The same revert under a hypothesis still open: listed as a test that stays, no alarm; and a
    payments incident of the same id as platform's lists none of it."""
    write_payments(tmp_path / "payments")
    (tmp_path / "payments/incidents/edge-outage.yaml").write_text(
        incident_text("open", "db-pool-size").replace("Edge proxies time out", "Payments' own outage"))
    write_platform(tmp_path / "platform", status="open")
    config = write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                          {"name": "platform", "path": "../platform"}])
    failure, logged = try_build_site(config.parent, tmp_path / "site", strict=False)
    assert failure is None, logged
    page = (tmp_path / "site/platform/incidents/edge-outage/index.html").read_text()
    box = _box(page)
    assert "admonition note" in box and "1 knob stays reverted under this incident" in box
    assert '<a href="../../../payments/knobs/db-pool-size/">DB_POOL_SIZE</a>' in box
    assert 'Still a hypothesis test: <a href="./#hypothesis-pool-exhaustion">pool-exhaustion</a> is open.' in box
    own = (tmp_path / "site/payments/incidents/edge-outage/index.html").read_text()
    assert "Payments' own outage" in own and "still reverted" not in own and "stays reverted" not in own


@pytest.mark.slow
def test_a_knobs_page_links_every_incident_that_suspects_it_in_its_own_knowledge_base(tmp_path, user_cache):
    """payments' knob is suspected by two platform incidents: edge-outage (it was reverted under it) and
    checkout-latency (its hypothesis names `payments:db-pool-size`, the knob's history does not); payments
    has incidents of both ids too, which suspect nothing. The knob's page lists the two platform ones,
    each linked to its page in platform's part of the site."""
    write_payments(tmp_path / "payments")
    for incident_id in ("edge-outage", "checkout-latency"):
        (tmp_path / f"payments/incidents/{incident_id}.yaml").write_text(
            f"id: {incident_id}\ntitle: Payments' own {incident_id}\nstatus: resolved\nstarted: 2026-10-01\n"
            "resolved: 2026-10-02\nsummary: Something else.\n")
    write_platform(tmp_path / "platform")
    (tmp_path / "platform/incidents/checkout-latency.yaml").write_text(
        incident_text("open", incident_id="checkout-latency").replace("Edge proxies time out", "Checkout is slow"))
    config = write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                          {"name": "platform", "path": "../platform"}])
    failure, logged = try_build_site(config.parent, tmp_path / "site", strict=True)
    assert failure is None, logged
    page = (tmp_path / "site/payments/knobs/db-pool-size/index.html").read_text()
    suspected = page[page.index('id="suspected-in-incidents"'):page.index('id="status-history"')]
    links = re.findall(r'href="([^"]*incidents[^"]*)"', suspected)
    assert set(links) == {"../../../platform/incidents/edge-outage/",
                          "../../../platform/incidents/edge-outage/#hypothesis-pool-exhaustion",
                          "../../../platform/incidents/checkout-latency/",
                          "../../../platform/incidents/checkout-latency/#hypothesis-pool-exhaustion"}, links
    assert "Payments&#39; own" not in suspected and "Payments' own" not in suspected
