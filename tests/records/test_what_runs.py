"""What runs: a knob's setting where it is deployed is decided once (`running_setting`): the tuned
value while the knob is active, its default when it is reverted, proposed or retired (the setting is
not given), and nothing claimed when that default is not recorded."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.records.model import running_setting

from ..conftest import SEED_KNOB, break_seed_story, edit

KNOB = "sglang-sm120-mma-target-ctas"


def seed_knob(root: Path):
    return check_knowledge_base(root).catalog.knobs[KNOB]


def test_an_active_knob_runs_its_tuned_value(seed_kb):
    running = running_setting(seed_knob(seed_kb))
    assert (running.value, running.is_tuned) == (512, True)


def test_a_reverted_knob_runs_its_default(seed_kb):
    break_seed_story(seed_kb)
    running = running_setting(seed_knob(seed_kb))
    assert (running.value, running.is_tuned) == (256, False)


@pytest.mark.parametrize("status", ["proposed", "retired"])
def test_a_knob_not_deployed_runs_its_default(seed_kb, status):
    edit(seed_kb / SEED_KNOB, "\nstatus: active\n", f"\nstatus: {status}\n")
    text = (seed_kb / SEED_KNOB).read_text()
    (seed_kb / SEED_KNOB).write_text(text + f"  - date: 2026-11-20\n    status: {status}\n")
    running = running_setting(seed_knob(seed_kb))
    assert (running.value, running.is_tuned) == (256, False)


def test_a_reverted_knob_with_no_recorded_default_claims_none(seed_kb):
    break_seed_story(seed_kb)
    edit(seed_kb / SEED_KNOB, "default: 256\n", "")
    running = running_setting(seed_knob(seed_kb))
    assert (running.value, running.is_tuned) == (None, False)


def knob_lead(root: Path) -> str:
    """The knob page's first line under its title, without tags: its status and what runs."""
    from incident_kb.website.core.links import SiteSettings
    from incident_kb.website.core.pages import render_site

    page = render_site(check_knowledge_base(root), SiteSettings(site_name="kb", docs_dir="docs",
                                                                edit_base="https://example.invalid/")).files[
        f"knobs/{KNOB}.md"]
    body = page.split("\n# ", 1)[1].split("\n", 1)[1].lstrip("\n")
    return html.unescape(re.sub(r"<[^>]+>", "", body.split("\n\n", 1)[0]))


def test_an_active_knob_page_leads_with_its_tuned_setting(seed_kb):
    lead = knob_lead(seed_kb)
    assert "SGLANG_SM120_MMA_TARGET_CTAS=512 (default 256)" in lead and "runs" not in lead


def test_a_reverted_knob_page_leads_with_what_runs_then_the_tuned_value(seed_kb):
    break_seed_story(seed_kb)
    lead = knob_lead(seed_kb)
    assert lead.startswith("reverted")
    assert "SGLANG_SM120_MMA_TARGET_CTAS=512" not in lead  # nothing reads as if 512 ran
    runs, tuned = lead.index("runs SGLANG_SM120_MMA_TARGET_CTAS=256 (the default)"), lead.index("tuned value 512")
    assert runs < tuned and "a restore brings back" in lead


@pytest.mark.parametrize("status, says", [("proposed", "not deployed yet"), ("retired", "no longer set")])
def test_a_knob_page_not_deployed_says_its_default_runs(seed_kb, status, says):
    edit(seed_kb / SEED_KNOB, "\nstatus: active\n", f"\nstatus: {status}\n")
    text = (seed_kb / SEED_KNOB).read_text()
    (seed_kb / SEED_KNOB).write_text(text + f"  - date: 2026-11-20\n    status: {status}\n")
    lead = knob_lead(seed_kb)
    assert lead.index("runs SGLANG_SM120_MMA_TARGET_CTAS=256 (the default)") < lead.index("tuned value 512")
    assert says in lead


def test_a_reverted_knob_page_with_no_recorded_default_claims_no_value(seed_kb):
    break_seed_story(seed_kb)
    edit(seed_kb / SEED_KNOB, "default: 256\n", "")
    lead = knob_lead(seed_kb)
    assert "runs SGLANG_SM120_MMA_TARGET_CTAS unset: its default runs (not recorded)" in lead
    assert "=" not in lead.split("tuned value")[0]


@pytest.mark.parametrize("value, default, runs, tuned", [
    ("true", "false", "=false (the default)", "tuned value true,"),  # as a deploy file writes it, not Python's False
    ("'fast'", "'slow'", "=slow (the default)", "tuned value fast,"),
    ("2.5", "1", "=1 (the default)", "tuned value 2.5,"),
])
def test_a_reverted_knobs_values_read_as_a_deploy_file_writes_them(seed_kb, value, default, runs, tuned):
    break_seed_story(seed_kb)
    edit(seed_kb / SEED_KNOB, "value: 512\nstatus", f"value: {value}\nstatus")
    edit(seed_kb / SEED_KNOB, "default: 256\n", f"default: {default}\n")
    lead = knob_lead(seed_kb)
    assert lead.index("runs SGLANG_SM120_MMA_TARGET_CTAS" + runs) < lead.index(tuned)
    assert "True" not in lead and "False" not in lead


def test_the_knobs_index_shows_booleans_as_a_deploy_file_writes_them(seed_kb):
    from incident_kb.website.core.links import SiteSettings
    from incident_kb.website.core.pages import render_site

    break_seed_story(seed_kb)
    edit(seed_kb / SEED_KNOB, "value: 512\nstatus", "value: true\nstatus")
    edit(seed_kb / SEED_KNOB, "default: 256\n", "default: false\n")
    files = render_site(check_knowledge_base(seed_kb), SiteSettings()).files
    row = next(line for line in files["knobs/index.md"].splitlines() if f"]({KNOB}.md)" in line)
    cells = [html.unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in row.split(" | ")]
    assert cells[3:5] == ["falsedefault; tuned true", "false"]  # Running (with the tuned value), Default
    assert 'data-sort="false"' in row


def test_a_reverted_knob_whose_tuned_value_is_its_default_says_a_restore_changes_nothing(seed_kb):
    break_seed_story(seed_kb)
    edit(seed_kb / SEED_KNOB, "default: 256\n", "default: 512\n")
    lead = knob_lead(seed_kb)
    assert "runs SGLANG_SM120_MMA_TARGET_CTAS=512 (the default)" in lead
    assert "a restore brings back" not in lead and "the default itself" in lead


def test_a_gains_boolean_condition_reads_as_a_deploy_file_writes_it(seed_kb):
    """'+12.8% output throughput at fp8 true', in the check's message and on the knob page alike."""
    from incident_kb.website.core.links import SiteSettings
    from incident_kb.website.core.pages import render_site

    edit(seed_kb / SEED_KNOB, "conditions: {concurrency: 64}", "conditions: {concurrency: 64, fp8: true}")
    kb = check_knowledge_base(seed_kb)
    page = render_site(kb, SiteSettings()).files[f"knobs/{KNOB}.md"]
    assert "at concurrency 64, fp8 true" in page and "True" not in page
