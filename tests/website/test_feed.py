"""feed.xml: an Atom 1.0 feed of the records' changes, read back by a real feed parser: the changes it
names and none other, newest first, dated as the records say, ids that stay the same across builds
(and across an edit of another record), links that reach the built pages however the site serves
them (directory URLs or not, under a prefix), a link to it in every page's head, and one feed over
every knowledge base of an org site."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from urllib.parse import unquote, urldefrag

import feedparser
import pytest

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core.feed import FEED
from incident_kb.website.core.links import SiteSettings
from incident_kb.website.core.pages import render_site

from ..conftest import SEED_KNOB, edit
from ..org_support import write_org, write_payments, write_platform
from ..site_support import copy_knowledge_base, try_build_site

NAME = "SGLANG_SM120_MMA_TARGET_CTAS"


def _feed(root, settings: SiteSettings | None = None):
    text = render_site(check_knowledge_base(root), settings or SiteSettings()).files[FEED]
    parsed = feedparser.parse(text)
    assert not parsed.bozo, parsed.bozo_exception
    return parsed


def test_the_seed_story_as_a_feed(seed_kb):
    feed = _feed(seed_kb)
    assert feed.version == "atom10"
    titles = [entry.title for entry in feed.entries]
    assert f"{NAME}: active -> reverted" in titles and f"{NAME}: reverted -> restored" in titles
    assert any(title.startswith("Hypothesis refuted: ") for title in titles)
    assert any(title.startswith("Incident opened: ") for title in titles)
    assert any(title.startswith("Incident resolved: ") for title in titles)
    assert f"{NAME}: active" not in titles  # a knob's first entry is no change
    stamps = [entry.updated_parsed for entry in feed.entries]
    assert stamps == sorted(stamps, reverse=True)  # newest first
    assert feed.feed.updated_parsed == stamps[0]  # the newest change, never the build's time
    restored = next(entry for entry in feed.entries if entry.title.endswith("reverted -> restored"))
    assert restored.updated.startswith("2026-11-07") and restored.link == "knobs/sglang-sm120-mma-target-ctas/"
    refuted = next(entry for entry in feed.entries if entry.title.startswith("Hypothesis refuted: "))
    assert refuted.link.startswith("incidents/multi-round-harness-hang/#hypothesis-")


def test_ids_stay_the_same_across_builds_and_edits_of_other_records(seed_kb):
    first = {entry.title: entry.id for entry in _feed(seed_kb).entries}
    assert first == {entry.title: entry.id for entry in _feed(seed_kb).entries}
    assert len(set(first.values())) == len(first)
    text = (seed_kb / SEED_KNOB).read_text()
    (seed_kb / SEED_KNOB).write_text(text + "  - date: 2026-11-20\n    status: active\n    value: 768\n"
                                     "    note: a new value\n")
    edit(seed_kb / "deploy/decode.sh", "=512\n", "=768\n")
    after = {entry.title: entry.id for entry in _feed(seed_kb).entries}
    assert after.items() >= first.items()  # every earlier entry keeps its id
    assert f"{NAME}: restored -> active, value 512 -> 768" in after


def test_links_are_absolute_under_the_sites_address(seed_kb):
    feed = _feed(seed_kb, replace(SiteSettings(), site_url="https://kb.example.invalid/team"))
    assert all(entry.link.startswith("https://kb.example.invalid/team/") for entry in feed.entries)
    assert feed.feed.link == "https://kb.example.invalid/team/"


@pytest.mark.slow
@pytest.mark.parametrize("prefix", ["", "kb"])
def test_every_page_names_the_feed_in_its_head(tmp_path, prefix):
    root = copy_knowledge_base(tmp_path / "kb")
    if prefix:
        edit(root / "mkdocs.yml", "\n  - incident-kb\n", f"\n  - incident-kb:\n      prefix: {prefix}\n")
    failure, log = try_build_site(root, tmp_path / "site", strict=not prefix)  # (the nav names the top's pages)
    assert failure is None, log
    site = tmp_path / "site"
    feed = site / prefix / FEED if prefix else site / FEED
    assert not feedparser.parse(feed.read_text()).bozo
    under = f"{prefix}/" if prefix else ""
    for page in (f"{under}index.html", "design/DSV4_DECODE_PERF_PLAN/index.html",
                 f"{under}knobs/sglang-sm120-mma-target-ctas/index.html"):
        html = (site / page).read_text()
        head = html[:html.index("</head>")]
        [link] = [line for line in head.splitlines() if 'type="application/atom+xml"' in line]
        href = link.split('href="')[1].split('"')[0]
        assert (site / page).parent.joinpath(href).resolve() == feed.resolve(), (page, href)


def test_links_name_the_html_files_when_the_site_has_no_directory_urls(seed_kb):
    feed = _feed(seed_kb, replace(SiteSettings(), directory_urls=False))
    links = {entry.link for entry in feed.entries}
    assert "knobs/sglang-sm120-mma-target-ctas.html" in links
    assert any(link.startswith("incidents/multi-round-harness-hang.html#hypothesis-") for link in links)
    assert not any(link.endswith("/") or "/#" in link for link in links)


def _reached(site: Path, feed: Path) -> list[str]:
    """Every entry's link in the built feed, as the page it reaches in the built site ('' when none)."""
    parsed = feedparser.parse(feed.read_text())
    assert not parsed.bozo, parsed.bozo_exception
    assert parsed.entries
    reached = []
    for entry in parsed.entries:
        target = feed.parent / unquote(urldefrag(entry.link).url)
        target = target / "index.html" if entry.link.split("#")[0].endswith("/") else target
        reached.append(target.resolve().relative_to(site.resolve()).as_posix() if target.is_file() else "")
    return reached


