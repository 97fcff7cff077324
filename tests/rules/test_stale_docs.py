"""The stale-doc check over real git histories: the seed story step by step, renames, merges,
uncommitted edits."""

from __future__ import annotations

import json

import pytest

from ..conftest import SEED_INCIDENT, SEED_KNOB
from ..story import DEADLOCK, INCIDENT, KNOB, PERF_PLAN, WHEN, step, story_until

pytestmark = pytest.mark.usefixtures("git_env")


def check(kb, root, *extra):
    result = kb("check", "--root", root, "--format", "json", *extra)
    return result.code, json.loads(result.out)["findings"]


def brief(found):
    return [(f["code"], f["severity"], f["path"], f["line"], f["subject"]) for f in found]


def test_seed_story_step_by_step(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 1)
    assert check(kb, root) == (0, [])

    ids[2] = step(repo, 2)  # reverted, docs blame the knob in the same commit: fresh
    code, found = check(kb, root)
    assert (code, brief(found)) == (0, [("correlation-only-revert", "warning", SEED_KNOB, 8, KNOB)])

    ids[3] = step(repo, 3)  # root cause found; the docs still blame the knob
    code, found = check(kb, root)
    assert code == 1
    # A mention in the text: the finding points at its line and names the word; the deadlock doc only
    # lists the incident (front matter, the record's docs), so its finding is at 'reviewed:'.
    assert brief(found) == [
        ("stale-doc", "error", PERF_PLAN, 8, INCIDENT),
        ("stale-doc", "error", DEADLOCK, 2, INCIDENT),
        ("reclaimable-knob", "error", SEED_KNOB, 8, KNOB),
    ]
    deadlock = found[1]["message"]
    assert deadlock == (
        f"this doc refers to incident '{INCIDENT}' (through the record's docs, the front matter), which "
        "changed after the doc's last commit: status open -> resolved, root cause none -> client-proxy-fault, "
        "hypothesis 'target-ctas-causes-hang' open -> refuted, hypothesis 'client-proxy-fault' open -> "
        f"confirmed in commit {ids[3]} (2026-11-07 09:00:00 UTC); the doc was last committed in {ids[2]} "
        "(2026-11-04 10:00:00 UTC). Review "
        "the doc against the record and commit it (updating 'reviewed:' in its front matter is enough)")
    assert f"incident '{INCIDENT}' (through the text: '{INCIDENT}' on line 8)" in found[0]["message"]
    assert found[0]["message"].endswith(f"; if the doc is not about it, add 'not_about: [{INCIDENT}]' to its "
                                        "front matter")

    ids[4] = step(repo, 4)  # knob restored; still no doc touched
    code, found = check(kb, root)
    assert code == 1
    assert brief(found) == [
        ("stale-doc", "error", PERF_PLAN, 7, KNOB),
        ("stale-doc", "error", PERF_PLAN, 8, INCIDENT),
        ("stale-doc", "error", DEADLOCK, 2, INCIDENT),
        ("stale-doc", "error", DEADLOCK, 7, KNOB),
    ]
    assert f"status reverted -> active in commit {ids[4]} (2026-11-07 15:00:00 UTC)" in found[0]["message"]
    assert "(through the record's docs, the front matter, the text: 'SGLANG_SM120_MMA_TARGET_CTAS' on line 7)" \
        in found[0]["message"]

    step(repo, 5)  # docs corrected
    assert check(kb, root) == (0, [])


def test_a_doc_changed_in_the_same_commit_as_the_record_is_fresh(kb, tmp_path):
    root = tmp_path / "kb"
    repo, _ = story_until(root, 2)
    repo.write(SEED_INCIDENT, (root / SEED_INCIDENT).read_text().replace("status: open\nstarted",
                                                                          "status: mitigated\nstarted"))
    repo.write(DEADLOCK, (root / DEADLOCK).read_text() + "\nMitigated.\n")
    repo.commit("Mitigated", "2026-11-05T10:00:00Z")
    code, found = check(kb, root)
    assert [(f["path"], f["subject"]) for f in found if f["code"] == "stale-doc"] == [(PERF_PLAN, INCIDENT)]


