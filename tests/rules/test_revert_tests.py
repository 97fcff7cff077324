"""restore-candidate weighs all the evidence since the revert (issue 21): the strongest kind, then
the newest, decides; the message cites both sides; recording evidence for the hypothesis, at least
as strong, changes the verdict, as the message says it would."""

from __future__ import annotations

import json
import re

import pytest

from incident_kb.records.schema import Evidence, Hypothesis
from incident_kb.records.verdicts import reading_since

from ..conftest import SEED_INCIDENT
from .test_rules import _seed_mid_investigation

INCIDENT = "multi-round-harness-hang"
HYP = "target-ctas-causes-hang"


def candidate(kb, root):
    result = kb("check", "--root", root, "--format", "json")
    found = [f for f in json.loads(result.out)["findings"] if f["code"] == "restore-candidate"]
    assert len(found) <= 1
    return found[0]["message"] if found else None


def only_evidence(root, *items: tuple[str, str, str, str], again: bool = False) -> None:
    """The knob reverted on 2026-11-04 under the seed hypothesis, whose evidence is exactly `items`
    (kind, stance, date, text); `again`: the story is already there, only the evidence changes."""
    if not again:
        _seed_mid_investigation(root)
    text = (root / SEED_INCIDENT).read_text()
    start = text.index("    evidence:\n", text.index(f"  - id: {HYP}"))
    end = text.index("  - id: client-proxy-fault")
    written = "".join(f"      - kind: {kind}\n        stance: {stance}\n        date: {day}\n        text: {said}\n"
                      for kind, stance, day, said in items)
    (root / SEED_INCIDENT).write_text(text[:start] + "    evidence:\n" + written + text[end:])


def test_a_later_experiment_for_the_hypothesis_outweighs_an_observation_against(kb, seed_kb):
    only_evidence(seed_kb, ("observation", "against", "2026-11-05", "Server healthy."),
                  ("experiment", "for", "2026-11-06", "Knob back in: hang within minutes."))
    assert candidate(kb, seed_kb) is None


def test_a_stronger_older_experiment_outweighs_a_newer_observation(kb, seed_kb):
    only_evidence(seed_kb, ("experiment", "for", "2026-11-05", "Knob back in: hang within minutes."),
                  ("observation", "against", "2026-11-06", "A quiet night."))
    assert candidate(kb, seed_kb) is None


def test_an_experiment_against_outweighs_a_newer_observation_for_and_both_sides_are_cited(kb, seed_kb):
    only_evidence(seed_kb, ("experiment", "against", "2026-11-05", "Hang persists with the knob out."),
                  ("observation", "for", "2026-11-06", "Fewer hangs today."))
    message = candidate(kb, seed_kb)
    assert message is not None
    assert "speaks against it: 'Hang persists with the knob out.' (2026-11-05, experiment)" in message
    assert "for it: 'Fewer hangs today.' (2026-11-06, observation)" in message
    assert "The strongest and newest (experiment, 2026-11-05) is against it" in message
    assert "or record evidence for it at least as strong (experiment) if there is any" in message


def test_evidence_of_the_same_strength_the_newer_decides(kb, seed_kb):
    only_evidence(seed_kb, ("observation", "against", "2026-11-05", "Healthy."),
                  ("observation", "for", "2026-11-06", "Hung again."))
    assert candidate(kb, seed_kb) is None
    only_evidence(seed_kb, ("observation", "for", "2026-11-05", "Hung again."),
                  ("observation", "against", "2026-11-06", "Healthy."), again=True)
    message = candidate(kb, seed_kb)
    assert message is not None and "for it: 'Hung again.' (2026-11-05, observation)" in message
    assert "(observation or stronger)" in message


def test_no_evidence_for_it_is_said(kb, seed_kb):
    only_evidence(seed_kb, ("observation", "against", "2026-11-05", "Healthy."))
    assert "; for it: nothing. The strongest" in candidate(kb, seed_kb)


def test_evidence_before_the_revert_does_not_count(kb, seed_kb):
    only_evidence(seed_kb, ("experiment", "for", "2026-11-03", "Before the revert."),
                  ("observation", "against", "2026-11-05", "Healthy."))
    message = candidate(kb, seed_kb)
    assert message is not None and "Before the revert" not in message


def test_recording_evidence_for_it_changes_the_verdict_as_advised(kb, seed_kb):
    _seed_mid_investigation(seed_kb)  # the seed's evidence: an experiment and a report against it since the revert
    message = candidate(kb, seed_kb)
    assert message is not None
    kind = re.search(r"record evidence for it at least as strong \((\w+)", message).group(1)
    assert kind == "experiment"
    # Weaker evidence for it does not (and the message never said it would)...
    assert kb("evidence", "add", INCIDENT, HYP, "--kind", "observation", "--stance", "for", "--text", "Hung once.",
              "--date", "2026-11-08", "--root", seed_kb).code == 0
    assert candidate(kb, seed_kb) is not None
    # ...evidence as strong as what decided, recorded after it, does.
    assert kb("evidence", "add", INCIDENT, HYP, "--kind", kind, "--stance", "for", "--text",
              "Knob back in on one node: it hung; out again: fine.", "--date", "2026-11-08",
              "--root", seed_kb).code == 0
    assert candidate(kb, seed_kb) is None


@pytest.mark.parametrize("evidence_date, counts", [
    ("2026-11-04", True),  # the revert's day, written as a day
    ("2026-11-04T08:00:00Z", True),  # a time on the revert's day, the revert written as a day
    ("2026-11-03T23:00:00-08:00", False),  # the 3rd in its own zone, though the 4th in UTC
])
def test_since_the_revert_counts_days_in_their_own_zone(evidence_date, counts):
    hypothesis = Hypothesis(id="h", statement="s", status="open", evidence=(
        Evidence(kind="observation", stance="against", date=evidence_date, text="t"),))
    from datetime import date
    assert (reading_since(hypothesis, date(2026, 11, 4)) is not None) == counts
