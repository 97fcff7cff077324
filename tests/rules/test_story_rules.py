"""The two rules the story needed: changed-under-refuted (GitLab 2017: settings changed while
chasing replication, never reviewed) and revert-overdue (a hypothesis test left running), with the
reference date from --today or $KB_TODAY and the days from [tool.incident-kb]."""

from __future__ import annotations

import json

import pytest

from incident_kb.findings import CODES

from ..conftest import SEED_INCIDENT, SEED_KNOB, edit
from .test_rules import _seed_mid_investigation

KNOB = "sglang-sm120-mma-target-ctas"
INCIDENT = "multi-round-harness-hang"
HYP = "target-ctas-causes-hang"


def codes(kb, root, *extra):
    result = kb("check", "--root", root, "--format", "json", *extra)
    assert result.err == "" or "git" in result.err, result.err
    return result.code, {f["code"]: f for f in json.loads(result.out)["findings"]}


def test_both_codes_are_listed_with_their_default_severity(kb):
    out = kb("codes").out
    assert CODES["changed-under-refuted"].severity.value == "warning" == CODES["revert-overdue"].severity.value
    assert "changed-under-refuted" in out and "revert-overdue" in out


def gitlab_story(kb, root):
    """A setting changed while chasing a hypothesis that is later refuted."""
    _seed_mid_investigation(root)
    assert kb("restore", KNOB, "--date", "2026-11-05", "--root", root).code == 0
    edit(root / "deploy/decode.sh", "exec python", "export SGLANG_SM120_MMA_TARGET_CTAS=512\nexec python")
    result = kb("set", KNOB, "32", "--incident", INCIDENT, "--hypothesis", "client-proxy-fault", "--date",
                "2026-11-05", "--root", root)
    assert result.code == 0, result.err
    edit(root / "deploy/decode.sh", "=512\n", "=32\n")


def test_a_change_made_under_a_hypothesis_later_refuted_is_flagged_until_settled(kb, seed_kb):
    gitlab_story(kb, seed_kb)
    assert "changed-under-refuted" not in codes(kb, seed_kb)[1]  # the hypothesis is still open
    assert kb("refute", INCIDENT, "client-proxy-fault", "--root", seed_kb).code == 0
    code, found = codes(kb, seed_kb)
    assert code == 0
    message = found["changed-under-refuted"]["message"]
    # Issue 21: the first history entry records the value (512), so the message says what to go back to.
    assert message.startswith("SGLANG_SM120_MMA_TARGET_CTAS was changed from 512 to 32 on 2026-11-05 under hypothesis "
                              f"'client-proxy-fault' of incident '{INCIDENT}', which was later refuted")
    assert f"set to 512 from 32. Change it back (`kb set {KNOB} 512 --note '...'`)" in message
    assert f"`kb set {KNOB} 32 --note 'why it stays'`" in message
    # Recording why it stays settles it.
    assert kb("set", KNOB, "32", "--note", "Faster anyway; kept.", "--date", "2026-11-09", "--root", seed_kb).code == 0
    assert "changed-under-refuted" not in codes(kb, seed_kb)[1]


def test_a_change_says_what_the_value_was(kb, seed_kb):
    gitlab_story(kb, seed_kb)
    assert kb("set", KNOB, "64", "--incident", INCIDENT, "--hypothesis", "client-proxy-fault", "--date",
              "2026-11-06", "--root", seed_kb).code == 0
    edit(seed_kb / "deploy/decode.sh", "=32\n", "=64\n")
    assert kb("refute", INCIDENT, "client-proxy-fault", "--root", seed_kb).code == 0
    message = codes(kb, seed_kb)[1]["changed-under-refuted"]["message"]
    assert message.startswith("SGLANG_SM120_MMA_TARGET_CTAS was changed from 32 to 64 on 2026-11-06")
    assert f"Change it back (`kb set {KNOB} 32 --note '...'`)" in message


def test_a_change_under_an_incident_resolved_on_another_cause_is_flagged(kb, seed_kb):
    edit(seed_kb / SEED_KNOB, "    status: restored\n", "    status: active\n")  # not a restore: a change
    message = codes(kb, seed_kb)[1]["changed-under-refuted"]["message"]
    assert message.startswith(f"knob '{KNOB}' was made active (SGLANG_SM120_MMA_TARGET_CTAS=512) on 2026-11-07 "
                              f"under hypothesis '{HYP}' of incident '{INCIDENT}', which was later refuted")
    edit(seed_kb / SEED_INCIDENT, "    status: refuted\n", "    status: open\n")  # never refuted, but superseded
    message = codes(kb, seed_kb)[1]["changed-under-refuted"]["message"]
    assert "which was resolved on another root cause ('client-proxy-fault')" in message


