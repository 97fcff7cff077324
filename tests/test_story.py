"""The seed story, recorded from nothing with the authoring commands alone, using the values of the
repository's own records as the target: each step is what the engineer knew that day, `kb check`
holds them to the right thing along the way, and the result says what the repository's records say."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from incident_kb.records.yaml_source import parse_yaml

from .conftest import REPO, SEED, SEED_INCIDENT, SEED_KNOB, edit

KNOB = "sglang-sm120-mma-target-ctas"
INCIDENT = "multi-round-harness-hang"
DEPLOY_LINE = "export SGLANG_SM120_MMA_TARGET_CTAS=512\n"


def target(rel: str) -> dict[str, Any]:
    value = parse_yaml((SEED / rel).read_text()).value
    assert isinstance(value, dict)
    return value


def filled(record: dict[str, Any]) -> dict[str, Any]:
    """A record without the fields a scaffold leaves empty."""
    return {k: v for k, v in record.items() if v not in (None, [], {})}


def check(kb, root: Path) -> tuple[int, list[tuple[str, str]]]:
    result = kb("check", "--root", root, "--format", "json")
    return result.code, [(f["code"], f["path"]) for f in json.loads(result.out)["findings"]]


def test_the_seed_story_recorded_with_the_commands_alone(kb, empty_kb):
    root = empty_kb
    for folder in ("docs", "deploy", "schemas"):
        shutil.rmtree(root / folder, ignore_errors=True)
        shutil.copytree((REPO if folder == "schemas" else SEED) / folder, root / folder)
    knob, incident = target(SEED_KNOB), target(SEED_INCIDENT)
    blamed, innocent = (h for h in incident["hypotheses"])
    cause = incident["root_cause"]

    def run(*args: Any) -> str:
        result = kb(*(str(a) for a in args), "--root", root)
        assert result.code == 0, (args, result.out, result.err)
        return result.out

    def evidence(hypothesis: dict[str, Any], index: int) -> None:
        item = hypothesis["evidence"][index]
        run("evidence", "add", INCIDENT, hypothesis["id"], "--kind", item["kind"], "--stance", item["stance"],
            "--date", item["date"], "--text", item["text"])

    def timeline(index: int) -> None:
        item = incident["timeline"][index]
        run("timeline", "add", INCIDENT, "--at", item["at"].isoformat(), "--event", item["event"])

    # 2026-11-02: the knob is tuned, measured and deployed.
    run("new", "knob", KNOB, "--name", knob["name"], "--summary", knob["summary"], "--value", knob["value"],
        "--kind", knob["kind"], "--component", knob["component"], "--default", knob["default"],
        "--description", knob["description"], *[a for tag in knob["tags"] for a in ("--tag", tag)],
        *[a for alias in knob["aliases"] for a in ("--alias", alias)],
        *[a for k, v in knob["scope"].items() for a in ("--scope", f"{k}={v}")],
        *[a for doc in knob["docs"] for a in ("--doc", doc)], "--applies-to", knob["applies_to"][0]["path"],
        "--date", knob["history"][0]["date"], "--note", knob["history"][0]["note"])
    for m in knob["measurements"]:
        run("measurement", "add", KNOB, "--metric", m["metric"], "--delta-pct", m["delta_pct"], "--date", m["date"],
            *[a for k, v in m["conditions"].items() for a in ("--condition", f"{k}={v}")],
            "--evidence", m["evidence"], *(("--note", m["note"]) if "note" in m else ()),
            *(("--setting", m["setting"]) if "setting" in m else ()))
    assert check(kb, root) == (0, [])

    # 2026-11-03: the harness starts hanging.
    run("new", "incident", INCIDENT, "--title", incident["title"], "--started", incident["started"],
        "--summary", incident["summary"], *[a for s in incident["systems"] for a in ("--system", s)],
        *[a for s in incident["symptoms"] for a in ("--symptom", s)],
        *[a for doc in incident["docs"] for a in ("--doc", doc)])
    timeline(0)
    timeline(1)

    # 2026-11-04: the knob is suspected on timing alone, and reverted to test that.
    run("hypothesis", "add", INCIDENT, blamed["id"], "--statement", blamed["statement"], "--suspect-knob", KNOB)
    evidence(blamed, 0)
    revert = knob["history"][1]
    out = run("revert", KNOB, "--incident", INCIDENT, "--hypothesis", blamed["id"], "--date", revert["date"],
              "--note", revert["note"])
    assert f"deploy/decode.sh:8: remove '{DEPLOY_LINE.strip()}'" in out
    assert check(kb, root) == (1, [("knob-drift", "deploy/decode.sh"), ("correlation-only-revert", SEED_KNOB)])
    edit(root / "deploy/decode.sh", DEPLOY_LINE, "")
    timeline(2)
    assert check(kb, root) == (0, [("correlation-only-revert", SEED_KNOB)])

    # 2026-11-05: the server is healthy; the hang persists through the proxy after the revert.
    evidence(blamed, 1)
    evidence(blamed, 2)
    run("hypothesis", "add", INCIDENT, innocent["id"], "--statement", innocent["statement"])
    evidence(innocent, 0)
    timeline(3)
    timeline(4)
    # Read as a hypothesis test, the revert failed: kb check says so (still only warnings).
    assert check(kb, root) == (0, [("correlation-only-revert", SEED_KNOB), ("restore-candidate", SEED_KNOB)])

    # 2026-11-07: the user finds the proxy. The hypothesis falls; the knob is still reverted.
    evidence(blamed, 3)
    evidence(innocent, 1)
    out = run("refute", INCIDENT, blamed["id"])
    assert "error reclaimable-knob" in out and f"kb restore {KNOB}" in out
    run("confirm", INCIDENT, innocent["id"], "--resolve", "--date", incident["resolved"], "--summary", cause["summary"])
    timeline(5)
    code, found = check(kb, root)
    assert (code, found) == (1, [("reclaimable-knob", SEED_KNOB)])

    # ...so the knob is restored, the setting goes back, and the follow-ups and lessons are written down.
    restore = knob["history"][2]
    out = run("restore", KNOB, "--date", restore["date"], "--note", restore["note"])
    assert "deploy/decode.sh: set SGLANG_SM120_MMA_TARGET_CTAS=512 again" in out
    edit(root / "deploy/decode.sh", "exec python", DEPLOY_LINE + "\nexec python")
    timeline(6)
    for item in incident["follow_ups"]:
        run("follow-up", "add", INCIDENT, "--action", item["action"],
            *(("--done",) if item["status"] == "done" else ()),
            *(("--knob", item["knob"]) if "knob" in item else ()))
    for lesson in incident["lessons"]:
        run("lesson", "add", INCIDENT, lesson)

    assert check(kb, root) == (0, [])
    assert kb("fmt", "--check", "--root", root).code == 0
    assert filled(parse_yaml((root / SEED_KNOB).read_text()).value) == knob
    assert filled(parse_yaml((root / SEED_INCIDENT).read_text()).value) == incident


def test_the_story_history_copied_is_the_history_built(tmp_path, git_env):
    """tests/story.py copies a history it built once: the copy has the commits, the tree, the index
    entries and the clean status of a history built afresh in its place."""
    from .story import _story_built, story_until

    def seen(repo) -> tuple[str, ...]:
        return (repo.git("log", "--format=%H %an %ad %s", "--date=iso-strict"), repo.git("ls-files", "-s"),
                repo.git("status", "--porcelain", "--untracked-files=all"), repo.git("rev-parse", "HEAD^{tree}"))

    built, built_ids = _story_built(tmp_path / "built", 4)
    first, first_ids = story_until(tmp_path / "first", 4)
    second, second_ids = story_until(tmp_path / "second", 4)
    assert seen(first) == seen(second) == seen(built) and seen(built)[2] == ""
    assert first_ids == second_ids == built_ids and len(built_ids) == 4
    first_ids[1] = "changed"
    assert story_until(tmp_path / "third", 4)[1] == built_ids  # each caller its own ids
    (tmp_path / "fourth").mkdir()
    (tmp_path / "fourth/notes.md").write_text("# Notes\n")  # a folder that holds something: built there
    fourth, _ = story_until(tmp_path / "fourth", 4)
    assert "notes.md" in fourth.git("ls-files")
