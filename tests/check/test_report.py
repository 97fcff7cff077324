"""`kb report`: what needs action, each item with its owners, in markdown and JSON; exit 0 always."""

from __future__ import annotations

import json

import pytest

from ..story import DEADLOCK, KNOB, PERF_PLAN, story_until

pytestmark = pytest.mark.usefixtures("git_env")

KNOB_FILE = f"knobs/{KNOB}.yaml"


def _owned(root) -> None:
    knob = root / KNOB_FILE
    knob.write_text(knob.read_text().replace("applies_to:\n", "owners: ['@decode-team', '@perf']\napplies_to:\n"))
    (root / ".github").mkdir()
    (root / ".github/CODEOWNERS").write_text("[Design] @architects\n/docs/design/\n[Ops]\n*DEADLOCK*.md @sre\n")


def report(kb, root, today: str, output: str = "json"):
    result = kb("report", "--root", root, "--today", today, "--format", output)
    assert result.code == 0, result.err
    return json.loads(result.out) if output == "json" else result.out


def test_reclaimable_knob_with_its_gains_and_stale_docs(kb, tmp_path):
    root = tmp_path / "kb"
    story_until(root, 3)  # root cause found, the knob still reverted, the docs not touched
    _owned(root)
    found = report(kb, root, "2026-11-08")
    assert found["today"] == "2026-11-08" and found["needs_action"] == 3
    [knob] = found["reclaimable"]
    assert (knob["path"], knob["subject"], knob["owners"], knob["stake_pct"]) == \
           (KNOB_FILE, KNOB, ["@decode-team", "@perf"], 12.8)
    assert knob["gains"] == "+12.8% output throughput at concurrency 64, +5.7% at 96"
    assert [(d["path"], d["owners"], d["owned_by_nobody"]) for d in found["stale_docs"]] == [
        (PERF_PLAN, ["@architects"], None), (DEADLOCK, ["@architects", "@sre"], None)]
    assert found["overdue_reverts"] == found["unverified_restores"] == []


def test_markdown_for_an_issue(kb, tmp_path):
    root = tmp_path / "kb"
    story_until(root, 3)
    _owned(root)
    text = report(kb, root, "2026-11-08", "markdown")
    assert text.startswith("# incident-kb report\n\nAs of 2026-11-08, 3 things need action: 1 knob to restore, "
                           "2 stale docs (1 knob, 1 incident checked).\n\n## Reclaimable performance (1)\n")
    assert f"| `{KNOB}` | +12&#46;8% output throughput at concurrency 64, +5&#46;7% at 96 | `@decode-team`, `@perf` |" \
        in text
    assert f"| `{DEADLOCK}:2` | `@architects`, `@sre` | this doc refers to" in text
    assert "## Overdue reverts" not in text and "## Unverified restores" not in text


def test_overdue_revert_and_unverified_restore_owned_by_nobody(kb, tmp_path):
    root = tmp_path / "kb"
    story_until(root, 2)
    found = report(kb, root, "2027-01-01")
    [overdue] = found["overdue_reverts"]
    assert (overdue["path"], overdue["owners"], overdue["owned_by_nobody"]) == \
           (KNOB_FILE, [], f"knob '{KNOB}' has no owners:")
    assert found["reclaimable"] == []
    root = tmp_path / "restored"
    story_until(root, 5)
    assert report(kb, root, "2026-11-10")["needs_action"] == 0  # within restore-verify-days
    [restore] = report(kb, root, "2027-01-01")["unverified_restores"]
    assert restore["subject"] == KNOB


def test_nothing_needs_action(kb, tmp_path):
    root = tmp_path / "kb"
    story_until(root, 5)
    assert report(kb, root, "2026-11-10", "markdown") == \
        "# incident-kb report\n\nNothing needs action as of 2026-11-10 (1 knob, 1 incident checked).\n"


def test_exit_0_with_errors_and_2_when_it_cannot_run(kb, tmp_path):
    root = tmp_path / "kb"
    story_until(root, 3)
    assert kb("check", "--root", root, "--today", "2026-11-08").code == 1
    assert kb("report", "--root", root, "--today", "2026-11-08").code == 0
    result = kb("report", "--root", tmp_path / "nowhere")
    assert result.code == 2 and "Traceback" not in result.err
