"""Gain charts: what they show, and that drawing them is deterministic however it is done."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

from generator.website import charts
from generator.pipeline import check_knowledge_base

from .conftest import SEED_KNOB, edit


def seed_knob(root):
    return check_knowledge_base(root).catalog.knobs["sglang-sm120-mma-target-ctas"]


def test_chart_shows_tuned_against_baseline_per_condition(seed_kb):
    (panel,) = charts.chart_panels(seed_knob(seed_kb))
    assert panel.metric == "output throughput (% of baseline)"
    assert panel.conditions == ("concurrency 64", "concurrency 96")
    assert panel.baselines == (100.0, 100.0) and panel.tuned == (112.8, 105.7)
    assert panel.labels == ("+12.8%", "+5.7%")
    chart = charts.draw_gain_chart(seed_knob(seed_kb))
    assert ">+12.8%<" in chart.light and ">concurrency 96<" in chart.light  # text stays text
    assert "#3f51b5" in chart.light and "#8c9eff" in chart.dark  # the theme's colours


def test_invalid_measurements_are_left_out_and_absolute_values_keep_their_unit(seed_kb):
    edit(seed_kb / SEED_KNOB, "    delta_pct: 12.8\n", "    baseline: 1000\n    value: 1128\n    unit: tok/s\n"
         "    invalid: measured while the proxy was failing\n")
    (panel,) = charts.chart_panels(seed_knob(seed_kb))
    assert panel.conditions == ("concurrency 96",)


def test_drawing_in_worker_processes_gives_the_same_charts(seed_kb, monkeypatch, tmp_path):
    knob = seed_knob(seed_kb)
    variants = [knob.model_copy(update={"id": f"k{i}", "measurements": knob.measurements[: 1 + i % 2]}) for i in range(4)]
    serial = charts.draw_gain_charts(variants)
    pools = []
    monkeypatch.setattr(charts, "_PARALLEL_FROM", 2)
    monkeypatch.setattr(charts, "ProcessPoolExecutor", lambda *a, **k: pools.append(k) or ProcessPoolExecutor(*a, **k))
    parallel = charts.draw_gain_charts(variants, tmp_path / "cache")
    assert len(pools) == 1 and parallel == serial
    assert len(list((tmp_path / "cache").glob("*.svg"))) == 2  # two distinct charts, cached by content
    assert charts.draw_gain_charts(variants, tmp_path / "cache") == serial  # now from the cache
