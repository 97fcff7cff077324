"""How a gain is said: in the metric's own direction, the same way in every message, page, index
and chart, and ranked by improvement (the issue's probe: a latency cut of 420 -> 310 ms)."""

from __future__ import annotations

import json
from pathlib import Path

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.records.model import best_gain, describe_gains, knob_gains
from incident_kb.website.core.charts import chart_panels
from incident_kb.website.core.pages import render_site

from ..conftest import SEED_KNOB, break_seed_story, edit
from ..website.test_render import KNOB_PAGE, SETTINGS

KNOB = "sglang-sm120-mma-target-ctas"
CUT = "\u221226.2% p99 checkout latency, 420 \u2192 310 ms"


def add_latency_cut(kb, root: Path) -> None:
    result = kb("measurement", "add", KNOB, "--metric", "p99 checkout latency", "--baseline", "420", "--value", "310",
                "--unit", "ms", "--lower-is-better", "--date", "2026-11-02", "--root", root)
    assert result.code == 0, result.err


def only_the_latency_cut(root: Path) -> None:
    """The seed knob with the latency cut as its only measurement."""
    path = root / SEED_KNOB
    text = path.read_text()
    start, end = text.index("measurements:\n"), text.index("history:\n")
    path.write_text(text[:start] + "measurements:\n  - metric: p99 checkout latency\n    baseline: 420\n"
                    "    value: 310\n    unit: ms\n    higher_is_better: false\n" + text[end:])


def test_a_latency_cut_reads_as_a_reduction_in_the_reclaimable_message(kb, seed_kb):
    break_seed_story(seed_kb)
    only_the_latency_cut(seed_kb)
    found = json.loads(kb("check", "--root", seed_kb, "--format", "json").out)["findings"]
    message = next(f["message"] for f in found if f["code"] == "reclaimable-knob")
    assert f"Restoring it reclaims {CUT}." in message
    assert "+26.2%" not in message


def test_a_latency_cut_reads_as_a_reduction_in_the_restore_candidate_message(kb, seed_kb):
    from ..rules.test_rules import _seed_mid_investigation

    _seed_mid_investigation(seed_kb)
    only_the_latency_cut(seed_kb)
    found = json.loads(kb("check", "--root", seed_kb, "--format", "json").out)["findings"]
    message = next(f["message"] for f in found if f["code"] == "restore-candidate")
    assert f"restore the knob ({CUT})" in message


def test_the_site_says_the_cut_the_same_way_everywhere(kb, seed_kb):
    break_seed_story(seed_kb)
    add_latency_cut(kb, seed_kb)
    site = render_site(check_knowledge_base(seed_kb), SETTINGS)
    home, page, index = site.files["index.md"], site.files[KNOB_PAGE], site.files["knobs/index.md"]
    said = "+12.8% output throughput at concurrency 64, +5.7% at 96; " + CUT
    assert said in home  # the gains at stake
    assert "**Gains:** " + said in page  # the glance line
    assert 'kb-gain-better">\u221226.2%</span>' in page  # the table's badge: better, and a reduction
    assert "+26.2%" not in home + page + index


def test_best_gain_ranks_by_improvement_not_by_the_number_shown(kb, seed_kb):
    add_latency_cut(kb, seed_kb)
    knob = check_knowledge_base(seed_kb).catalog.knobs[KNOB]
    best = best_gain(knob_gains(knob))
    assert best is not None and describe_gains((best,)) == CUT  # 26.2% better beats +12.8%
    index = render_site(check_knowledge_base(seed_kb), SETTINGS).files["knobs/index.md"]
    assert f'<span data-sort="26.190">{CUT}</span>' in index  # the browser sorts on the improvement


def test_a_regression_keeps_its_sign_and_is_worse(kb, seed_kb):
    result = kb("measurement", "add", KNOB, "--metric", "p99 latency", "--delta-pct", "5", "--lower-is-better",
                "--date", "2026-11-02", "--root", seed_kb)
    assert result.code == 0
    knob = check_knowledge_base(seed_kb).catalog.knobs[KNOB]
    regression = knob_gains(knob)[-1]
    assert (regression.change_text, regression.is_better, regression.pct) == ("+5.0%", False, -5.0)
    assert best_gain(knob_gains(knob)).metric == "output throughput"


def test_the_chart_labels_the_cut_as_a_reduction(seed_kb):
    only_the_latency_cut(seed_kb)
    knob = check_knowledge_base(seed_kb).catalog.knobs[KNOB]
    (panel,) = chart_panels(knob)
    assert panel.labels == ("310 (\u221226.2%)",)
    assert panel.better == (True,)


def test_the_seed_gains_read_as_before(seed_kb):
    knob = check_knowledge_base(seed_kb).catalog.knobs[KNOB]
    assert describe_gains(knob_gains(knob)) == "+12.8% output throughput at concurrency 64, +5.7% at 96"


def test_the_summary_after_an_edit_is_what_kb_check_reports(kb, seed_kb):
    break_seed_story(seed_kb)
    only_the_latency_cut(seed_kb)
    out = kb("restore", KNOB, "--date", "2026-11-07", "--root", seed_kb).out  # deploy file not yet changed
    assert "kb check now reports:" in out and "knob-drift" in out
    edit(seed_kb / "deploy/decode.sh", "exec python", "export SGLANG_SM120_MMA_TARGET_CTAS=512\nexec python")
    assert kb("check", "--root", seed_kb).out == "all good: 1 knob, 1 incident checked\n"
    assert "(SGLANG_SM120_MMA_TARGET_CTAS=512)" in out and "+26.2%" not in out