@pytest.mark.slow
@pytest.mark.parametrize("prefix, directory_urls", [("", False), ("kb", False), ("kb", True)])
def test_every_entry_reaches_its_built_page(tmp_path, prefix, directory_urls):
    """A knob whose id is 'index' too: its page is not the knobs index (the feed used to link that)."""
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "knobs/index.yaml").write_text((root / SEED_KNOB).read_text().replace(
        "id: sglang-sm120-mma-target-ctas", "id: index").replace("SGLANG_SM120_MMA_TARGET_CTAS", "INDEX_KNOB"))
    plugin = f"\n  - incident-kb:\n      prefix: {prefix}\n" if prefix else "\n  - incident-kb\n"
    edit(root / "mkdocs.yml", "\n  - incident-kb\n", plugin)
    if not directory_urls:
        (root / "mkdocs.yml").write_text((root / "mkdocs.yml").read_text() + "use_directory_urls: false\n")
    failure, log = try_build_site(root, tmp_path / "site", strict=False)
    assert failure is None, log
    site = tmp_path / "site"
    reached = _reached(site, site / prefix / FEED)
    assert "" not in reached, reached
    under = f"{prefix}/" if prefix else ""
    index_knob = f"{under}knobs/index_.html" if not directory_urls else f"{under}knobs/index_/index.html"
    assert index_knob in reached and "INDEX_KNOB" in (site / index_knob).read_text()


@pytest.mark.slow
@pytest.mark.parametrize("directory_urls", [True, False])
def test_an_org_site_has_one_feed_over_every_knowledge_base(tmp_path, user_cache, directory_urls):
    write_payments(tmp_path / "payments")
    write_platform(tmp_path / "platform")
    config = write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                          {"name": "platform", "path": "../platform"}])
    if not directory_urls:
        config.write_text(config.read_text() + "use_directory_urls: false\n")
    site = tmp_path / "site"
    failure, log = try_build_site(config.parent, site, strict=True)
    assert failure is None, log
    feed = feedparser.parse((site / FEED).read_text())
    titles = [entry.title for entry in feed.entries]
    assert "payments: DB_POOL_SIZE: active -> reverted" in titles
    assert "platform: Incident opened: Edge proxies time out" in titles
    assert any(title.startswith("platform: Hypothesis refuted: ") for title in titles)
    assert all(title.split(": ")[0] in ("payments", "platform") for title in titles)
    reached = _reached(site, site / FEED)
    assert "" not in reached and {page.split("/")[0] for page in reached} == {"payments", "platform"}
    # every page names the org's one feed (each knowledge base keeps its own under its name)
    for page in ("index.html", "payments/knobs/db-pool-size/index.html" if directory_urls
                 else "payments/knobs/db-pool-size.html"):
        head = (site / page).read_text().split("</head>")[0]
        [href] = [line.split('href="')[1].split('"')[0] for line in head.splitlines()
                  if 'type="application/atom+xml"' in line]
        assert ((site / page).parent / href).resolve() == (site / FEED).resolve()
    for name in ("payments", "platform"):  # each knowledge base's own feed reaches its pages too
        own = _reached(site, site / name / FEED)
        assert "" not in own and {page.split("/")[0] for page in own} == {name}, own
