"""feed.xml: an Atom 1.0 feed of the records' changes, read back by a real feed parser: the changes it
names and none other, newest first, dated as the records say, ids that stay the same across builds
(and across an edit of another record), and a link to it in every page's head."""

from __future__ import annotations

from dataclasses import replace

import feedparser
import pytest

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core.feed import FEED
from incident_kb.website.core.links import SiteSettings
from incident_kb.website.core.pages import render_site

from ..conftest import SEED_KNOB, edit
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
