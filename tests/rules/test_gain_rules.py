"""The gain verdicts as the check reports them, each in both directions: gain-within-noise,
unmeasured-value and restore-unverified, with odd but valid records, and their settings in
[tool.incident-kb]."""

from __future__ import annotations

import json
import re

import pytest

from incident_kb.findings import CODES

from ..conftest import SEED_KNOB, edit

KNOB = "sglang-sm120-mma-target-ctas"


def found(kb, root, today: str = "2026-11-08") -> dict[str, list[dict]]:
    result = kb("check", "--root", root, "--format", "json", "--today", today)
    assert result.code in (0, 1), result.err
    by_code: dict[str, list[dict]] = {}
    for item in json.loads(result.out)["findings"]:
        by_code.setdefault(item["code"], []).append(item)
    return by_code


def measurements(root, *entries: str) -> None:
    """Replace the seed knob's measurements with `entries` (YAML, two spaces in)."""
    path = root / SEED_KNOB
    text = path.read_text()
    start, end = text.index("measurements:\n"), text.index("history:\n")
    path.write_text(text[:start] + "measurements:\n" + "".join(entries) + text[end:])


def runs(baseline: str, tuned: str, extra: str = "", metric: str = "output throughput") -> str:
    return (f"  - metric: {metric}\n    conditions: {{concurrency: 64}}\n{extra}"
            f"    baseline_runs: [{baseline}]\n    runs: [{tuned}]\n")


def _line_of(root, text: str) -> int:
    return (root / SEED_KNOB).read_text().splitlines().index(text) + 1


def settings(root, text: str) -> None:
    (root / "pyproject.toml").write_text("[tool.incident-kb]\n" + text)


NOISY = ("100, 103, 98, 101, 99", "101, 97, 102, 100, 104")
CLEAR = ("100, 101, 102", "112, 113, 114")


def test_the_three_codes_are_warnings(kb):
    out = kb("codes").out
    for code in ("gain-within-noise", "unmeasured-value", "restore-unverified"):
        assert CODES[code].severity.value == "warning" and code in out


# ---- gain-within-noise ------------------------------------------------------------------------

def test_a_gain_whose_interval_includes_zero_is_noise(kb, seed_kb):
    measurements(seed_kb, runs(*NOISY))
    [item] = found(kb, seed_kb)["gain-within-noise"]
    assert item["line"] == _line_of(seed_kb, "  - metric: output throughput")  # the measurement's first line
    assert re.search(r"\+1\.0% output throughput at concurrency 64, 100 \u2192 101 \(5 runs vs 5 runs\) is not "
                     r"distinguishable from noise: its 95% interval, \u2212[0-9.]+% to \+[0-9.]+%, includes zero",
                     item["message"]), item["message"]


@pytest.mark.parametrize("entries, why", [
    ((runs(*CLEAR),), "a clear gain, three runs a side"),
    ((runs("100, 101", "99, 103, 101, 100, 98"),), "too few baseline runs: no interval, so not tested"),
    ((runs(*NOISY, extra="    setting: 256\n"),), "measured at another value: history, not claimed"),
    ((runs(*NOISY, extra="    invalid: taken while the proxy was failing\n"),), "not counted at all"),
    ((runs("112, 113, 114", "100, 101, 102"),), "a clear regression is worse, not noise"),
    ((runs("420, 430, 410", "310, 305, 320", extra="    unit: ms\n    higher_is_better: false\n",
           metric="p99 latency"),), "a clear latency cut"),
    ((runs("100, 100, 100", "110, 110, 110"),), "identical runs: an interval of one point, +10%"),
])
def test_what_is_not_noise(kb, seed_kb, entries, why):
    measurements(seed_kb, *entries)
    assert "gain-within-noise" not in found(kb, seed_kb), why


def test_a_noisy_latency_is_noise_whichever_way_it_counts(kb, seed_kb):
    measurements(seed_kb, runs("420, 390, 450, 400", "410, 440, 395, 415", extra="    higher_is_better: false\n",
                               metric="p99 latency"))
    assert len(found(kb, seed_kb)["gain-within-noise"]) == 1


def test_identical_sides_are_no_gain(kb, seed_kb):
    measurements(seed_kb, runs("100, 100, 100", "100, 100, 100"))
    assert "its 95% interval, 0.0% to 0.0%, includes zero" in found(kb, seed_kb)["gain-within-noise"][0]["message"]


def test_min_gain_pct_makes_small_gains_noise_even_single_runs(kb, seed_kb):
    assert "gain-within-noise" not in found(kb, seed_kb)  # the story's two single-run gains: untested, not noise
    settings(seed_kb, "min-gain-pct = 6\n")
    [item] = found(kb, seed_kb)["gain-within-noise"]  # +5.7% at 96 only; +12.8% stands
    assert "+5.7% output throughput at concurrency 96 (1 run, no spread) is not distinguishable from noise: it is " \
           "below min-gain-pct (6%)" in item["message"]
    measurements(seed_kb, runs("100, 100.1, 99.9", "102, 102.1, 101.9"))
    settings(seed_kb, "min-gain-pct = 2.5\n")
    assert len(found(kb, seed_kb)["gain-within-noise"]) == 1  # clear, but +2% is below 2.5%
    settings(seed_kb, "min-gain-pct = 1.5\n")
    assert "gain-within-noise" not in found(kb, seed_kb)


