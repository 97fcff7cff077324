"""restore-not-reproduced: a restored knob whose newest measurement since the restore does not show its
gain back (within noise, or a regression) is said, naming that measurement; restore-unverified keeps
meaning that nothing was measured since. The newest measurement decides, both ways."""

from __future__ import annotations

import pytest

from ..conftest import SEED_KNOB

KNOB = "sglang-sm120-mma-target-ctas"
NOISE = "    baseline_runs: [100, 103, 98, 101, 99]\n    runs: [101, 97, 102, 100, 104]\n"
BACK = "    baseline_runs: [100, 101, 99, 100, 102]\n    runs: [112, 113, 111, 112, 114]\n"
WORSE = "    baseline_runs: [100, 101, 99, 100, 102]\n    runs: [90, 91, 89, 90, 92]\n"


def _measured(root, *entries: tuple[str, str]) -> None:
    """Measurements of the seed knob after its restore (2026-11-07): (date, runs) each."""
    text = (root / SEED_KNOB).read_text()
    added = "".join(f"  - metric: output throughput\n    conditions: {{concurrency: 64}}\n    date: {when}\n{runs}"
                    for when, runs in entries)
    (root / SEED_KNOB).write_text(text.replace("history:\n", added + "history:\n"))


def _findings(kb, root, today: str = "2026-11-20") -> list[dict]:
    import json

    result = kb("check", "--root", root, "--format", "json", "--today", today)
    assert result.code in (0, 1), result.err
    return json.loads(result.out)["findings"]


def _codes(kb, root) -> set[str]:
    return {item["code"] for item in _findings(kb, root)}


def _line_of(root, text: str) -> int:
    lines = (root / SEED_KNOB).read_text().splitlines()
    return max(number for number, line in enumerate(lines, 1) if line == text)


@pytest.mark.parametrize("runs, says", [(NOISE, "within noise (its 95% interval"), (WORSE, "a regression")])
def test_a_newest_measurement_without_the_gain_is_said_where_it_stands(kb, seed_kb, runs, says):
    _measured(seed_kb, ("2026-11-09", runs))
    [item] = [f for f in _findings(kb, seed_kb) if f["code"] == "restore-not-reproduced"]
    assert item["severity"] == "warning" and item["line"] == _line_of(seed_kb, "    date: 2026-11-09") - 2
    assert item["message"].startswith(f"knob '{KNOB}' was restored on 2026-11-07, and the newest measurement since "
                                      "(output throughput at concurrency 64, 2026-11-09) does not show its gain back: ")
    assert says in item["message"] and \
        "it was restored for +12.8% output throughput at concurrency 64" in item["message"]
    assert "kb measure sglang-sm120-mma-target-ctas" in item["message"]
    assert "restore-unverified" not in _codes(kb, seed_kb)  # something was measured


@pytest.mark.parametrize("entries, fires", [
    ((("2026-11-09", BACK), ("2026-11-12", NOISE)), True),  # the gain came back, then did not
    ((("2026-11-09", NOISE), ("2026-11-12", BACK)), False),  # the other way round: verified
    ((("2026-11-12", BACK), ("2026-11-09", NOISE)), False),  # the newest by date, not by place in the file
    ((("2026-11-09", BACK),), False),
    ((), False),  # nothing measured: restore-unverified's to say
])
def test_the_newest_measurement_decides(kb, seed_kb, entries, fires):
    _measured(seed_kb, *entries)
    assert ("restore-not-reproduced" in _codes(kb, seed_kb)) is fires


def test_measurements_that_do_not_count_leave_it_unsaid(kb, seed_kb):
    text = (seed_kb / SEED_KNOB).read_text()
    (seed_kb / SEED_KNOB).write_text(text.replace("history:\n", (
        "  - metric: output throughput\n    setting: 256\n    date: 2026-11-09\n" + NOISE +
        "  - metric: output throughput\n    date: 2026-11-10\n    invalid: warm-up only\n" + NOISE +
        "history:\n")))
    codes = _codes(kb, seed_kb)
    assert "restore-not-reproduced" not in codes and "restore-unverified" in codes


def test_it_can_be_turned_off_like_every_code(kb, seed_kb):
    _measured(seed_kb, ("2026-11-09", NOISE))
    (seed_kb / "pyproject.toml").write_text('[tool.incident-kb.severity]\nrestore-not-reproduced = "off"\n')
    assert "restore-not-reproduced" not in _codes(kb, seed_kb)
