"""Shipping kb check as a PR check: GitLab's Code Quality report, GitHub's step summary, the
pre-commit hook (run for real through pre-commit, as a `repo: local` hook) and the workflow."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from ..conftest import REPO, SEED
from ..gitrepo import git_environment
from ..story import DEADLOCK, PERF_PLAN, story_until

pytestmark = pytest.mark.usefixtures("git_env")


def test_gitlab_code_quality_report(kb, tmp_path):
    root = tmp_path / "kb"
    story_until(root, 4)
    result = kb("check", "--root", root, "--format", "gitlab")
    assert result.code == 1
    issues = json.loads(result.out)
    assert [(i["check_name"], i["severity"], i["location"]["path"], i["location"]["lines"]["begin"])
            for i in issues] == [("stale-doc", "major", PERF_PLAN, 7), ("stale-doc", "major", PERF_PLAN, 8),
                                 ("stale-doc", "major", DEADLOCK, 2), ("stale-doc", "major", DEADLOCK, 7)]
    assert len({i["fingerprint"] for i in issues}) == 4
    assert all(i["description"].startswith("this doc refers to") for i in issues)


def test_gitlab_fingerprints_survive_a_move(kb, seed_kb):
    from ..conftest import break_seed_story

    break_seed_story(seed_kb)
    before = json.loads(kb("check", "--root", seed_kb, "--format", "gitlab").out)
    knob = seed_kb / "knobs/sglang-sm120-mma-target-ctas.yaml"
    knob.write_text(knob.read_text().replace("\nvalue: 512\n", "\n# tuned\nvalue: 512\n"))
    after = json.loads(kb("check", "--root", seed_kb, "--format", "gitlab").out)
    assert before[0]["location"] != after[0]["location"]
    assert before[0]["fingerprint"] == after[0]["fingerprint"]


def test_github_format_writes_every_finding_to_the_step_summary(kb, tmp_path, monkeypatch):
    root = tmp_path / "kb"
    story_until(root, 4)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = kb("check", "--root", root, "--format", "github")
    assert result.code == 1
    assert result.out.count("::error file=") == 4
    text = summary.read_text()
    assert text.startswith("earlier step\n## kb check\n\n4 errors, 0 warnings (1 knob, 1 incident checked)\n")
    rows = [line for line in text.splitlines() if line.startswith("| `")]
    assert len(rows) == 4 and rows[0].startswith(f"| `{PERF_PLAN}:7` | error | `stale-doc` | this doc refers")


def test_other_formats_leave_the_step_summary_alone(kb, seed_kb, tmp_path, monkeypatch):
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    kb("check", "--root", seed_kb)
    assert not summary.exists()


def _kb_executable() -> str:
    found = Path(sys.executable).parent / "kb"
    assert found.exists(), "kb is not installed next to this Python; run `make test`"
    return str(found)


def test_pre_commit_hook_blocks_a_record_change_whose_docs_are_stale(tmp_path):
    pre_commit = Path(sys.executable).parent / "pre-commit"
    assert pre_commit.exists(), "pre-commit is a test dependency; run `make test`"
    root = tmp_path / "kb"
    repo, _ = story_until(root, 2)
    hooks = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())
    hook = dict(hooks[0])
    # Hooks hosted elsewhere cannot be fetched here: the same hook as a local one, run by this kb.
    assert hook["entry"].startswith("kb ")
    hook.update(language="system", entry=_kb_executable() + hook["entry"][2:])
    config = {"repos": [{"repo": "local", "hooks": [hook]}]}
    (root / ".pre-commit-config.yaml").write_text(json.dumps(config))
    env = {**git_environment("2026-11-07T09:00:00Z"), "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    run = lambda *args: subprocess.run(args, cwd=root, env=env, capture_output=True, text=True)  # noqa: E731
    assert run(str(pre_commit), "install").returncode == 0
    repo.commit("Add the pre-commit configuration", "2026-11-05T10:00:00Z")
    shutil.copy(SEED / "incidents/multi-round-harness-hang.yaml", root / "incidents/multi-round-harness-hang.yaml")
    run("git", "add", "-A")
    blocked = run("git", "commit", "-m", "Root cause: a client proxy")
    assert blocked.returncode != 0
    output = blocked.stdout + blocked.stderr
    assert "- hook id: kb-check\n- exit code: 1" in output
    assert "error stale-doc" in output and "error reclaimable-knob" in output
    assert repo.git("log", "-1", "--format=%s") == "Add the pre-commit configuration"
    # Forced through, the errors stay; a later commit that touches no file of the knowledge base
    # passes at once, without reading a record.
    assert run("git", "commit", "-q", "--no-verify", "-m", "Root cause, docs later").returncode == 0
    (root / "README.md").write_text("# notes\n")
    run("git", "add", "README.md")
    readme = run("git", "commit", "-m", "Readme")
    assert readme.returncode == 0, readme.stdout + readme.stderr
    assert repo.git("log", "-1", "--format=%s") == "Readme"
    # A commit that touches the knowledge base is judged on what it introduces: the errors already
    # at HEAD do not block an unrelated doc...
    (root / "docs/notes.md").write_text("# Notes\n\nNothing about any record.\n")
    run("git", "add", "docs/notes.md")
    notes = run("git", "commit", "-m", "Notes")
    assert notes.returncode == 0, notes.stdout + notes.stderr
    # ...but a change to a deploy file a knob applies to runs the check, and its drift blocks it.
    deploy = root / "deploy/decode.sh"
    assert "SGLANG_SM120_MMA_TARGET_CTAS" not in deploy.read_text()  # the knob is reverted
    deploy.write_text(deploy.read_text() + "export SGLANG_SM120_MMA_TARGET_CTAS=512\n")
    run("git", "add", "deploy/decode.sh")
    drift = run("git", "commit", "-m", "Tidy the decode script")
    assert drift.returncode != 0
    assert "error knob-drift" in drift.stdout + drift.stderr
    assert "pre-existing at HEAD" in drift.stdout + drift.stderr


def test_the_workflow_fetches_all_history_and_checks_against_the_base():
    workflow = YAML(typ="safe").load((REPO / ".github/workflows/kb-check.yml").read_text())
    steps = workflow["jobs"]["kb-check"]["steps"]
    checkout = next(s for s in steps if s.get("uses", "").startswith("actions/checkout"))
    assert checkout["with"]["fetch-depth"] == 0
    runs = " ".join(s.get("run", "") for s in steps)
    assert "kb check --format github" in runs and "--base" in runs and "mkdocs build --strict" in runs
