"""A measurement says what was measured: runs on each side, the setting measured, provenance. Every
existing form stays valid; a side given twice must agree, and runs with a percent are refused."""

from __future__ import annotations

import pytest

from ..conftest import SEED_KNOB, edit
from .test_validate import codes_at

GAIN_64 = "    conditions: {concurrency: 64}\n    setting: 512\n    delta_pct: 12.8\n"


def _measured(root, lines: str) -> None:
    edit(root / SEED_KNOB, GAIN_64, "    conditions: {concurrency: 64}\n" + lines)


def test_runs_with_every_provenance_field_are_valid(kb, seed_kb):
    _measured(seed_kb, "    setting: 512\n    baseline_setting: 256\n    unit: tok/s\n"
                       "    host: 8x RTX PRO 6000 (decode GPU4-7)\n    software: sglang 0.5.4 (a1b2c3d)\n"
                       "    command: python -m sglang.bench_serving --max-concurrency 64\n"
                       "    source: bench/ctas-512.jsonl\n"
                       "    baseline_runs: [2481.5, 2440.1, 2502.9]\n    runs: [2799.2, 2781.4, 2830.0]\n")
    assert codes_at(kb, seed_kb) == (0, [])


@pytest.mark.parametrize("lines", [
    "    baseline: 2481.5\n    value: 2799.2\n",  # one run each side, as before
    "    baseline: 2481.5\n    runs: [2799.2, 2781.4, 2830.0]\n",  # one side a single number
    "    baseline_runs: [2481.5, 2440.1]\n    value: 2799.2\n",
    "    value: 2799.2\n    runs: [2799.2, 2781.4, 2830.0]\n    baseline: 2481\n",  # value, written as the runs' median
    "    value: 2799\n    runs: [2799.2, 2781.4, 2830.0]\n    baseline: 2481\n",  # ...to the precision written
    "    baseline_runs: [5]\n    runs: [6]\n",
])
def test_odd_but_valid_measurements(kb, seed_kb, lines):
    _measured(seed_kb, lines)
    assert codes_at(kb, seed_kb) == (0, [])


@pytest.mark.parametrize("lines, code, words", [
    ("    delta_pct: 12.8\n    runs: [2799.2, 2781.4, 2830.0]\n    baseline: 2481\n", "bad-value",
     "gives runs and delta_pct; with runs the change is the one between their medians, so remove delta_pct"),
    ("    value: 2700\n    runs: [2799.2, 2781.4, 2830.0]\n    baseline: 2481\n", "bad-value",
     "measurements[0].value is 2700, but the median of its runs is 2799.2; the runs give it, so remove 'value'"),
    ("    baseline: 2481\n    baseline_runs: [2400, 2410, 2420]\n    value: 2799\n", "bad-value",
     "measurements[0].baseline is 2481, but the median of its baseline_runs is 2410"),
    ("    runs: [2799.2, 2781.4, 2830.0]\n", "missing-field",
     "needs both sides: 'baseline' (or 'baseline_runs') and 'value' (or 'runs'), or else 'delta_pct'"),
    ("    baseline_runs: [0, 0, 1]\n    runs: [1, 2, 3]\n", "bad-value",
     "measurements[0].baseline_runs has the median 0, so no gain in percent can be computed"),
    ("    baseline_runs: []\n    runs: [1, 2, 3]\n", "bad-value", "'measurements[0].baseline_runs' is empty"),
    ("    baseline_runs: [1, .nan, 2]\n    runs: [1, 2, 3]\n", "bad-value", "not a finite number"),
    ("    baseline_runs: [1, '2', 3]\n    runs: [1, 2, 3]\n", "bad-type", "'measurements[0].baseline_runs[1]' must be"),
    ("    setting: [512]\n    delta_pct: 1\n", "bad-type", "'measurements[0].setting' must be a single value"),
])
def test_a_measurement_that_contradicts_itself_is_refused(kb, seed_kb, lines, code, words):
    _measured(seed_kb, lines)
    status, found = codes_at(kb, seed_kb)
    assert status == 1
    assert [f[0] for f in found] == [code], found
    assert words in found[0][3]


@pytest.mark.parametrize("text", ["0", "1", "-1", "+1", "12", "1.5", "-0.0", "0.5", "1e5", "1E5", "1e-05", "2.5e+20",
                                  "-3.25e-7", "+0", "-0", "9" * 30, "123456789.123456789", "2814.2837593066183"])
def test_numbers_in_runs_read_back_as_yaml_reads_them(text):
    """Runs are read through a shortcut for plain decimal numbers: it must give what YAML's own
    resolution gives, type included."""
    from incident_kb.records import yaml_source

    assert yaml_source._DECIMAL.match(text)
    tag = next((t for t, regexp in yaml_source._IMPLICIT.get(text[:1], ()) if regexp.match(text)), None)
    expected = yaml_source._constructor.construct_object(yaml_source.ScalarNode(tag, text))
    found = yaml_source.parse_yaml(f"runs: [{text}]").value["runs"][0]
    assert (found, type(found)) == (expected, type(expected))