def test_a_retired_knob_claims_nothing(kb, seed_kb):
    measurements(seed_kb, runs(*NOISY))
    assert kb("retire", KNOB, "--date", "2026-11-08", "--root", seed_kb).code == 0
    assert "gain-within-noise" not in found(kb, seed_kb)


def test_the_reclaimable_message_says_noise_instead_of_reclaims(kb, seed_kb):
    from ..conftest import break_seed_story

    break_seed_story(seed_kb)
    measurements(seed_kb, runs(*NOISY), runs(*CLEAR).replace("64", "96"))
    message = found(kb, seed_kb)["reclaimable-knob"][0]["message"]
    assert "Restoring it reclaims +11.9% output throughput at concurrency 96, 101 \u2192 113; +1.0% output " \
           "throughput at concurrency 64, 100 \u2192 101 is not distinguishable from noise." in message
    measurements(seed_kb, runs(*NOISY))
    message = found(kb, seed_kb)["reclaimable-knob"][0]["message"]
    assert "Restoring it reclaims nothing distinguishable from noise (+1.0% output throughput" in message


# ---- unmeasured-value --------------------------------------------------------------------------

def _set_768(kb, root) -> None:
    edit(root / "deploy/decode.sh", "=512\n", "=768\n")
    assert kb("set", KNOB, "768", "--date", "2026-11-10", "--root", root).code == 0


def test_a_new_value_unmeasured_after_the_days_is_flagged(kb, seed_kb):
    _set_768(kb, seed_kb)
    assert "unmeasured-value" not in found(kb, seed_kb, "2026-11-24")  # 14 days: not more than the default
    [item] = found(kb, seed_kb, "2026-11-25")["unmeasured-value"]
    assert item["line"] == 7  # value: 768
    assert item["message"].startswith(
        f"knob '{KNOB}' is active at SGLANG_SM120_MMA_TARGET_CTAS=768 since it was set on 2026-11-10, and nothing "
        "was measured at 768 in the 14 days after (unmeasured-value-days), as of 2026-11-25; its measurements were "
        "taken at 512 and count for that only.")
    settings(seed_kb, "unmeasured-value-days = 30\n")
    assert "unmeasured-value" not in found(kb, seed_kb, "2026-11-25")


@pytest.mark.parametrize("entry", [
    "  - metric: output throughput\n    conditions: {concurrency: 64}\n    setting: 768\n    delta_pct: 3.1\n",
    # undated but said; or dated after the change, without a setting: measured at the value of its day
    "  - metric: output throughput\n    conditions: {concurrency: 64}\n    delta_pct: 3.1\n    date: 2026-11-12\n",
    "  - metric: output throughput\n    conditions: {concurrency: 64}\n    delta_pct: 3.1\n    date: 2026-11-10\n",
])
def test_a_measurement_at_the_new_value_settles_it(kb, seed_kb, entry):
    _set_768(kb, seed_kb)
    text = (seed_kb / SEED_KNOB).read_text()
    (seed_kb / SEED_KNOB).write_text(text.replace("history:\n", entry + "history:\n"))
    assert "unmeasured-value" not in found(kb, seed_kb, "2026-12-30")


def test_a_measurement_before_the_change_or_at_another_value_does_not(kb, seed_kb):
    # A history whose first entry does not record the value (issue 21's `kb new knob` writes it there).
    edit(seed_kb / SEED_KNOB, "    status: active\n    value: 512\n", "    status: active\n")
    _set_768(kb, seed_kb)
    text = (seed_kb / SEED_KNOB).read_text()
    extra = ("  - metric: output throughput\n    conditions: {concurrency: 80}\n    delta_pct: 3.1\n"
             "    date: 2026-11-09\n"
             "  - metric: output throughput\n    conditions: {concurrency: 80}\n    setting: 1024\n"
             "    delta_pct: 3.1\n")
    (seed_kb / SEED_KNOB).write_text(text.replace("history:\n", extra + "history:\n"))
    [item] = found(kb, seed_kb, "2026-12-30")["unmeasured-value"]
    # kb set marked the story's measurements 'setting: 512'; the one dated 2026-11-09 was added after, without
    # one, and the value before 2026-11-10 is not in the history: it cannot be told.
    assert "its measurements were taken at 512, a value that cannot be told (add 'setting:'), 1024 and count for " \
           "that only" in item["message"]
    assert (seed_kb / SEED_KNOB).read_text().count("    setting: 512\n") == 2


