"""Gain charts: what they show, that drawing them is deterministic, and that nothing on disk or in a
record can put markup into them."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core import charts

from ..conftest import SEED_KNOB, edit

SVG = "{http://www.w3.org/2000/svg}"


def seed_knob(root):
    return check_knowledge_base(root).catalog.knobs["sglang-sm120-mma-target-ctas"]


def texts(svg: str) -> list[str]:
    return [element.text or "" for element in ElementTree.fromstring(svg.encode()).iter(f"{SVG}text")]


def test_chart_shows_tuned_against_baseline_per_condition(seed_kb):
    (panel,) = charts.chart_panels(seed_knob(seed_kb))
    assert panel.metric == "output throughput (% of baseline)"
    assert panel.conditions == ("concurrency 64", "concurrency 96")
    assert panel.baselines == (100.0, 100.0) and panel.tuned == (112.8, 105.7)
    assert panel.labels == ("+12.8%", "+5.7%")
    chart = charts.draw_gain_chart(seed_knob(seed_kb))
    assert ">+12.8%<" in chart.light and ">concurrency 96<" in chart.light  # text stays text
    assert "#3f51b5" in chart.light and "#8c9eff" in chart.dark  # the theme's colours
    assert "#3f51b5" not in chart.dark and "#8c9eff" not in chart.light


def test_chart_is_accessible_and_says_what_the_table_says(seed_kb):
    chart = charts.draw_gain_chart(seed_knob(seed_kb))
    svg = ElementTree.fromstring(chart.light.encode())
    assert svg.get("role") == "img" and svg.get("aria-labelledby") == "title desc"
    assert svg.find(f"{SVG}title").text == "output throughput (% of baseline)"
    assert svg.find(f"{SVG}desc").text == chart.description
    assert chart.description == ("Gain chart. output throughput (% of baseline): concurrency 64 +12.8%, "
                                 "concurrency 96 +5.7%")
    labels = texts(chart.light)
    assert labels.count("100%") == 3  # the two baseline points, and the value axis' lower end
    assert {"+12.8%", "+5.7%", "baseline", "tuned", "112.8%"} <= set(labels)
    # Points joined across the condition, not bars repeating the table: the tuned point is above the
    # baseline's where the record says the gain is positive (SVG's y grows downwards).
    assert not [r for r in svg.iter(f"{SVG}rect")]
    base_64, base_96, tuned_64, tuned_96 = (float(c.get("cy")) for c in svg.iter(f"{SVG}circle")
                                             if float(c.get("cy")) > 30)  # the legend's dots are above
    assert tuned_64 < tuned_96 < base_64 == base_96


def test_invalid_measurements_are_left_out_and_absolute_values_keep_their_unit(seed_kb):
    edit(seed_kb / SEED_KNOB, "    delta_pct: 12.8\n", "    baseline: 1000\n    value: 1128\n    unit: tok/s\n"
         "    invalid: measured while the proxy was failing\n")
    (panel,) = charts.chart_panels(seed_knob(seed_kb))
    assert panel.conditions == ("concurrency 96",)


def test_record_text_in_a_chart_stays_text(seed_kb):
    hostile = "<script>alert(1)</script> $\\frac{a}{b}$ & \"q\" ]]>"
    edit(seed_kb / SEED_KNOB, "concurrency: 64", f"concurrency: '{hostile}'")
    edit(seed_kb / SEED_KNOB, "metric: output throughput", "metric: 'tok/s <img src=x onerror=alert(2)>'")
    chart = charts.draw_gain_chart(seed_knob(seed_kb))
    for svg in (chart.light, chart.dark):
        root = ElementTree.fromstring(svg.encode())  # well-formed, whatever the record says
        assert not any(e.tag.endswith(("script", "img", "foreignObject")) for e in root.iter())
        assert f"concurrency {hostile}" in texts(svg)
        assert "<script" not in svg and "<img" not in svg


def test_drawing_is_deterministic_and_reads_no_cache(seed_kb):
    """The chart cache under .cache/ is gone (drawing costs less than reading a file): a poisoned
    file there, under any name, is never published (issue 11, item 5)."""
    knob = seed_knob(seed_kb)
    first = charts.draw_gain_charts([knob])
    cache = seed_kb / ".cache/incident-kb/charts"
    cache.mkdir(parents=True)
    poisoned = first[knob.id].light.replace("</svg>", "<script>alert('cache')</script></svg>")
    for name in ("sglang-sm120-mma-target-ctas.gains.svg", "0" * 32 + ".svg"):
        (cache / name).write_text(poisoned)
    assert charts.draw_gain_charts([knob]) == first
    assert "alert" not in first[knob.id].light


def test_record_text_is_drawn_literally_never_as_math(seed_kb):
    good = (seed_kb / SEED_KNOB).read_text()
    for metric, condition in ((r"$\foo$ latency", "$x^$"), ("cost in $", "$$"), (r"\$ and $", r"a_{b}$")):
        text = good.replace("  - metric: output throughput\n", f"  - metric: '{metric}'\n", 2)
        (seed_kb / SEED_KNOB).write_text(text.replace("{concurrency: 64}", f"{{concurrency: '{condition}'}}"))
        chart = charts.draw_gain_chart(seed_knob(seed_kb))
        assert f">{metric} (% of baseline)<" in chart.light
        assert f">concurrency {condition}<" in chart.light


def test_runs_chart_the_values_across_the_condition_with_their_spread(kb, seed_kb):
    """Imported runs at concurrency 64, 80 and 96: the values in their unit, in the conditions'
    order, each with its spread, so 'throughput at 96 below 80' shows; history is left out."""
    bench = seed_kb / "bench"
    bench.mkdir()
    from ..conftest import REPO

    (bench / "runs.jsonl").write_text((REPO / "tests/fixtures/benchmarks/sglang-ctas.jsonl").read_text())
    result = kb("measurement", "import", "sglang-sm120-mma-target-ctas", bench / "runs.jsonl", "--metric",
                "output_throughput", "--baseline", "ctas-256", "--candidate", "ctas-512", "--condition",
                "concurrency=max_concurrency", "--date", "2026-11-09", "--root", seed_kb)
    assert result.code == 0, result.err
    edit(seed_kb / SEED_KNOB, "    setting: 512\n    delta_pct: 5.7\n", "    setting: 256\n    delta_pct: 5.7\n")
    panels = charts.chart_panels(seed_knob(seed_kb))
    assert [p.metric for p in panels] == ["output throughput (% of baseline)", "output_throughput (tok/s)"]
    assert panels[0].conditions == ("concurrency 64",)  # the gain measured at 256 is history
    runs = panels[1]
    assert runs.conditions == ("concurrency 64", "concurrency 80", "concurrency 96")
    assert runs.baselines[2] < runs.baselines[1]  # the baseline's anomaly: 96 below 80
    assert all(low < median < high for (low, high), median in zip(runs.tuned_spread, runs.tuned))
    chart = charts.draw_gain_chart(seed_knob(seed_kb))
    svg = ElementTree.fromstring(chart.light.encode())
    assert len([p for p in svg.iter(f"{SVG}path")]) == 6  # a whisker per point
    assert "concurrency 80 2911 (+9.5%)" in chart.description and "output_throughput (tok/s)" in texts(chart.light)
