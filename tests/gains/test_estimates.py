"""The numbers behind a gain: medians, spread, and the 95% interval, checked against a bootstrap
done by hand (every resample of small samples enumerated) and in both directions of the metric."""

from __future__ import annotations

import itertools
import random
from fractions import Fraction

import pytest

from incident_kb.gains.estimates import NOT_POSITIVE, TOO_FEW_RUNS, Interval, change_interval, median
from incident_kb.records.model import gain_of
from incident_kb.records.schema import Measurement


def _percentile_interval_by_enumeration(baseline: list[float], tuned: list[float]) -> tuple[float, float]:
    """The bootstrap done the slow way: every resample of each side, each equally likely; the
    smallest change whose cumulative probability reaches 2.5% and 97.5%."""
    def medians(values: list[float]) -> dict[float, Fraction]:
        found: dict[float, Fraction] = {}
        every = list(itertools.product(values, repeat=len(values)))
        for resample in every:
            m = median(resample)
            found[m] = found.get(m, Fraction(0)) + Fraction(1, len(every))
        return found

    changes: dict[float, Fraction] = {}
    for b, pb in medians(baseline).items():
        for t, pt in medians(tuned).items():
            change = (t / b - 1) * 100
            changes[change] = changes.get(change, Fraction(0)) + pb * pt
    ordered = sorted(changes.items())

    def point(q: Fraction) -> float:
        running = Fraction(0)
        for change, chance in ordered:
            running += chance
            if running >= q:
                return change
        raise AssertionError

    return point(Fraction(1, 40)), point(Fraction(39, 40))


@pytest.mark.parametrize("seed", range(12))
def test_the_interval_is_the_bootstrap_of_every_resample(seed):
    rng = random.Random(seed)
    sizes = [(3, 3), (3, 4), (4, 4), (5, 3), (4, 5), (5, 5)][seed % 6]
    baseline = [round(rng.uniform(95, 105), rng.choice((0, 1, 2))) for _ in range(sizes[0])]
    tuned = [round(rng.uniform(98, 115), rng.choice((0, 1, 2))) for _ in range(sizes[1])]
    found = change_interval(baseline, tuned)
    assert isinstance(found, Interval)
    low, high = _percentile_interval_by_enumeration(baseline, tuned)
    assert found.low == pytest.approx(low, abs=1e-6)
    assert found.high == pytest.approx(high, abs=1e-6)


def test_the_interval_does_not_depend_on_the_order_of_runs_nor_on_the_run():
    baseline, tuned = [2481.5, 2440.1, 2502.9, 2470.0, 2466.3], [2799.2, 2781.4, 2830.0, 2760.8, 2811.1]
    first = change_interval(baseline, tuned)
    assert change_interval(list(reversed(baseline)), tuned[2:] + tuned[:2]) == first
    assert change_interval(baseline, tuned) == first


def test_a_clear_gain_excludes_zero_and_noise_includes_it():
    clear = change_interval([100, 101, 102], [112, 113, 114])
    assert isinstance(clear, Interval) and clear.low > 9 and not clear.includes(0)
    noise = change_interval([100, 103, 98, 101, 99], [101, 97, 102, 100, 104])
    assert isinstance(noise, Interval) and noise.includes(0)


def test_identical_runs_give_an_interval_of_one_point():
    found = change_interval([100, 100, 100], [110, 110, 110, 110])
    assert isinstance(found, Interval)
    assert found.low == pytest.approx(10) and found.high == pytest.approx(10)


def test_no_interval_with_fewer_than_three_runs_or_runs_that_are_not_positive():
    assert change_interval([100, 101], [110, 111, 112]) is TOO_FEW_RUNS
    assert change_interval([100, 101, 102], [110]) is TOO_FEW_RUNS
    assert str(TOO_FEW_RUNS) == "too few runs for an interval"
    assert change_interval([0, 1, 2], [3, 4, 5]) is NOT_POSITIVE
    assert change_interval([1, 2, 3], [-3, 4, 5]) is NOT_POSITIVE


def test_thousands_of_runs_give_a_narrow_interval_around_the_change():
    rng = random.Random(3)
    baseline = [100 + rng.gauss(0, 2) for _ in range(4000)]
    tuned = [112 + rng.gauss(0, 2) for _ in range(3001)]
    found = change_interval(baseline, tuned)
    assert isinstance(found, Interval)
    assert 11.7 < found.low < 12.0 < found.high < 12.3


def test_a_gain_is_the_change_between_medians_in_the_metrics_own_direction():
    latency = Measurement.model_validate({
        "metric": "p99 latency", "unit": "ms", "higher_is_better": False,
        "baseline_runs": [420, 430, 410, 425, 990], "runs": [310, 305, 320, 300, 315]})
    gain = gain_of(latency)
    assert gain is not None
    assert gain.change_pct == pytest.approx((310 - 425) / 425 * 100)  # medians: one slow run changes nothing
    assert gain.pct == pytest.approx(-gain.change_pct)
    assert gain.values_text == "425 \u2192 310 ms"
    interval = gain.interval
    assert isinstance(interval, Interval) and 0 < interval.low <= gain.pct <= interval.high  # better, not worse


def test_single_numbers_and_a_percent_alone_have_no_interval():
    single = gain_of(Measurement.model_validate({"metric": "x", "baseline": 100, "value": 112}))
    percent = gain_of(Measurement.model_validate({"metric": "x", "delta_pct": 12.8}))
    assert single is not None and percent is not None
    assert single.interval is TOO_FEW_RUNS and percent.interval is TOO_FEW_RUNS
    mixed = gain_of(Measurement.model_validate({"metric": "x", "baseline": 100, "runs": [110, 112, 111]}))
    assert mixed is not None and mixed.interval is TOO_FEW_RUNS and mixed.change_pct == pytest.approx(11)
