"""The "Measuring a knob" examples (docs/reference/measuring.md, on this repository's site, which the
README links) are run: each `$ command` of its console blocks, in
order, in a git repository holding this repository's knowledge base and the benchmark outputs of
tests/fixtures/benchmarks/ under bench/, must print what the page shows (`UPDATE_GOLDEN=1`
rewrites the shown output; review the diff)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import KB_FOLDERS, REPO
from ..console import BLOCK, run_block
from ..gitrepo import git_environment
from ..golden import updating

pytestmark = pytest.mark.slow  # a fresh process per command: left out of `make test-fast`

PAGE = REPO / "docs/reference/measuring.md"
_SECTION = re.compile(r"^# Measuring a knob\n(.*)\Z", re.DOTALL | re.MULTILINE)


def test_the_readme_measuring_examples_work_as_shown(tmp_path):
    root = tmp_path / "kb"
    root.mkdir()
    for folder in KB_FOLDERS:
        shutil.copytree(REPO / folder, root / folder)
    shutil.copytree(REPO / "tests" / "fixtures" / "benchmarks", root / "bench")
    env = git_environment("2026-11-08T09:00:00Z", name="Author", email="author@example.invalid")
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=env)
    subprocess.run(["git", "commit", "-q", "-m", "The knowledge base"], cwd=root, check=True, env=env)
    run_env = {**os.environ, **env, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
               "PYTHONUNBUFFERED": "1"}
    text = PAGE.read_text(encoding="utf-8")
    section = _SECTION.search(text)
    assert section, "docs/reference/measuring.md has no 'Measuring a knob' page"
    blocks = list(BLOCK.finditer(section.group(1)))
    assert len(blocks) >= 5, "an example for each format"
    rewritten, failures, end = [], [], section.start(1)
    for block in blocks:
        start = section.start(1) + block.start(1)
        lines, failed = run_block(block.group(1), text.count("\n", 0, start) + 1, PAGE.name, root, run_env, timeout=60)
        failures += failed
        rewritten.append(text[end:start] + "".join(line + "\n" for line in lines))
        end = section.start(1) + block.end(1)
    if updating():
        PAGE.write_text(text[:section.start(1)] + "".join(rewritten) + text[end:], encoding="utf-8")
        return
    assert not failures, "the page shows output its commands do not print (UPDATE_GOLDEN=1 rewrites it):\n" + \
        "\n".join(failures)
    for tool in ("sglang", "vllm", "hyperfine", "pytest-benchmark", "csv"):
        assert f"({tool})" in section.group(1), f"no example for {tool}"