def test_a_prose_edit_is_not_material(kb, tmp_path):
    root = tmp_path / "kb"
    repo, _ = story_until(root, 2)
    repo.write(SEED_KNOB, (root / SEED_KNOB).read_text().replace("Target thread-block", "The target thread-block"))
    repo.commit("Reword the summary", "2026-11-05T10:00:00Z")
    code, found = check(kb, root)
    assert "stale-doc" not in [f["code"] for f in found]


def test_touching_the_doc_after_the_change_makes_it_fresh(kb, tmp_path):
    root = tmp_path / "kb"
    repo, _ = story_until(root, 4)
    for doc in (PERF_PLAN, DEADLOCK):
        text = (root / doc).read_text()
        repo.write(doc, text.replace("reviewed: 2026-11-04", "reviewed: 2026-11-08"))
    repo.commit("Reviewed the docs", "2026-11-08T10:00:00Z")
    assert check(kb, root) == (0, [])


def test_renamed_record_keeps_its_history(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 4)
    step(repo, 5)
    # The knob is reverted again, then renamed (file and id) in a later commit.
    knob = root / SEED_KNOB
    text = knob.read_text().replace("\nstatus: active\n", "\nstatus: reverted\n") + (
        "  - date: 2026-11-09\n    status: reverted\n    note: Reverted again for a vendor bug.\n")
    knob.write_text(text + "keep_reverted: vendor bug\n")
    revert = repo.commit("Revert again", "2026-11-09T10:00:00Z")
    new_id = "target-ctas"
    repo.git("mv", SEED_KNOB, f"knobs/{new_id}.yaml")
    path = root / f"knobs/{new_id}.yaml"
    path.write_text(path.read_text().replace(f"id: {KNOB}", f"id: {new_id}"))
    for rel in (SEED_INCIDENT, PERF_PLAN, DEADLOCK):
        (root / rel).write_text((root / rel).read_text().replace(KNOB, new_id))
    repo.commit("Rename the knob", "2026-11-10T10:00:00Z")
    # The docs were just touched by the rename commit: fresh. Roll one back to before the revert.
    repo.git("mv", PERF_PLAN, "docs/design/PERF_PLAN.md")
    repo.commit("Move the plan", "2026-11-11T10:00:00Z")
    code, found = check(kb, root)
    assert "stale-doc" not in [f["code"] for f in found]
    from incident_kb.check.pipeline import material_changes

    timeline = material_changes(root)[("knob", new_id)]
    assert [(c.commit[:7] if c.commit else None, c.summary) for c in timeline] == [
        (ids[1], "created (status active, value 512, default 256)"),
        (ids[2], "status active -> reverted"),
        (ids[4], "status reverted -> active"),
        (revert, "status active -> reverted"),
    ]
    assert [c.path for c in timeline][-1] == SEED_KNOB
    assert timeline[1].date is not None and timeline[1].date.isoformat() == "2026-11-04T10:00:00+00:00"


def test_a_pure_rename_does_not_refresh_a_doc(kb, tmp_path):
    root = tmp_path / "kb"
    repo, _ = story_until(root, 4)
    repo.git("mv", PERF_PLAN, "docs/design/PERF_PLAN.md")
    repo.commit("Move the plan", "2026-11-08T10:00:00Z")
    code, found = check(kb, root)
    assert ("docs/design/PERF_PLAN.md", KNOB) in [(f["path"], f["subject"]) for f in found]