def test_a_value_changed_by_hand_counts_from_its_history_entry(kb, seed_kb):
    """No `kb set`: the value and a history entry written by hand, measurements without 'setting:'."""
    measurements(seed_kb, "  - metric: output throughput\n    delta_pct: 12.8\n    date: 2026-11-02\n")
    # A history whose first entry does not record the value (issue 21's `kb new knob` writes it there).
    edit(seed_kb / SEED_KNOB, "    status: active\n    value: 512\n", "    status: active\n")
    edit(seed_kb / SEED_KNOB, "\nvalue: 512\n", "\nvalue: 768\n")
    edit(seed_kb / "deploy/decode.sh", "=512\n", "=768\n")
    text = (seed_kb / SEED_KNOB).read_text()
    (seed_kb / SEED_KNOB).write_text(text + "  - date: 2026-11-10\n    status: active\n    value: 768\n")
    by_code = found(kb, seed_kb, "2026-12-30")
    assert "its measurements were taken at a value that cannot be told (add 'setting:')" in \
        by_code["unmeasured-value"][0]["message"]


@pytest.mark.parametrize("how", ["never changed, measured", "never changed, never measured", "reverted"])
def test_what_is_not_an_unmeasured_value(kb, seed_kb, how):
    if how == "never changed, never measured":
        measurements(seed_kb)
    if how == "reverted":
        from ..conftest import break_seed_story

        break_seed_story(seed_kb)
        measurements(seed_kb, "  - metric: output throughput\n    setting: 256\n    delta_pct: 3\n")
    assert "unmeasured-value" not in found(kb, seed_kb, "2027-06-01")


def test_measurements_all_at_another_value_are_flagged_without_a_change(kb, seed_kb):
    measurements(seed_kb, "  - metric: output throughput\n    setting: 256\n    delta_pct: 3\n")
    [item] = found(kb, seed_kb, "2026-11-20")["unmeasured-value"]
    assert "since it was recorded on 2026-11-02" in item["message"]


# ---- restore-unverified ------------------------------------------------------------------------

def test_the_story_restore_is_unverified_after_seven_days(kb, seed_kb):
    assert "restore-unverified" not in found(kb, seed_kb, "2026-11-14")  # 7 days: not more than 7
    [item] = found(kb, seed_kb, "2026-11-15")["restore-unverified"]
    assert item["line"] == _line_of(seed_kb, "  - date: 2026-11-07")  # the restore's history entry
    assert item["message"].startswith(
        f"knob '{KNOB}' was restored on 2026-11-07, more than 7 days ago (restore-verify-days) as of 2026-11-15, and "
        "no measurement dated since shows its gain back (the gains on record, +12.8% output throughput at "
        "concurrency 64, +5.7% at 96, were measured before it).")
    settings(seed_kb, "restore-verify-days = 30\n")
    assert "restore-unverified" not in found(kb, seed_kb, "2026-11-15")


def _after_restore(root, entry: str) -> None:
    text = (root / SEED_KNOB).read_text()
    (root / SEED_KNOB).write_text(text.replace("history:\n", entry + "history:\n"))


@pytest.mark.parametrize("entry, fires", [
    ("  - metric: output throughput\n    conditions: {concurrency: 64}\n    delta_pct: 12.1\n    date: 2026-11-09\n",
     False),
    ("  - metric: output throughput\n    conditions: {concurrency: 64}\n    delta_pct: 12.1\n    date: 2026-11-07\n",
     False),  # the day of the restore counts
    ("  - metric: output throughput\n    delta_pct: 12.1\n    date: 2026-11-06\n", True),  # before it
    ("  - metric: output throughput\n    setting: 256\n    delta_pct: 12.1\n    date: 2026-11-09\n", True),
    ("  - metric: output throughput\n    delta_pct: 12.1\n    date: 2026-11-09\n    invalid: warm-up only\n", True),
    ("  - metric: output throughput\n    delta_pct: 12.1\n", True),  # undated: it cannot show anything since
    # Measured since, but the gain did not come back: not unverified (gain-within-noise says the rest).
    ("  - metric: output throughput\n    date: 2026-11-09\n    baseline_runs: [100, 103, 98, 101, 99]\n"
     "    runs: [101, 97, 102, 100, 104]\n", False),
])
def test_a_measurement_since_the_restore_verifies_it(kb, seed_kb, entry, fires):
    _after_restore(seed_kb, entry)
    assert ("restore-unverified" in found(kb, seed_kb, "2026-11-30")) is fires


def test_a_restore_no_longer_standing_is_not_checked(kb, seed_kb):
    _set_768(kb, seed_kb)  # a new value since: unmeasured-value's business
    assert "restore-unverified" not in found(kb, seed_kb, "2026-11-20")


def test_bad_settings_are_findings_on_pyproject(kb, seed_kb):
    settings(seed_kb, 'min-gain-pct = "two"\nrestore-verify-days = 1.5\nunmeasured-value-days = -3\n')
    messages = [f["message"] for f in found(kb, seed_kb)["bad-config"]]
    assert messages == [
        "min-gain-pct is 'two'; give a percentage (a number, 0 or more), e.g. min-gain-pct = 2.5",
        "restore-verify-days is 1.5; give a whole number of days, e.g. restore-verify-days = 7",
        "unmeasured-value-days is -3; give a whole number of days, e.g. unmeasured-value-days = 14",
    ]
