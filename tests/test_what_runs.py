"""What runs: a knob's setting where it is deployed is decided once (`running_setting`): the tuned
value while the knob is active, its default when it is reverted, proposed or retired (the setting is
not given), and nothing claimed when that default is not recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from generator.pipeline import check_knowledge_base
from generator.records.model import running_setting

from .conftest import SEED_KNOB, break_seed_story, edit

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
