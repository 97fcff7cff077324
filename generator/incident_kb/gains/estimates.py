"""The numbers a gain is said with: each side's runs, their median and spread, and a 95% interval
for the change between the medians.

The interval is a bootstrap percentile interval, computed exactly instead of by sampling: resampling
a side's runs with replacement gives its median with probabilities that follow from the binomial
distribution (the k-th smallest of n draws is at or below the j-th sorted run exactly when at
least k of the draws are), so the distribution of the resampled change between the two medians is
known without drawing anything, and its 2.5% and 97.5% points are found by bisection. The result
is what an endless seeded bootstrap converges to, the same on every machine and Python version,
and costs well under a millisecond for the usual handful of runs. A side with more than
`_MAX_ATOMS` possible medians (thousands of runs) has its distribution merged into that many
bins of equal probability first, which moves the interval by far less than its shown precision.

Pure arithmetic on numbers: knows nothing of records (`model.py` asks it about a measurement).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

MIN_RUNS = 3  # fewer runs on a side: no interval
CONFIDENCE = 0.95
METHOD = "bootstrap"  # as the pages name it
METHOD_TEXT = ("exact bootstrap: the 2.5% and 97.5% points of the change between the medians of every "
               "resample of each side's runs, computed without sampling, so the same every time")
_TINY = 1e-12  # probabilities below this are dropped: together they cannot move a 2.5% point
_MAX_ATOMS = 512


@dataclass(frozen=True, slots=True)
class Side:
    """One side of a comparison: the runs as recorded (a single value is one run)."""

    runs: tuple[float, ...]

    @property
    def count(self) -> int:
        return len(self.runs)

    @property
    def median(self) -> float:
        return median(self.runs)

    @property
    def low(self) -> float:
        return min(self.runs)

    @property
    def high(self) -> float:
        return max(self.runs)

    @property
    def has_spread(self) -> bool:
        return self.count > 1


def median(values: Sequence[float]) -> float:
    ordered = sorted(values)
    n = len(ordered)
    middle = n // 2
    return float(ordered[middle]) if n % 2 else (ordered[middle - 1] + ordered[middle]) / 2


@dataclass(frozen=True, slots=True)
class Interval:
    """A 95% interval for the change of the metric between the two medians, in percent of the
    baseline's median (how the metric itself moved: negative when it went down)."""

    low: float
    high: float

    def includes(self, value: float) -> bool:
        return self.low <= value <= self.high


class NoInterval(str):
    """Why a comparison has no interval, in words a page can show."""


TOO_FEW_RUNS = NoInterval("too few runs for an interval")
NOT_POSITIVE = NoInterval("no interval: the runs are not all positive numbers")


def change_interval(baseline: Sequence[float], tuned: Sequence[float]) -> Interval | NoInterval:
    """The 95% bootstrap interval of the change from the baseline's median to the tuned median, or
    why there is none (fewer than MIN_RUNS runs on a side; runs that are not positive)."""
    if len(baseline) < MIN_RUNS or len(tuned) < MIN_RUNS:
        return TOO_FEW_RUNS
    if min(baseline) <= 0 or min(tuned) <= 0:
        return NOT_POSITIVE
    return _interval(tuple(sorted(baseline)), tuple(sorted(tuned)))


@functools.lru_cache(maxsize=4096)  # rules, pages and the home page ask about the same measurements
def _interval(baseline: tuple[float, ...], tuned: tuple[float, ...]) -> Interval:
    lower_tail = (1 - CONFIDENCE) / 2
    low, high = (_ratio_quantile(_median_atoms(baseline), _median_atoms(tuned), q)
                 for q in (lower_tail, 1 - lower_tail))
    return Interval((low - 1) * 100, (high - 1) * 100)


Atoms = list[tuple[float, float]]  # (value, probability), values ascending and distinct


def _median_atoms(ordered: tuple[float, ...]) -> Atoms:
    """The distribution of the median of a resample (n draws with replacement) of sorted runs."""
    n = len(ordered)
    k = (n + 1) // 2  # the median is the k-th smallest draw (with the next one, for even n)
    window = int(4 * math.sqrt(n)) + 2  # 8 standard deviations of where the k-th draw falls: beyond, nothing counts
    first, last = max(1, k - window), min(n, k + window)
    at_most = _at_most(n, k, first - 1, last)
    found: dict[float, float] = {}
    for a in range(first, last + 1):
        chance = at_most[a] - at_most[a - 1]  # P(the k-th smallest draw is run a)
        if chance <= _TINY:
            continue
        if n % 2:
            found[ordered[a - 1]] = found.get(ordered[a - 1], 0.0) + chance
            continue
        # Even n: the median is the mean of the k-th and (k+1)-th draws. When exactly k draws are at or
        # below run a (one of them a itself), the other n-k fall above a, evenly over the runs there,
        # and the smallest of them is the (k+1)-th draw.
        exactly = _binomial_exactly_with(n, k, a)
        same = chance - exactly
        if same > _TINY:
            found[ordered[a - 1]] = found.get(ordered[a - 1], 0.0) + same
        above = n - a
        for b in range(a + 1, n + 1):
            share = exactly * (((n - b + 1) / above) ** (n - k) - ((n - b) / above) ** (n - k))
            if share > _TINY:
                value = (ordered[a - 1] + ordered[b - 1]) / 2
                found[value] = found.get(value, 0.0) + share
            elif b > a + 1:
                break  # the rest is smaller still
    atoms = sorted(found.items())
    return _merged(atoms) if len(atoms) > _MAX_ATOMS else atoms


