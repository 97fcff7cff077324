"""Several suspicions at once (issue 21): a knob reverted under hypotheses of two incidents is
reclaimable only when every one of them has fallen, whatever order the history lists them in;
`kb revert` adds a hypothesis to a knob already reverted; the reclaimable message names any other
open incident that still suspects the knob."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.records.verdicts import current_revert

from ..conftest import SEED_KNOB, break_seed_story, edit

KNOB = "sglang-sm120-mma-target-ctas"
SEED = ("multi-round-harness-hang", "target-ctas-causes-hang")  # refuted in the seed story
OTHER = "decode-latency-spike"
OTHER_FILE = f"incidents/{OTHER}.yaml"


def other_incident(status: str, hypothesis_status: str, *, incident_status: str = "open") -> str:
    resolved = ("resolved: 2026-11-09\nroot_cause:\n  hypothesis: noisy-neighbour\n"
                if incident_status == "resolved" else "")
    return f"""\
id: {OTHER}
title: Decode latency spikes at night
status: {incident_status}
started: 2026-11-05
{resolved}hypotheses:
  - id: ctas-slows-decode
    statement: TARGET_CTAS=512 makes decode slower at night.
    status: {hypothesis_status}
    suspect: {{knob: {KNOB}}}
  - id: noisy-neighbour
    statement: Another tenant saturates the GPUs at night.
    status: {status}
"""


def revert_entry(incident: str, hypothesis: str, day: str) -> str:
    return f"  - date: {day}\n    status: reverted\n    incident: {incident}\n    hypothesis: {hypothesis}\n"


def reverted_under_both(root: Path, hypothesis_status: str, *, other_first: bool, incident_status: str = "open",
                        proxy_status: str = "open") -> None:
    """The seed knob reverted under the seed hypothesis (refuted) and under the other incident's."""
    break_seed_story(root)
    (root / OTHER_FILE).write_text(other_incident(proxy_status, hypothesis_status, incident_status=incident_status))
    text = (root / SEED_KNOB).read_text()
    seed_revert = text[text.index("  - date: 2026-11-04\n"):]
    other = revert_entry(OTHER, "ctas-slows-decode", "2026-11-04")
    entries = other + seed_revert if other_first else seed_revert + other
    (root / SEED_KNOB).write_text(text[: text.index("  - date: 2026-11-04\n")] + entries)


def found(kb, root):
    result = kb("check", "--root", root, "--format", "json")
    return {(f["code"], f["subject"]): f for f in json.loads(result.out)["findings"]}


@pytest.mark.parametrize("other_first", [False, True])
def test_not_reclaimable_while_one_of_its_hypotheses_is_open(kb, seed_kb, other_first):
    reverted_under_both(seed_kb, "open", other_first=other_first)
    assert ("reclaimable-knob", KNOB) not in found(kb, seed_kb)
    revert = current_revert(check_knowledge_base(seed_kb).catalog, check_knowledge_base(seed_kb).catalog.knobs[KNOB])
    assert revert is not None and len(revert.reasons) == 2 and not revert.is_reclaimable


@pytest.mark.parametrize("other_first", [False, True])
def test_not_reclaimable_while_one_of_its_hypotheses_is_confirmed(kb, seed_kb, other_first):
    reverted_under_both(seed_kb, "confirmed", other_first=other_first)
    assert ("reclaimable-knob", KNOB) not in found(kb, seed_kb)


@pytest.mark.parametrize("other_first", [False, True])
def test_reclaimable_once_every_hypothesis_has_fallen(kb, seed_kb, other_first):
    reverted_under_both(seed_kb, "refuted", other_first=other_first)
    message = found(kb, seed_kb)[("reclaimable-knob", KNOB)]["message"]
    assert f"hypothesis '{SEED[1]}' of incident '{SEED[0]}' was refuted" in message
    assert f"hypothesis 'ctas-slows-decode' of incident '{OTHER}' was refuted" in message
    assert " and " in message


@pytest.mark.parametrize("other_first", [False, True])
def test_another_root_cause_counts_as_fallen(kb, seed_kb, other_first):
    reverted_under_both(seed_kb, "open", other_first=other_first, incident_status="resolved", proxy_status="confirmed")
    message = found(kb, seed_kb)[("reclaimable-knob", KNOB)]["message"]
    assert f"incident '{OTHER}' was resolved on another root cause ('noisy-neighbour')" in message


def test_an_unexplained_revert_among_them_keeps_it_out(kb, seed_kb):
    reverted_under_both(seed_kb, "refuted", other_first=True)
    edit(seed_kb / SEED_KNOB, f"    incident: {OTHER}\n    hypothesis: ctas-slows-decode\n", "")
    codes = found(kb, seed_kb)
    assert ("reclaimable-knob", KNOB) not in codes and ("unexplained-revert", KNOB) in codes


