"""The property the cache rests on: for any sequence of edits, git operations and configuration
changes, a cached `kb check` prints exactly what a cold one prints (stdout, stderr, exit code), in
every format, plain, --staged and --base. Seeded random sequences run for a fixed time budget
(`KB_DIFFERENTIAL_SECONDS`, default 60) in the full suite; `make test-fast` stops after 20 comparisons.
A failure names the seed and every operation before it.

The mutation check (test_differential_mutations.py) drops one input from the keys at a time and
requires the same kind of sequences to find a difference."""

from __future__ import annotations

import os

import pytest

from ..differential import run_sequences

BUDGET = float(os.environ.get("KB_DIFFERENTIAL_SECONDS", "60"))


@pytest.mark.parametrize("max_steps", [pytest.param(20, id="twenty-comparisons"),
                                       pytest.param(None, id="the-whole-budget", marks=pytest.mark.slow)])
def test_a_cached_run_prints_what_a_cold_run_prints(tmp_path, max_steps):
    difference, compared = run_sequences(tmp_path, BUDGET, max_steps=max_steps)
    assert difference is None, difference
    assert compared >= 20, f"only {compared} comparisons in {BUDGET} s"
