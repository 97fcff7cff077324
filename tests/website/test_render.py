"""Rendering: the pages a reader sees, as markdown, for the seed story and for broken inputs."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from incident_kb.check.pipeline import CheckMode, check_knowledge_base
from incident_kb.findings import finding
from incident_kb.website.core.bundle import Bundle
from incident_kb.website.core.links import SiteSettings
from incident_kb.website.core.pages import render_site
from incident_kb.website.core.site_config import read_site_settings, settings_from_config

from ..conftest import REPO, SEED_INCIDENT, SEED_KNOB, break_seed_story, edit
from ..golden import assert_golden

SETTINGS = SiteSettings(site_name="incident-kb", docs_dir="docs",
                        edit_base="https://example.invalid/incident-kb/edit/main/docs/")
KNOB_PAGE = "knobs/sglang-sm120-mma-target-ctas.md"
INCIDENT_PAGE = "incidents/multi-round-harness-hang.md"


def untagged(markdown: str) -> str:
    """The text without HTML tags (dates in tables are wrapped in spans that keep them on one line)."""
    return re.sub(r"<[^>]+>", "", markdown)


def render(root: Path, extra_findings=()) -> Bundle:
    kb = check_knowledge_base(root)
    kb = replace(kb, findings=(*kb.findings, *extra_findings))
    return render_site(kb, SETTINGS)


def test_seed_knob_page_snapshot(seed_kb):
    assert_golden("pages/knob.md", render(seed_kb).files[KNOB_PAGE])


def test_seed_incident_page_snapshot(seed_kb):
    assert_golden("pages/incident.md", render(seed_kb).files[INCIDENT_PAGE])


def test_knob_page_answers_was_it_the_thing_that_caused_the_hang(seed_kb):
    page = render(seed_kb).files[KNOB_PAGE]
    assert '<span class="kb-badge kb-status-active">active</span>' in page
    assert r"**Gains:** +12.8% output throughput at concurrency 64, +5.7% at 96" in page
    assert ("**Suspected in:** [Multi-round agent harness hangs after several rounds]"
            "(../incidents/multi-round-harness-hang.md): ") in page
    assert "Exonerated: the hypothesis was refuted." in page
    assert ("[target-ctas-causes-hang]"
            "(../incidents/multi-round-harness-hang.md#hypothesis-target-ctas-causes-hang)") in page
    assert "Direct connections bypassing the proxy" in page  # why it was exonerated
    assert ("[Edit this record]"
            "(https://example.invalid/incident-kb/edit/main/knobs/sglang-sm120-mma-target-ctas.yaml)") in page
    assert "![Gain chart. output throughput (% of baseline): concurrency 64 +12.8%, concurrency 96 +5.7%]" in page


def test_incident_page_marks_the_revert_made_on_correlation_alone(seed_kb):
    page = render(seed_kb).files[INCIDENT_PAGE]
    assert "### Refuted: target-ctas-causes-hang { #hypothesis-target-ctas-causes-hang }" in page
    assert "### Confirmed (root cause): client-proxy-fault { #hypothesis-client-proxy-fault }" in page
    assert '!!! warning "Correlation alone"' in page
    assert '<span class="kb-badge kb-evidence-correlation">correlation</span>' in page
    assert page.count('!!! warning "Correlation alone"') == 1  # the confirmed hypothesis has real evidence


def test_reclaimable_knob_leads_the_home_page_and_boxes_the_knob_page(seed_kb):
    break_seed_story(seed_kb)
    site = render(seed_kb)
    home = site.files["index.md"]
    needs_action = home[home.index("## Needs action"):home.index("## Recent changes")]
    assert "[SGLANG\\_<wbr>SM120\\_<wbr>MMA\\_<wbr>TARGET\\_<wbr>CTAS](knobs/sglang-sm120-mma-target-ctas.md) | " \
           "+12.8% output throughput at concurrency 64, +5.7% at 96 | " \
           "<span class=\"kb-nowrap\">2026-11-04</span> |" in needs_action
    assert "kb check reports 1 error and 0 warnings, by code below" in needs_action
    # Summarised by code on the home page, each count linking to the code's list on the findings page.
    assert ('| <code class="kb-nowrap">reclaimable-knob</code> | '
            '<span class="kb-badge kb-severity-error">error</span> | '
            "[1](findings.md?code=reclaimable-knob&severity=error) |") in needs_action
    findings = site.files["findings.md"]
    assert f"[{SEED_KNOB}:8](knobs/sglang-sm120-mma-target-ctas.md)" in findings.replace("\\_", "_")
    knob = site.files[KNOB_PAGE]
    assert '<div class="admonition danger kb-finding" data-search-exclude>' in knob
    assert f"Error reclaimable-knob ({SEED_KNOB}:8)" in knob


def test_a_broken_record_has_no_page_and_is_never_linked(seed_kb):
    (seed_kb / "incidents/other-hang.yaml").write_text("id: other-hang\ntitle: [unclosed\n")
    edit(seed_kb / SEED_KNOB, "    incident: multi-round-harness-hang\n    hypothesis: target-ctas-causes-hang\n",
         "    incident: other-hang\n")
    site = render(seed_kb)
    assert "incidents/other-hang.md" not in site.files
    assert "other-hang.md" not in "".join(site.markdown.values())
    assert "under incident other-hang" in site.files[KNOB_PAGE]
    assert '<code>incidents/other-hang.yaml:3</code> | <code class="kb-nowrap">yaml-syntax</code>' in \
        site.files["findings.md"]
    assert '| <code class="kb-nowrap">yaml-syntax</code> |' in site.files["index.md"]


def test_findings_about_a_doc_become_its_banner_and_others_go_home(seed_kb):
    doc = finding("missing-path", "docs/design/DSV4_PD_DEADLOCK_ISSUE.md", 3, 1, None, "stale <b>since</b> the restore")
    config = finding("bad-config", "pyproject.toml", 2, 1, None, "not a finding code")
    site = render(seed_kb, [doc, config])
    assert list(site.banners) == ["design/DSV4_PD_DEADLOCK_ISSUE.md"]
    banner = site.banners["design/DSV4_PD_DEADLOCK_ISSUE.md"]
    assert banner.startswith('<div class="admonition danger kb-finding kb-banner" data-search-exclude>')
    assert "kb check: 1 error about this page" in banner
    assert "stale &lt;b&gt;since&lt;/b&gt; the restore" in banner
    findings = site.files["findings.md"]  # every finding, on the page the home page's summary links to
    assert "[docs/design/DSV4\\_PD\\_DEADLOCK\\_ISSUE.md:3](design/DSV4_PD_DEADLOCK_ISSUE.md)" in findings
    assert "<code>pyproject.toml:2</code>" in findings


def test_rendering_is_deterministic(seed_kb, tmp_path):
    first = render_site(check_knowledge_base(seed_kb), SETTINGS)
    second = render_site(check_knowledge_base(seed_kb), SETTINGS)  # every chart drawn again
    assert first == second
    assert first.files["knobs/sglang-sm120-mma-target-ctas.gains.svg"].startswith("<?xml")
    assert "<dc:date>" not in first.files["knobs/sglang-sm120-mma-target-ctas.gains.svg"]
    assert first.files["knobs/sglang-sm120-mma-target-ctas.gains-dark.svg"] != \
        first.files["knobs/sglang-sm120-mma-target-ctas.gains.svg"]


def test_minimal_records_render(empty_kb):
    (empty_kb / "knobs/bare.yaml").write_text(
        "id: bare\nname: BARE\nsummary: s\nvalue: 1\nstatus: proposed\n"
        "history:\n  - date: 2026-01-01\n    status: proposed\n")
    (empty_kb / "incidents/quiet.yaml").write_text("id: quiet\ntitle: t\nstatus: open\nstarted: 2026-01-02\n")
    site = render(empty_kb)
    assert "No measured gain on record." in site.files["knobs/bare.md"]
    assert "knobs/bare.gains.svg" not in site.files
    assert "No hypothesis recorded." in site.files["incidents/quiet.md"]
    assert "Nothing to reclaim" in site.files["index.md"]


def test_measured_values_show_baseline_and_tuned_columns(seed_kb):
    edit(seed_kb / SEED_KNOB, "    delta_pct: 12.8\n", "    baseline: 1000\n    value: 1128\n    unit: tok/s\n")
    page = render(seed_kb).files[KNOB_PAGE]
    assert "| Metric | Setting, conditions | Baseline \u2192 tuned | Change, 95% interval | Measured |" in page
    assert "| 1000 \u2192 1128 tok/s | " in page


def test_kb_render_and_the_mkdocs_build_use_the_same_settings(tmp_path):
    from mkdocs.config import load_config

    config = load_config(str(REPO / "mkdocs.yml"))
    # This repository's mkdocs.yml names no repo_url: no edit links (an adopter sets its own).
    assert settings_from_config(config, REPO) == read_site_settings(REPO) == replace(SETTINGS, edit_base=None)


def test_kb_render_writes_the_pages_and_removes_stale_ones(kb, seed_kb, tmp_path):
    out = tmp_path / "out"
    result = kb("render", "--root", seed_kb, "--out", out)
    # Outside the docs folder: a whole docs folder, the 11 generated files (findings.md among them) and
    # a copy of the 3 docs (the record pages link to them).
    assert result.code == 0 and result.out.startswith(f"kb render: wrote 15 files to {out}")
    assert (out / KNOB_PAGE).read_text() == \
        render_site(check_knowledge_base(seed_kb), read_site_settings(seed_kb)).files[KNOB_PAGE]
    assert (out / "design/DSV4_PD_DEADLOCK_ISSUE.md").read_bytes() == \
        (seed_kb / "docs/design/DSV4_PD_DEADLOCK_ISSUE.md").read_bytes()
    (seed_kb / SEED_INCIDENT).unlink()
    assert kb("render", "--root", seed_kb, "--out", out).code == 0
    assert not (out / INCIDENT_PAGE).exists()
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "mine.txt").write_text("x")
    result = kb("render", "--root", seed_kb, "--out", tmp_path / "busy")
    assert result.code == 2 and "is not empty and was not written by kb render" in result.err


def test_a_record_called_index_does_not_replace_the_index_page(empty_kb):
    (empty_kb / "knobs/index.yaml").write_text(
        "id: index\nname: INDEX_SIZE\nsummary: s\nvalue: 1\nstatus: active\n"
        "history:\n  - date: 2026-01-01\n    status: active\n")
    site = render(empty_kb)
    assert "\n# Knobs\n" in site.files["knobs/index.md"]
    assert "[INDEX\\_<wbr>SIZE](index_.md)" in site.files["knobs/index.md"]
    assert site.files["knobs/index_.md"].startswith("---\ntitle: \"INDEX_SIZE\"")


def test_last_change_is_the_records_own_with_the_commit_second(tmp_path):
    """One clock: the record's own dated change says when and what changed; git says second when the
    record as it stands was committed (the restore below is dated 2026-11-07 in the record and was
    committed that day at 15:00; a record written up later would keep its own date)."""
    from ..story import KNOB, story_until

    root = tmp_path / "kb"
    repo, ids = story_until(root, 4)  # step 4 restores the knob, committed 2026-11-07 15:00 UTC
    site = render_site(check_knowledge_base(root, CheckMode(timelines=True)), SETTINGS)
    knob_row = next(line for line in site.files["knobs/index.md"].splitlines() if KNOB in line)
    assert "2026-11-07" in untagged(knob_row) and "reverted -&gt; restored" in untagged(knob_row)
    assert "committed" not in knob_row
    assert (f"- **Last change:** 2026-11-07, reverted -&gt; restored; committed {ids[4]} on 2026-11-07 15:00:00 UTC"
            in untagged(site.files[KNOB_PAGE]))
    home = site.files["index.md"]
    recent = untagged(home[home.index("## Recent changes"):])
    assert "on the dates the records give" in recent
    knob_rows = [line for line in recent.splitlines() if f"(knobs/{KNOB}.md)" in line]
    assert [(line.split(" | ")[0], line.split(" | ")[-1]) for line in knob_rows] == [
        ("| 2026-11-07", "reverted -&gt; restored |"), ("| 2026-11-04", "active -&gt; reverted |"),
        ("| 2026-11-02", "active |")]  # newest first, each saying what changed

    (root / SEED_KNOB).write_text((root / SEED_KNOB).read_text().replace("value: 512", "value: 1024"))
    site = render_site(check_knowledge_base(root, CheckMode(timelines=True)), SETTINGS)
    assert ("- **Last change:** 2026-11-07, reverted -&gt; restored; not committed yet: value 512 -&gt; 1024"
            in untagged(site.files[KNOB_PAGE]))


def test_when_all_is_well_the_home_page_shows_what_the_knowledge_base_holds(seed_kb):
    home = render(seed_kb).files["index.md"]
    assert "## Needs action" not in home
    assert '!!! success "Nothing needs action"' in home
    knobs = home[home.index("## Knobs"):home.index("## Incidents")]
    assert ("| [SGLANG\\_<wbr>SM120\\_<wbr>MMA\\_<wbr>TARGET\\_<wbr>CTAS](knobs/sglang-sm120-mma-target-ctas.md) | "
            '<span class="kb-badge kb-status-active">active</span> | <span data-sort="512"><code>512</code></span> | '
            "+12.8% output throughput at concurrency 64, +5.7% at 96 |") in knobs
    assert "[the knobs index](knobs/index.md)" in knobs
    incidents = home[home.index("## Incidents"):home.index("## Recent changes")]
    assert "[Multi-round agent harness hangs after several rounds](incidents/multi-round-harness-hang.md)" in incidents
    assert ("Root cause: [client-proxy-fault](incidents/multi-round-harness-hang.md#hypothesis-client-proxy-fault): "
            "One of the user's client-side proxies corrupts or drops requests") in incidents
    assert "Lesson: A revert is a hypothesis test, not a fix." in incidents
    recent = home[home.index("## Recent changes"):]
    assert "on the dates the records give" in recent
    # with its seconds, and its zone (issue 21: a time written without one is UTC, labelled)
    assert "| 2026-11-05 20:25:00 UTC |" in untagged(recent)


def test_an_empty_knowledge_base_says_how_to_start(empty_kb):
    home = render(empty_kb).files["index.md"]
    assert "No knob recorded yet: <code>kb new knob</code> records one." in home
    assert "No incident recorded yet: <code>kb new incident</code> records one." in home


def test_code_in_finding_messages_is_shown_as_code(seed_kb):
    break_seed_story(seed_kb)
    site = render(seed_kb)
    assert "`" not in site.files["index.md"].split("## Needs action")[1].split("## Knobs")[0]
    assert "`" not in site.files["findings.md"]
    assert "Restore it with <code>kb restore sglang-sm120-mma-target-ctas</code>" in site.files["findings.md"]
    assert "Restore it with <code>kb restore sglang-sm120-mma-target-ctas</code>" in site.files[KNOB_PAGE]
    assert '| <code class="kb-nowrap">reclaimable-knob</code> |' in site.files["index.md"]


def test_knob_page_leads_with_status_value_and_gains_then_the_story(seed_kb):
    page = render(seed_kb).files[KNOB_PAGE]
    body = page[page.index("# SGLANG"):]
    order = [body.index(part) for part in (
        '<span class="kb-badge kb-status-active">active</span> '
        '<code>SGLANG&#95;SM120&#95;MMA&#95;TARGET&#95;CTAS=512</code> (default <code>256</code>)',
        "**Gains:** +12.8%", "## Gains", "## Suspected in incidents", "## Status history", "## About this knob",
        "- **Component:** decode")]
    assert order == sorted(order)


def rendered(kb, seed_kb, out):
    result = kb("render", "--root", seed_kb, "--out", out)
    assert result.code == 0, result.err
    return (out / ".incident-kb-render").read_text()


def test_kb_render_deletes_only_files_it_wrote_inside_out(kb, seed_kb, tmp_path):
    out, outside = tmp_path / "out", tmp_path / "precious"
    outside.mkdir()
    (outside / "keep.txt").write_text("mine")
    manifest = rendered(kb, seed_kb, out)
    (out / ".incident-kb-render").write_text(
        manifest + f"{outside / 'keep.txt'}\n../precious/keep.txt\n{'0' * 64} {outside / 'keep.txt'}\n")
    assert kb("render", "--root", seed_kb, "--out", out).code == 0
    assert (outside / "keep.txt").read_text() == "mine"


def test_kb_render_never_follows_a_linked_subfolder(kb, seed_kb, tmp_path):
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    rendered(kb, seed_kb, out)
    elsewhere.mkdir()
    (elsewhere / INCIDENT_PAGE.split("/")[-1]).write_text("not kb's")
    folder = out / INCIDENT_PAGE.split("/")[0]
    for page in folder.iterdir():
        page.unlink()
    folder.rmdir()
    folder.symlink_to(elsewhere, target_is_directory=True)
    (seed_kb / SEED_INCIDENT).unlink()  # its page is stale now: the manifest names it
    result = kb("render", "--root", seed_kb, "--out", out)
    assert result.code == 2 and result.err == (f"kb: {folder} is a symbolic link; kb render writes only inside "
                                               f"{out}, never through a link\n")
    assert [p.name for p in elsewhere.iterdir()] == [INCIDENT_PAGE.split("/")[-1]]
    assert (elsewhere / INCIDENT_PAGE.split("/")[-1]).read_text() == "not kb's"


def test_kb_render_keeps_a_stale_page_someone_changed(kb, seed_kb, tmp_path):
    out = tmp_path / "out"
    rendered(kb, seed_kb, out)
    (out / INCIDENT_PAGE).write_text("my notes on the incident")
    (seed_kb / SEED_INCIDENT).unlink()
    assert kb("render", "--root", seed_kb, "--out", out).code == 0
    assert (out / INCIDENT_PAGE).read_text() == "my notes on the incident"


def test_control_characters_in_a_title_keep_the_front_matter_valid(kb, seed_kb, tmp_path):
    import yaml  # PyYAML: what MkDocs reads front matter with

    title = "Harness hangs\x7f after\x85 rounds \x9b2J\x1b[2J"
    edit(seed_kb / SEED_INCIDENT, "title: Multi-round agent harness hangs after several rounds",
         'title: "Harness hangs\\x7f after\\x85 rounds \\x9b2J\\e[2J"')
    assert kb("render", "--root", seed_kb, "--out", tmp_path / "out").code == 0
    page = (tmp_path / "out/incidents/multi-round-harness-hang.md").read_text()
    front = yaml.safe_load(page.split("---\n")[1])
    assert front["title"] == "Harness hangs\\x7f after\\x85 rounds \\x9b2J\\x1b[2J" != title
    assert not any(char in page for char in "\x7f\x85\x9b\x1b")