def test_kb_revert_adds_a_hypothesis_and_the_verdict_follows_every_one(kb, seed_kb):
    break_seed_story(seed_kb)  # reclaimable: reverted under the seed hypothesis, refuted
    (seed_kb / OTHER_FILE).write_text(other_incident("open", "open"))
    assert ("reclaimable-knob", KNOB) in found(kb, seed_kb)
    result = kb("revert", KNOB, "--incident", OTHER, "--hypothesis", "ctas-slows-decode", "--date", "2026-11-06",
                "--root", seed_kb)
    assert result.code == 0, result.err
    assert "stays reverted (since 2026-11-04), now also to test hypothesis 'ctas-slows-decode'" in result.out
    text = (seed_kb / SEED_KNOB).read_text()
    assert text.endswith(revert_entry(OTHER, "ctas-slows-decode", "2026-11-06")) and "\nstatus: reverted\n" in text
    codes = found(kb, seed_kb)
    assert ("reclaimable-knob", KNOB) not in codes  # the new hypothesis test is running
    assert ("correlation-only-revert", KNOB) in codes  # ...on no evidence at all
    assert kb("refute", OTHER, "ctas-slows-decode", "--root", seed_kb).code == 0
    assert ("reclaimable-knob", KNOB) in found(kb, seed_kb)


def test_the_same_hypothesis_twice_is_refused(kb, seed_kb):
    break_seed_story(seed_kb)
    (seed_kb / OTHER_FILE).write_text(other_incident("open", "open"))
    assert kb("revert", KNOB, "--incident", OTHER, "--hypothesis", "ctas-slows-decode", "--root", seed_kb).code == 0
    before = (seed_kb / SEED_KNOB).read_text()
    result = kb("revert", KNOB, "--incident", OTHER, "--hypothesis", "ctas-slows-decode", "--root", seed_kb)
    assert result.code == 2 and "is already reverted" in result.err
    assert (seed_kb / SEED_KNOB).read_text() == before


def test_restore_names_every_hypothesis_still_open(kb, seed_kb):
    reverted_under_both(seed_kb, "open", other_first=False)
    result = kb("restore", KNOB, "--date", "2026-11-09", "--root", seed_kb)
    assert result.code == 0, result.err
    assert f"hypothesis 'ctas-slows-decode' is still open: if the knob is innocent, `kb refute {OTHER} " \
           "ctas-slows-decode`" in result.out


def test_the_reclaimable_message_names_another_open_incident_that_suspects_it(kb, seed_kb):
    break_seed_story(seed_kb)  # reverted only under the seed hypothesis
    (seed_kb / OTHER_FILE).write_text(other_incident("open", "open"))  # suspects it, never reverted it
    message = found(kb, seed_kb)[("reclaimable-knob", KNOB)]["message"]
    assert f"Incident '{OTHER}' is still open and suspects it too (hypothesis 'ctas-slows-decode', open)" in message


@pytest.mark.parametrize("hypothesis_status, incident_status", [("refuted", "open"), ("open", "resolved")])
def test_an_incident_that_no_longer_suspects_it_is_not_named(kb, seed_kb, hypothesis_status, incident_status):
    break_seed_story(seed_kb)
    (seed_kb / OTHER_FILE).write_text(other_incident("confirmed" if incident_status == "resolved" else "open",
                                                     hypothesis_status, incident_status=incident_status))
    message = found(kb, seed_kb)[("reclaimable-knob", KNOB)]["message"]
    assert OTHER not in message


def test_the_home_page_lists_every_fallen_hypothesis(seed_kb):
    from incident_kb.website.core.links import SiteSettings
    from incident_kb.website.core.pages import render_site

    reverted_under_both(seed_kb, "refuted", other_first=True)
    home = render_site(check_knowledge_base(seed_kb),
                       SiteSettings(site_name="kb", docs_dir="docs", edit_base=None)).files["index.md"]
    needs = home[home.index("## Needs action"):]
    assert "#hypothesis-ctas-slows-decode" in needs and "#hypothesis-target-ctas-causes-hang" in needs


@pytest.mark.parametrize("hypothesis_status", ["open", "confirmed", "refuted"])
@pytest.mark.parametrize("other_first", [False, True])
def test_the_knob_page_and_the_rule_agree_on_every_hypothesis(seed_kb, hypothesis_status, other_first):
    from incident_kb.website.core.context import gather_site_context
    from incident_kb.website.core.knob_pages import knob_view
    from incident_kb.website.core.links import SiteSettings

    reverted_under_both(seed_kb, hypothesis_status, other_first=other_first)
    checked = check_knowledge_base(seed_kb)
    page = knob_view(gather_site_context(checked, SiteSettings(site_name="kb", docs_dir="docs", edit_base=None)),
                     checked.catalog.knobs[KNOB])
    said = {anchor: str(s.verdict) for s in page.suspicions
            for anchor in ("target-ctas-causes-hang", "ctas-slows-decode")
            if f"#hypothesis-{anchor}" in str(s.hypothesis)}
    fallen = all(any(word in verdict for word in ("Exonerated", "Not the cause")) for verdict in said.values())
    assert len(said) == 2
    reclaimable = any(f.code == "reclaimable-knob" for f in checked.findings)
    assert reclaimable == fallen == (hypothesis_status == "refuted")
