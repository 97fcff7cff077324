"""Consistency checks between fields and records, each triggered by a real record."""

from __future__ import annotations

import json

from ..conftest import SEED, SEED_INCIDENT, SEED_KNOB, edit


def codes_at(kb, root):
    result = kb("validate", "--root", root, "--format", "json")
    return result.code, [(f["code"], f["path"], f["line"], f["message"]) for f in json.loads(result.out)["findings"]]


def test_two_files_with_the_same_id(kb, seed_kb):
    (seed_kb / "knobs/sglang-sm120-mma-target-ctas.yml").write_text((SEED / SEED_KNOB).read_text())
    code, found = codes_at(kb, seed_kb)
    assert code == 1
    duplicates = [f for f in found if f[0] == "duplicate-id"]
    assert len(duplicates) == 1
    assert "already used by knobs/sglang-sm120-mma-target-ctas.yaml" in duplicates[0][3]


def test_two_hypotheses_with_the_same_id(kb, seed_kb):
    edit(seed_kb / SEED_INCIDENT, "  - id: client-proxy-fault\n", "  - id: target-ctas-causes-hang\n")
    code, found = codes_at(kb, seed_kb)
    assert code == 1
    assert ("duplicate-id", SEED_INCIDENT, 48) in [f[:3] for f in found]  # the second "- id:"


def test_resolved_incident_needs_a_root_cause_and_a_date(kb, seed_kb):
    path = seed_kb / SEED_INCIDENT
    text = path.read_text()
    text = text[: text.index("root_cause:")] + text[text.index("timeline:"):]
    path.write_text(text.replace("resolved: 2026-11-07\n", ""))
    code, found = codes_at(kb, seed_kb)
    assert code == 1
    assert [f[0] for f in found] == ["missing-field", "root-cause"]
    assert all(f[2] == 6 for f in found)  # the 'status: resolved' line
    assert "set status to 'mitigated'" in found[1][3]


def test_measurement_needs_baseline_and_value_or_a_delta(kb, seed_kb):
    edit(seed_kb / SEED_KNOB, "    delta_pct: 12.8\n", "    baseline: 100\n")
    code, found = codes_at(kb, seed_kb)
    assert code == 1
    assert found[0][0] == "missing-field" and ("needs both sides: 'baseline' (or 'baseline_runs') and 'value' "
                                               "(or 'runs'), or else 'delta_pct'") in found[0][3]


def test_enum_typo_suggests_the_closest_value(kb, seed_kb):
    edit(seed_kb / SEED_INCIDENT, "    status: refuted\n", "    status: refutd\n")
    _, found = codes_at(kb, seed_kb)
    assert "did you mean 'refuted'?" in found[0][3]


def test_hypothesis_without_incident_in_history(kb, seed_kb):
    edit(seed_kb / SEED_KNOB, "    incident: multi-round-harness-hang\n"
                              "    hypothesis: target-ctas-causes-hang\n    note: >-\n      Removed",
         "    hypothesis: target-ctas-causes-hang\n    note: >-\n      Removed")
    _, found = codes_at(kb, seed_kb)
    assert [f[0] for f in found] == ["dangling-ref"]
    assert "names hypothesis 'target-ctas-causes-hang' but no incident" in found[0][3]


def test_missing_incident_reference(kb, seed_kb):
    (seed_kb / SEED_INCIDENT).unlink()
    _, found = codes_at(kb, seed_kb)
    assert {f[0] for f in found} == {"dangling-ref"}
    assert "there is no incidents/multi-round-harness-hang.yaml" in found[0][3]


def test_date_times_and_dates_compare(kb, seed_kb):
    edit(seed_kb / SEED_INCIDENT, "  - at: 2026-11-05T20:25:00\n", "  - at: 2026-11-08T20:25:00+02:00\n")
    _, found = codes_at(kb, seed_kb)
    assert [f[0] for f in found] == ["date-order"]