def test_merges_follow_the_mainline(kb, tmp_path):
    root = tmp_path / "kb"
    repo, _ = story_until(root, 4)
    # A branch corrects the docs; meanwhile main changes nothing they refer to. Merged: fresh.
    repo.git("switch", "-q", "-c", "fix-docs")
    step(repo, 5)
    repo.git("switch", "-q", "main")
    repo.write("docs/index.md", (root / "docs/index.md").read_text() + "\nMore.\n")
    repo.commit("Index", "2026-11-09T10:00:00Z")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge fix-docs", "fix-docs", when="2026-11-10T10:00:00Z")
    assert check(kb, root) == (0, [])
    # A branch changes the incident; merged after the docs were last touched: stale, at the merge.
    repo.git("switch", "-q", "-c", "reopen")
    incident = root / SEED_INCIDENT
    incident.write_text(incident.read_text().replace("status: resolved\n", "status: mitigated\n", 1))
    repo.commit("Mitigated only", "2026-11-11T10:00:00Z")
    repo.git("switch", "-q", "main")
    repo.git("merge", "-q", "--no-ff", "-m", "Merge reopen", "reopen", when="2026-11-12T10:00:00Z")
    merge = repo.git("rev-parse", "--short=7", "HEAD")
    code, found = check(kb, root)
    assert code == 1
    # (the corrected plan no longer mentions the incident)
    assert [(f["path"], f["subject"]) for f in found if f["code"] == "stale-doc"] == [(DEADLOCK, INCIDENT)]
    assert all(f"status resolved -> mitigated in commit {merge} (2026-11-12 10:00:00 UTC)" in f["message"]
               for f in found if f["code"] == "stale-doc")


def test_uncommitted_changes_are_the_newest(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 2)
    incident = root / SEED_INCIDENT
    incident.write_text(incident.read_text().replace("status: open\nstarted", "status: mitigated\nstarted"))
    code, found = check(kb, root)
    stale = [f for f in found if f["code"] == "stale-doc"]
    assert [(f["path"], f["subject"]) for f in stale] == [(PERF_PLAN, INCIDENT), (DEADLOCK, INCIDENT)]
    assert "status open -> mitigated in uncommitted changes in the work tree" in stale[0]["message"]
    assert f"the doc was last committed in {ids[2]} (2026-11-04 10:00:00 UTC)" in stale[0]["message"]
    # Editing the docs (not yet committed either) makes them fresh.
    for doc in (PERF_PLAN, DEADLOCK):
        (root / doc).write_text((root / doc).read_text() + "\nMitigated.\n")
    code, found = check(kb, root)
    assert "stale-doc" not in [f["code"] for f in found]


def test_material_changes_include_uncommitted_ones(tmp_path, git_env):
    from incident_kb.check.pipeline import material_changes

    root = tmp_path / "kb"
    story_until(root, 3)
    knob = root / SEED_KNOB
    knob.write_text(knob.read_text().replace("value: 512", "value: 1024"))
    timeline = material_changes(root)[("knob", KNOB)]
    assert [(c.summary, c.commit is None) for c in timeline][-1] == ("value 512 -> 1024", True)
    assert str(timeline[-1].at) == "uncommitted changes in the work tree"
    assert timeline[0].date is not None and timeline[0].date.isoformat().startswith(WHEN[1][:10])


# ---- noise during an open incident: what is material about an incident ----------------------------------

_HYPOTHESIS = ("  - id: {id}\n    statement: Something else entirely.\n    status: {status}\n")
_EVIDENCE = ("      - kind: observation\n        stance: against\n        date: 2026-11-05\n"
             "        text: The hang recurred with the knob reverted.\n")


