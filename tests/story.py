"""The seed story as a git history, one commit per step, from the repository's own records:

1. 2026-11-02 the knob is deployed (with its performance plan);
2. 2026-11-04 the hang: incident opened, knob reverted, both design docs blame the knob;
3. 2026-11-07 root cause found (a client proxy): the incident is resolved, the docs are not touched;
4. 2026-11-07 the knob is restored (still no doc touched);
5. 2026-11-08 the docs are updated: the repository as committed today.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

from .conftest import REPO, SEED, SEED_INCIDENT, SEED_KNOB
from .gitrepo import GitRepo

PERF_PLAN = "docs/design/DSV4_DECODE_PERF_PLAN.md"
DEADLOCK = "docs/design/DSV4_PD_DEADLOCK_ISSUE.md"
KNOB = "sglang-sm120-mma-target-ctas"
INCIDENT = "multi-round-harness-hang"
DEPLOY = "deploy/decode.sh"
DEPLOY_LINE = "export SGLANG_SM120_MMA_TARGET_CTAS=512\n"

WHEN = {1: "2026-11-02T10:00:00Z", 2: "2026-11-04T10:00:00Z", 3: "2026-11-07T09:00:00Z",
        4: "2026-11-07T15:00:00Z", 5: "2026-11-08T10:00:00Z"}

_INCIDENT_OPEN = """\
# yaml-language-server: $schema=../schemas/incident.schema.json
id: multi-round-harness-hang
title: Multi-round agent harness hangs after several rounds
status: open
started: 2026-11-03
hypotheses:
  - id: target-ctas-causes-hang
    statement: SGLANG_SM120_MMA_TARGET_CTAS=512 in the decode service causes the multi-round harness hang.
    status: open
    suspect: {knob: sglang-sm120-mma-target-ctas}
    evidence:
      - kind: correlation
        stance: for
        date: 2026-11-04
        text: The hang appeared around the time TARGET_CTAS=512 was deployed.
  - id: client-proxy-fault
    statement: One of the user's client-side proxies corrupts or drops requests after several rounds.
    status: open
docs:
  - docs/design/DSV4_PD_DEADLOCK_ISSUE.md
"""

_PERF_PLAN_DEPLOYED = """\
---
reviewed: 2026-11-02
records: [sglang-sm120-mma-target-ctas]
---
# DSV4 decode performance plan

## SGLANG_SM120_MMA_TARGET_CTAS=512 (active)
+12.8% output throughput at concurrency 64, +5.7% at 96.
"""

_PERF_PLAN_BLAMING = """\
---
reviewed: 2026-11-04
records: [sglang-sm120-mma-target-ctas]
---
# DSV4 decode performance plan

## SGLANG_SM120_MMA_TARGET_CTAS=512 (reverted)
Reverted: it caused the multi-round harness hang (incident multi-round-harness-hang).
"""

_DEADLOCK_BLAMING = """\
---
reviewed: 2026-11-04
records: [multi-round-harness-hang, sglang-sm120-mma-target-ctas]
---
# DSV4 PD deadlock issue

The hang is caused by `SGLANG_SM120_MMA_TARGET_CTAS=512`, which was reverted.
"""


def seed_text(rel: str) -> str:
    return (SEED / rel).read_text()


def knob_until(before: str, status: str) -> str:
    """The seed knob with its history cut before the entry dated `before`."""
    text = seed_text(SEED_KNOB)
    marker = f"  - date: {before}\n"
    assert marker in text and "\nstatus: active\n" in text
    return text[: text.index(marker)].replace("\nstatus: active\n", f"\nstatus: {status}\n")


def deploy_text(with_knob: bool) -> str:
    text = seed_text(DEPLOY)
    assert DEPLOY_LINE in text
    return text if with_knob else text.replace(DEPLOY_LINE, "")


def step(repo: GitRepo, number: int) -> str:
    """Write the files of story step `number` and commit them; returns the short commit id."""
    if number == 1:
        shutil.copytree(REPO / "schemas", repo.root / "schemas")
        shutil.copytree(SEED / "deploy", repo.root / "deploy")
        repo.write("docs/index.md", "# Knowledge base\n\nDesign docs live under docs/design/.\n")  # refers to nothing
        repo.write(SEED_KNOB, knob_until("2026-11-04", "active").replace(f"  - {DEADLOCK}\n", ""))
        repo.write(PERF_PLAN, _PERF_PLAN_DEPLOYED)
        return repo.commit("Deploy SGLANG_SM120_MMA_TARGET_CTAS=512 on decode", WHEN[1])
    if number == 2:
        repo.write(SEED_KNOB, knob_until("2026-11-07", "reverted"))
        repo.write(SEED_INCIDENT, _INCIDENT_OPEN)
        repo.write(DEPLOY, deploy_text(with_knob=False))
        repo.write(PERF_PLAN, _PERF_PLAN_BLAMING)
        repo.write(DEADLOCK, _DEADLOCK_BLAMING)
        return repo.commit("Multi-round harness hang: revert TARGET_CTAS", WHEN[2])
    if number == 3:
        repo.write(SEED_INCIDENT, seed_text(SEED_INCIDENT))
        return repo.commit("Root cause: a client proxy", WHEN[3])
    if number == 4:
        repo.write(SEED_KNOB, seed_text(SEED_KNOB))
        repo.write(DEPLOY, deploy_text(with_knob=True))
        return repo.commit("Restore TARGET_CTAS=512", WHEN[4])
    if number == 5:
        repo.write(PERF_PLAN, seed_text(PERF_PLAN))
        repo.write(DEADLOCK, seed_text(DEADLOCK))
        return repo.commit("Correct the design docs", WHEN[5])
    raise ValueError(number)


def story_until(root: Path, last: int) -> tuple[GitRepo, dict[int, str]]:
    """The story's repository up to step `last` at `root` (created), and each step's commit id: a copy
    of one this process built with the same git environment (the commits are pinned, so the copy holds
    the very history a build makes), its index refreshed for the copied files. Built afresh where
    `root` already holds something."""
    if root.exists() and any(root.iterdir()):
        return _story_built(root, last)
    key = (last, tuple(sorted((name, value) for name, value in os.environ.items() if name.startswith("GIT"))))
    if key not in _BUILT:
        template = Path(tempfile.mkdtemp(prefix="story-", dir=_templates())) / "kb"
        _BUILT[key] = (template, _story_built(template, last)[1])
    template, ids = _BUILT[key]
    shutil.copytree(template, root, symlinks=True, dirs_exist_ok=True, copy_function=shutil.copy)  # times: now
    repo = GitRepo(root, init=False)
    repo.git("update-index", "-q", "--refresh")
    return repo, dict(ids)


def _story_built(root: Path, last: int) -> tuple[GitRepo, dict[int, str]]:
    repo = GitRepo(root)
    return repo, {n: step(repo, n) for n in range(1, last + 1)}


_BUILT: dict[tuple[int, tuple[tuple[str, str], ...]], tuple[Path, dict[int, str]]] = {}
_TEMPLATES: list[str] = []


def _templates() -> str:
    """This process's folder of built stories, removed when it ends."""
    if not _TEMPLATES:
        _TEMPLATES.append(tempfile.mkdtemp(prefix="kb-story-templates-"))
        atexit.register(shutil.rmtree, _TEMPLATES[0], True)
    return _TEMPLATES[0]
