"""The incident page closes the loop, on the rendered markdown (fast; tests/website/test_reading_incident.py
drives the browser): variations of a knob standing reverted under an incident's hypotheses. A knob
reverted under two incidents, several knobs to restore, a knob kept reverted on purpose, an
incident still open whose hypothesis fell, a knob suspected by another open incident."""

from __future__ import annotations

import re
from pathlib import Path

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core.links import SiteSettings
from incident_kb.website.core.pages import render_site

INCIDENT_A = """\
id: inc-a
title: Decode hang
status: resolved
started: 2026-10-01
resolved: 2026-10-05
hypotheses:
  - id: knobs-cause-it
    statement: The knobs cause it.
    status: refuted
    evidence:
      - {kind: experiment, stance: against, date: 2026-10-03, text: Still hangs after the revert.}
  - id: network
    statement: The network.
    status: confirmed
    decided: 2026-10-05
    evidence:
      - {kind: experiment, stance: for, date: 2026-10-04, text: Reproduced through the proxy.}
root_cause:
  hypothesis: network
"""

INCIDENT_B = """\
id: inc-b
title: Prefill stall
status: open
started: 2026-10-10
hypotheses:
  - id: knob-stalls
    statement: The knob stalls prefill.
    status: refuted
    evidence:
      - {kind: experiment, stance: against, date: 2026-10-12, text: Stalls without it.}
"""

INCIDENT_C = """\
id: inc-c
title: Router errors
status: open
started: 2026-10-20
hypotheses:
  - id: suspects-k3
    statement: K3 makes the router fail.
    status: open
    suspect: {knob: k3}
"""

REVERT_A = """\
  - date: 2026-10-02
    status: reverted
    incident: inc-a
    hypothesis: knobs-cause-it
"""

REVERT_B = """\
  - date: 2026-10-11
    status: reverted
    incident: inc-b
    hypothesis: knob-stalls
"""


def knob(knob_id: str, history: str, extra: str = "") -> str:
    return f"""\
id: {knob_id}
name: {knob_id.upper()}
summary: Knob {knob_id}.
value: 512
default: 256
status: reverted
{extra}measurements:
  - metric: throughput
    setting: 512
    delta_pct: 10
    date: 2026-09-20
history:
  - date: 2026-09-20
    status: active
    value: 512
{history}"""


def pages(empty_kb: Path, **knobs: str) -> dict[str, str]:
    for name, text in (("inc-a", INCIDENT_A), ("inc-b", INCIDENT_B), ("inc-c", INCIDENT_C)):
        (empty_kb / f"incidents/{name}.yaml").write_text(text)
    for knob_id, text in knobs.items():
        (empty_kb / f"knobs/{knob_id}.yaml").write_text(text)
    kb = check_knowledge_base(empty_kb)
    return render_site(kb, SiteSettings()).markdown


def box_items(markdown: str) -> list[str]:
    """The items of the box on top of the page, without tags."""
    return [re.sub(r"<[^>]+>", "", line.strip()[2:]) for line in markdown.splitlines() if line.startswith("    - ")]


def test_a_knob_reverted_under_two_incidents_says_each_its_own_date(empty_kb):
    found = pages(empty_kb, k1=knob("k1", REVERT_A + REVERT_B))
    on_b = box_items(found["incidents/inc-b.md"])
    assert len(on_b) == 1
    assert on_b[0].startswith("[K1](../knobs/k1.md), reverted 2026-10-11 under hypothesis "
                              "[knob-stalls](inc-b.md#hypothesis-knob-stalls) refuted "
                              "(out since 2026-10-02, reverted under [Decode hang](inc-a.md) first).")
    on_a = box_items(found["incidents/inc-a.md"])
    assert on_a[0].startswith("[K1](../knobs/k1.md), reverted 2026-10-02 under hypothesis "
                              "[knobs-cause-it](inc-a.md#hypothesis-knobs-cause-it) refuted. Restoring")
    for page in ("incidents/inc-a.md", "incidents/inc-b.md"):
        assert "still-reverted\">" in found[page] and "1 knob still reverted" in found[page]