def test_the_seed_story_has_none_of_them(kb, seed_kb):
    assert codes(kb, seed_kb) == (0, {})


def test_a_revert_testing_an_open_hypothesis_is_overdue_after_the_configured_days(kb, seed_kb):
    _seed_mid_investigation(seed_kb)  # reverted 2026-11-04, hypothesis open
    assert "revert-overdue" not in codes(kb, seed_kb, "--today", "2026-11-18")[1]
    code, found = codes(kb, seed_kb, "--today", "2026-11-19")
    assert code == 0
    message = found["revert-overdue"]["message"]
    assert ("which is still open 1 day past 14 days after the revert (2026-11-18), as of 2026-11-19") in message
    (seed_kb / "pyproject.toml").write_text('[tool.incident-kb]\nrevert-overdue-days = 30\n')
    assert "revert-overdue" not in codes(kb, seed_kb, "--today", "2026-11-19")[1]
    (seed_kb / "pyproject.toml").write_text('[tool.incident-kb]\nrevert-overdue-days = 30\nrevert-overdue = "error"\n')
    assert codes(kb, seed_kb, "--today", "2026-12-05")[0] == 1  # severities configurable like the others


def test_review_by_on_the_revert_sets_the_date(kb, seed_kb, monkeypatch):
    _seed_mid_investigation(seed_kb)
    edit(seed_kb / SEED_KNOB, "    hypothesis: target-ctas-causes-hang\n",
         "    hypothesis: target-ctas-causes-hang\n    review_by: 2026-11-06\n")
    monkeypatch.setenv("KB_TODAY", "2026-11-07")  # the site build and CI read it too
    found = codes(kb, seed_kb)[1]
    assert "past its review_by date 2026-11-06" in found["revert-overdue"]["message"]


def test_kb_revert_review_by_writes_it(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    edit(seed_kb / SEED_KNOB, "\nstatus: reverted\n", "\nstatus: active\n")
    text = (seed_kb / SEED_KNOB).read_text()
    (seed_kb / SEED_KNOB).write_text(text[: text.index("  - date: 2026-11-04")])
    edit(seed_kb / "deploy/decode.sh", "exec python", "export SGLANG_SM120_MMA_TARGET_CTAS=512\nexec python")
    result = kb("revert", KNOB, "--incident", INCIDENT, "--hypothesis", HYP, "--date", "2026-11-04",
                "--review-by", "2026-11-10", "--root", seed_kb)
    assert result.code == 0, result.err
    assert "    review_by: 2026-11-10\n" in (seed_kb / SEED_KNOB).read_text()


def test_a_bad_today_is_one_line(kb, seed_kb, monkeypatch):
    result = kb("check", "--today", "tomorrow", "--root", seed_kb)
    assert result.code == 2 and result.err.startswith("kb: argument --today: 'tomorrow' is not a date")
    monkeypatch.setenv("KB_TODAY", "soon")
    result = kb("check", "--root", seed_kb)
    assert (result.code, result.err) == (2, "kb: KB_TODAY='soon' is not a date; give e.g. KB_TODAY=2026-11-30\n")
    assert kb("validate", "--today", "2026-11-08", "--root", seed_kb).code == 0


@pytest.mark.parametrize("setting, message", [
    ("revert-overdue-days = 0", "revert-overdue-days is 0; give a whole number of days"),
    ('revert-overdue-days = "two weeks"', "revert-overdue-days is 'two weeks'; give a whole number of days"),
    ("revert-overdue-dayz = 3", "'revert-overdue-dayz' in [tool.incident-kb] is not a finding code or setting; "
                                "did you mean 'revert-overdue-days'?"),
])
def test_a_bad_setting_is_a_finding_on_pyproject(kb, seed_kb, setting, message):
    (seed_kb / "pyproject.toml").write_text(f"[tool.incident-kb]\n{setting}\n")
    code, found = codes(kb, seed_kb)
    assert code == 1 and message in found["bad-config"]["message"]
    assert found["bad-config"]["line"] == 2
