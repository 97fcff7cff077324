"""The author's guide (docs/guide/writing-a-postmortem.md) is run: each `$ command` in its console
blocks runs in a real shell, in order, in a fresh knowledge base, and must print what the guide
shows. `UPDATE_GOLDEN=1` rewrites the outputs in the guide (review the diff)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import REPO
from ..console import BLOCK, run_block
from ..gitrepo import git_environment
from ..golden import updating

pytestmark = pytest.mark.slow  # every command of the guide in a fresh process: left out of `make test-fast`

GUIDE = REPO / "docs" / "guide" / "writing-a-postmortem.md"


def fresh_kb(tmp_path: Path) -> Path:
    """A knowledge base with the repository's deploy files, docs and schemas, and no records."""
    root = tmp_path / "kb"
    root.mkdir()
    shutil.copytree(REPO / "deploy", root / "deploy")
    shutil.copytree(REPO / "schemas", root / "schemas")
    shutil.copytree(REPO / "docs", root / "docs")  # the guide too: its mentions are examples, not references
    for folder in ("knobs", "incidents"):
        (root / folder).mkdir()
    env = git_environment("2026-11-01T09:00:00Z", name="Author", email="author@example.invalid")
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    # A knowledge base's repository has history before its first incident: commit the skeleton.
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "Knowledge base skeleton"], cwd=root, check=True, env=env)
    return root


def test_every_command_in_the_guide_works_as_shown(tmp_path):
    root = fresh_kb(tmp_path)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PYTHONUNBUFFERED": "1"}
    text = GUIDE.read_text()
    rewritten, failures, end = [], [], 0
    for match in BLOCK.finditer(text):
        first_line = text.count("\n", 0, match.start(1)) + 1
        block, failed = run_block(match.group(1), first_line, "guide", root, env, timeout=60)
        failures += failed
        rewritten.append(text[end:match.start(1)] + "".join(line + "\n" for line in block))
        end = match.end(1)
    if updating():
        GUIDE.write_text("".join(rewritten) + text[end:])
        return
    assert not failures, "the guide shows output its commands do not print (UPDATE_GOLDEN=1 rewrites it):\n" + \
        "\n".join(failures)
    assert "all good: 1 knob, 1 incident checked" in text  # the story ends with a passing check
