"""The rules that make the product worth having, each triggered by a real record."""

from __future__ import annotations

import json

from ..conftest import SEED_INCIDENT, SEED_KNOB, break_seed_story, edit


def findings(kb, root, *extra):
    result = kb("check", "--root", root, "--format", "json", *extra)
    return result.code, json.loads(result.out)["findings"]


def test_seed_story_knob_still_reverted_after_proxy_found_is_reclaimable(kb, seed_kb):
    break_seed_story(seed_kb)
    code, found = findings(kb, seed_kb)
    assert code == 1
    assert [(f["code"], f["severity"], f["path"], f["line"]) for f in found] == [
        ("reclaimable-knob", "error", SEED_KNOB, 8)]
    message = found[0]["message"]
    assert "sglang-sm120-mma-target-ctas" in message
    assert "'target-ctas-causes-hang' of incident 'multi-round-harness-hang' was refuted" in message
    assert "+12.8% output throughput at concurrency 64, +5.7% at 96" in message
    assert found[0]["subject"] == "sglang-sm120-mma-target-ctas"


def test_keep_reverted_is_an_explicit_decision_that_silences_reclaimable(kb, seed_kb):
    break_seed_story(seed_kb)
    edit(seed_kb / SEED_KNOB, "\nkind: env\n", "\nkeep_reverted: vendor asked us to wait for their fix\nkind: env\n")
    code, found = findings(kb, seed_kb)
    assert (code, found) == (0, [])


def test_incident_resolved_on_another_cause_makes_the_knob_reclaimable_even_if_hypothesis_left_open(kb, seed_kb):
    break_seed_story(seed_kb)
    edit(seed_kb / SEED_INCIDENT, "    status: refuted\n", "    status: open\n")
    code, found = findings(kb, seed_kb)
    assert code == 1
    reclaimable = [f for f in found if f["code"] == "reclaimable-knob"]
    assert len(reclaimable) == 1
    assert "resolved on another root cause ('client-proxy-fault')" in reclaimable[0]["message"]


def _seed_mid_investigation(root):
    """Knob reverted, both hypotheses still open, incident still open."""
    break_seed_story(root)
    path = root / SEED_INCIDENT
    text = path.read_text()
    text = text.replace("status: resolved\n", "status: open\n").replace("resolved: 2026-11-07\n", "")
    text = text.replace("    status: refuted\n", "    status: open\n").replace("    status: confirmed\n",
                                                                               "    status: open\n")
    text = text[: text.index("root_cause:")] + text[text.index("timeline:"):]
    path.write_text(text)


def test_restore_candidate_when_evidence_after_the_revert_speaks_against_the_hypothesis(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    code, found = findings(kb, seed_kb)
    assert code == 0  # warnings only
    candidate = [f for f in found if f["code"] == "restore-candidate"]
    assert len(candidate) == 1 and candidate[0]["severity"] == "warning"
    assert "reverted on 2026-11-04" in candidate[0]["message"]
    assert "the hang still occurred through the proxy after the revert" in candidate[0]["message"]
    assert "(2026-11-05, experiment)" in candidate[0]["message"]


def test_no_restore_candidate_when_the_against_evidence_predates_the_revert(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    path = seed_kb / SEED_INCIDENT
    text = path.read_text()
    for day in ("2026-11-05", "2026-11-07"):
        text = text.replace(f"        date: {day}\n", "        date: 2026-11-03\n")
    path.write_text(text)
    _, found = findings(kb, seed_kb)
    assert "restore-candidate" not in [f["code"] for f in found]


def test_revert_on_correlation_alone_is_a_warning(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    _, found = findings(kb, seed_kb)
    weak = [f for f in found if f["code"] == "correlation-only-revert"]
    assert len(weak) == 1 and weak[0]["severity"] == "warning"
    assert "The hang appeared around the time TARGET_CTAS=512 was deployed." in weak[0]["message"]
    assert "A revert is a hypothesis test, not a fix" in weak[0]["message"]


def test_experiment_supporting_the_hypothesis_removes_the_correlation_warning(kb, seed_kb):
    _seed_mid_investigation(seed_kb)
    edit(seed_kb / SEED_INCIDENT, "      - kind: correlation\n        stance: for\n",
         "      - kind: experiment\n        stance: for\n")
    _, found = findings(kb, seed_kb)
    assert "correlation-only-revert" not in [f["code"] for f in found]


def test_active_knob_missing_from_its_deploy_file_drifts(kb, seed_kb):
    edit(seed_kb / "deploy/decode.sh", "export SGLANG_SM120_MMA_TARGET_CTAS=512\n", "")
    code, found = findings(kb, seed_kb)
    assert code == 1
    # Issue 21: at the deploy file (where the fix goes), naming the record.
    assert [(f["code"], f["path"], f["line"]) for f in found] == [("knob-drift", "deploy/decode.sh", 1)]
    assert "is active, but deploy/decode.sh does not set it" in found[0]["message"]
    assert SEED_KNOB in found[0]["message"]


def test_reverted_knob_still_in_its_deploy_file_drifts_and_names_the_line(kb, seed_kb):
    break_seed_story(seed_kb)
    (seed_kb / "deploy/decode.sh").write_text("#!/bin/sh\n\nexport SGLANG_SM120_MMA_TARGET_CTAS=512\n")
    _, found = findings(kb, seed_kb)
    drift = [f for f in found if f["code"] == "knob-drift"]
    assert len(drift) == 1
    assert "is reverted, but deploy/decode.sh:3 still sets it" in drift[0]["message"]


def test_revert_without_incident_is_unexplained(kb, seed_kb):
    break_seed_story(seed_kb)
    edit(seed_kb / SEED_KNOB, "    incident: multi-round-harness-hang\n    hypothesis: target-ctas-causes-hang\n", "")
    _, found = findings(kb, seed_kb)
    assert [f["code"] for f in found] == ["unexplained-revert"]


def test_severities_are_configurable_per_code(kb, seed_kb):
    break_seed_story(seed_kb)
    (seed_kb / "pyproject.toml").write_text('[tool.incident-kb.severity]\nreclaimable-knob = "warning"\n')
    code, found = findings(kb, seed_kb)
    assert code == 0
    assert [(f["code"], f["severity"]) for f in found] == [("reclaimable-knob", "warning")]
    (seed_kb / "pyproject.toml").write_text('[tool.incident-kb]\nreclaimable-knob = "off"\n')
    assert findings(kb, seed_kb) == (0, [])


def test_bad_severity_configuration_is_a_finding_with_its_line(kb, seed_kb):
    (seed_kb / "pyproject.toml").write_text('[project]\nname = "x"\n\n[tool.incident-kb.severity]\n'
                                            'reclaimable-knobs = "warning"\nknob-drift = "fatal"\n')
    code, found = findings(kb, seed_kb)
    assert code == 1
    assert [(f["code"], f["path"], f["line"]) for f in found] == [
        ("bad-config", "pyproject.toml", 5), ("bad-config", "pyproject.toml", 6)]
    assert "did you mean 'reclaimable-knob'?" in found[0]["message"]