def _at_most(n: int, k: int, first: int, last: int) -> dict[int, float]:
    """P(the k-th smallest of n draws is run j or before) for j from `first` to `last`: the binomial
    P(X >= k) for X ~ Binomial(n, j/n). Up to _EXACT_SUMS runs each is summed; beyond, the first is
    summed and the rest follow by integrating its derivative in j/n, the Beta(k, n-k+1) density,
    over each step (5-point Gauss-Legendre: within 1e-11 of the sums, and ten to twenty times faster)."""
    if n <= _EXACT_SUMS:
        return {j: _binomial_at_least(n, j / n, k) for j in range(first, last + 1)}
    log_scale = math.lgamma(n + 1) - math.lgamma(k) - math.lgamma(n - k + 1)
    found = {first: _binomial_at_least(n, first / n, k)}
    running = found[first]
    for j in range(first + 1, last + 1):
        low = (j - 1) / n
        step = 0.0
        for node, weight in _GAUSS_LEGENDRE:
            x = low + (node + 1) / (2 * n)
            step += weight * math.exp(log_scale + (k - 1) * math.log(x) + (n - k) * math.log1p(-x))
        running += step / (2 * n)
        found[j] = min(running, 1.0)
    return found


_EXACT_SUMS = 200
_GAUSS_LEGENDRE = ((-0.9061798459386640, 0.2369268850561891), (-0.5384693101056831, 0.4786286704993665),
                   (0.0, 0.5688888888888889), (0.5384693101056831, 0.4786286704993665),
                   (0.9061798459386640, 0.2369268850561891))


def _binomial_at_least(n: int, p: float, k: int) -> float:
    """P(X >= k) for X ~ Binomial(n, p), summed from its smaller tail."""
    if p <= 0:
        return 0.0
    if p >= 1:
        return 1.0
    if k > n * p:
        return _tail_sum(n, p, k, step=1)
    return max(0.0, 1.0 - _tail_sum(n, p, k - 1, step=-1))


def _tail_sum(n: int, p: float, start: int, step: int) -> float:
    """The binomial probabilities from `start` outwards (up with step 1, down with -1), until they
    no longer count."""
    i = start
    term = math.exp(_log_binomial(n, i, p))
    total = 0.0
    odds = p / (1 - p)
    while 0 <= i <= n:
        total += term
        if term <= total * 1e-17:
            break
        term *= (n - i) / (i + 1) * odds if step > 0 else i / (n - i + 1) / odds
        i += step
    return total


def _log_binomial(n: int, i: int, p: float) -> float:
    return (math.lgamma(n + 1) - math.lgamma(i + 1) - math.lgamma(n - i + 1)
            + i * math.log(p) + (n - i) * math.log1p(-p))


def _binomial_exactly_with(n: int, k: int, a: int) -> float:
    """P(exactly k of n draws are at or below run a, and at least one of them is run a)."""
    if a >= n:
        return 0.0
    log_exactly_k = (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
                     + k * math.log(a / n) + (n - k) * math.log((n - a) / n))
    return math.exp(log_exactly_k) * (1 - ((a - 1) / a) ** k)  # less those with none at run a


def _merged(atoms: Atoms) -> Atoms:
    """At most _MAX_ATOMS atoms: neighbours merged into bins of about equal probability, each at its
    probability-weighted mean."""
    total = sum(chance for _, chance in atoms)
    step = total / _MAX_ATOMS
    merged: Atoms = []
    weight = moment = 0.0
    for value, chance in atoms:
        weight += chance
        moment += value * chance
        if weight >= step:
            merged.append((moment / weight, weight))
            weight = moment = 0.0
    if weight > 0:
        merged.append((moment / weight, weight))
    return merged


def _ratio_quantile(baseline: Atoms, tuned: Atoms, q: float) -> float:
    """The smallest r with P(tuned median / baseline median <= r) >= q (both sides positive)."""
    values = [value for value, _ in tuned]
    below: list[float] = []
    running = 0.0
    for _, chance in tuned:
        running += chance
        below.append(running)
    scale = running * sum(chance for _, chance in baseline)

    def at_most(r: float) -> float:
        # As the baseline's median grows, r times it grows too: one sweep finds every count.
        j, total = 0, 0.0
        for value, chance in baseline:
            limit = r * value
            while j < len(values) and values[j] <= limit:
                j += 1
            if j:
                total += chance * below[j - 1]
        return total / scale

    low, high = values[0] / baseline[-1][0], values[-1] / baseline[0][0]
    if at_most(low) >= q:
        return low
    while high - low > 1e-10 * high:  # bisection, to far below the precision anything is shown with
        middle = (low + high) / 2
        if at_most(middle) >= q:
            high = middle
        else:
            low = middle
    return high