def test_several_knobs_to_restore_and_one_kept_on_purpose(empty_kb):
    found = pages(empty_kb, k1=knob("k1", REVERT_A), k2=knob("k2", REVERT_A),
                  k3=knob("k3", REVERT_A, "keep_reverted: Ops prefer the default.\n"),
                  k4=knob("k4", REVERT_A + "  - date: 2026-10-06\n    status: restored\n").replace(
                      "status: reverted\nmeasurements", "status: active\nmeasurements"))
    page = found["incidents/inc-a.md"]
    assert "resolved, 2 knobs still reverted" in page
    assert '!!! danger "2 knobs to restore' in page
    items = box_items(page)
    assert [item.split(",")[0] for item in items] == ["[K1](../knobs/k1.md)", "[K2](../knobs/k2.md)",
                                                      "[K3](../knobs/k3.md)"]  # K4 was restored
    assert items[0].endswith("Restore it: kb restore k1") and items[1].endswith("Restore it: kb restore k2")
    assert items[2].endswith("Kept reverted on purpose: Ops prefer the default.") and "kb restore" not in items[2]


def test_restoring_a_knob_another_open_incident_suspects_says_so_as_the_check_does(empty_kb):
    found = pages(empty_kb, k3=knob("k3", REVERT_A))
    (item,) = box_items(found["incidents/inc-a.md"])
    assert item.endswith("Restore it: kb restore k3 Incident [Router errors](inc-c.md) is still open and suspects "
                         "it too (hypothesis [suspects-k3](inc-c.md#hypothesis-suspects-k3), open): settle that "
                         "before restoring, or restore it knowing so.")


def status_line(markdown: str) -> str:
    """The incident's status badge under its title, as markup."""
    return next(line for line in markdown.splitlines() if line.startswith('<span class="kb-badge'))


def test_a_knob_kept_reverted_on_purpose_is_said_on_top_without_an_alarm(empty_kb):
    found = pages(empty_kb, k3=knob("k3", REVERT_A, "keep_reverted: Ops prefer the default.\n"))
    page = found["incidents/inc-a.md"]
    assert status_line(page).startswith(
        '<span class="kb-badge kb-status-kept-reverted">resolved, 1 knob kept reverted</span>')  # grey, not green
    assert "still reverted" not in page and "!!! danger" not in page and "kb restore" not in page
    assert '!!! note "1 knob stays reverted' in page
    home = found["index.md"]
    assert "resolved, 1 knob kept reverted" in home and "still reverted" not in home
    assert "resolved, 1 knob kept reverted" in found["incidents/index.md"]


def test_a_knob_reverted_under_the_confirmed_cause_leaves_the_incident_resolved(empty_kb):
    confirmed = REVERT_A.replace("hypothesis: knobs-cause-it", "hypothesis: network")
    found = pages(empty_kb, k3=knob("k3", confirmed, "keep_reverted: It was the cause.\n"))
    page = found["incidents/inc-a.md"]
    assert status_line(page).startswith('<span class="kb-badge kb-status-resolved">resolved</span>')
    assert "Stays reverted" in page or "Kept reverted on purpose" in page


def test_each_knob_still_reverted_says_what_runs_then_the_tuned_value(empty_kb):
    boolean = knob("k1", REVERT_A).replace("value: 512\ndefault: 256", "value: true\ndefault: false").replace(
        "setting: 512", "setting: true").replace("    value: 512\n", "    value: true\n")
    unknown = knob("k2", REVERT_A).replace("default: 256\n", "")
    items = box_items(pages(empty_kb, k1=boolean, k2=unknown)["incidents/inc-a.md"])
    assert "Restoring it reclaims +10.0% throughput. Runs K1=false (the default); tuned value true. " \
           "Restore it: kb restore k1" in items[0]
    assert "Runs K2 unset (its default, not recorded); tuned value 512. Restore it: kb restore k2" in items[1]


def test_the_overview_names_the_knob_of_each_change_unless_it_is_the_suspect(empty_kb):
    restored = knob("k2",
                    REVERT_A + REVERT_A.replace("2026-10-02", "2026-10-06").replace("reverted", "restored")).replace(
        "status: reverted\nmeasurements", "status: active\nmeasurements")
    page = pages(empty_kb, k1=knob("k1", REVERT_A), k2=restored)["incidents/inc-a.md"]
    row = re.sub(r"<[^>]+>", "", next(line for line in page.splitlines() if line.startswith("| [knobs-cause-it]")))
    changes = row.rstrip(" |").rsplit(" | ", 1)[1]
    assert changes == "reverted 2026-10-02 [K1](../knobs/k1.md)reverted 2026-10-02 [K2](../knobs/k2.md)" \
                      "restored 2026-10-06 [K2](../knobs/k2.md)"