def _incident_edit(root, change: str) -> None:
    path = root / SEED_INCIDENT
    text = path.read_text()
    if change == "a hypothesis added":
        text = text.replace("\ndocs:\n", "\n" + _HYPOTHESIS.format(id="dns-flap", status="open") + "docs:\n")
    elif change == "evidence added":
        text = text.replace("        text: The hang appeared around the time TARGET_CTAS=512 was deployed.\n",
                            "        text: The hang appeared around the time TARGET_CTAS=512 was deployed.\n"
                            + _EVIDENCE)
    elif change == "an open hypothesis dropped":
        start = text.index("  - id: client-proxy-fault")
        end = text.index("docs:\n")
        text = text[:start] + text[end:]
    elif change == "a hypothesis refuted":
        text = text.replace("    status: open\n    suspect:", "    status: refuted\n    suspect:")
    elif change == "a hypothesis confirmed":
        text = text.replace("    status: open\n    suspect:", "    status: confirmed\n    suspect:")
    elif change == "a hypothesis added already refuted":
        text = text.replace("hypotheses:\n", "hypotheses:\n" + _HYPOTHESIS.format(id="dns-flap", status="refuted"))
    elif change == "the incident's status":
        text = text.replace("\nstatus: open\n", "\nstatus: mitigated\n")
    elif change == "a root cause":
        text = text.replace("    status: open\n    suspect:", "    status: confirmed\n    suspect:") \
            + "root_cause: {hypothesis: target-ctas-causes-hang}\n"
    assert text != path.read_text(), change
    path.write_text(text)


@pytest.mark.parametrize("change, material", [
    ("a hypothesis added", False), ("evidence added", False), ("an open hypothesis dropped", False),
    ("a hypothesis refuted", True), ("a hypothesis confirmed", True), ("a hypothesis added already refuted", True),
    ("the incident's status", True), ("a root cause", True),
])
def test_an_open_incident_s_new_hypotheses_and_evidence_leave_its_docs_fresh(kb, tmp_path, change, material):
    """A runbook that names an incident goes stale on a verdict, a status or a root cause, not on every
    hypothesis or piece of evidence added while the incident is worked on."""
    root = tmp_path / "kb"
    repo, _ = story_until(root, 2)
    _incident_edit(root, change)
    for committed in (False, True):  # uncommitted (the pre-commit view), then committed
        if committed:
            repo.commit(change, "2026-11-05T10:00:00Z")
        stale = [f for f in check(kb, root)[1] if f["code"] == "stale-doc" and f["subject"] == INCIDENT]
        assert bool(stale) == material, (change, committed, stale)
        if material:
            assert len(stale) == 2  # both design docs name the incident


def test_a_timeline_lists_verdicts_not_hypotheses_added(tmp_path, git_env):
    from incident_kb.check.pipeline import material_changes

    root = tmp_path / "kb"
    repo, _ = story_until(root, 2)
    _incident_edit(root, "a hypothesis added")
    repo.commit("another hypothesis", "2026-11-05T10:00:00Z")
    _incident_edit(root, "a hypothesis refuted")
    refuted = repo.commit("refuted", "2026-11-05T11:00:00Z")
    timeline = material_changes(root)[("incident", INCIDENT)]
    assert [(c.commit[:7] if not c.created else "created", c.summary) for c in timeline][1:] == [
        (refuted, "hypothesis 'target-ctas-causes-hang' open -> refuted")]


@pytest.mark.parametrize("suffix", [".markdown", ".mdown", ".mkdn", ".mkd"])
def test_a_doc_under_any_suffix_mkdocs_renders_is_checked(kb, tmp_path, suffix):
    """The site renders docs/x.markdown as a page: the check reads it too, never passes it over."""
    root = tmp_path / "kb"
    repo, _ = story_until(root, 2)
    (root / PERF_PLAN).rename(root / PERF_PLAN.replace(".md", suffix))
    (root / DEADLOCK).unlink()
    repo.commit("The plan, under another suffix", "2026-11-05T10:00:00Z")
    step(repo, 3)  # root cause found; the doc still blames the knob
    code, found = check(kb, root)
    assert code == 1
    assert ("stale-doc", "error", PERF_PLAN.replace(".md", suffix), 8, INCIDENT) in brief(found)
