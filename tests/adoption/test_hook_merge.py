"""`kb init` beside an existing `.pre-commit-config.yaml`: `--merge` adds the kb-check hook at the
end of its `repos:` keeping every other byte; without `--merge` it prints the diff (which `patch`
applies to the same result) or, where the list cannot be added to line by line, the entry to add.
Each result is run by pre-commit itself."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ..gitrepo import GitRepo, git_environment

pytestmark = pytest.mark.usefixtures("git_env")

THEIRS = """\
# The team's hooks (keep the comments)
repos:
- repo: local
  hooks:
  - id: no-tabs
    name: no tabs
    entry: "! grep -rn '\t' --include=*.py ."
    language: system

# Run them on every stage we use
default_stages: [pre-commit]
"""
ADDED_LINES = 9  # the kb-check repo entry


def pre_commit(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**git_environment(), "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
           "PRE_COMMIT_HOME": str(root.parent / "pre-commit-home")}
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=root, env=env, capture_output=True,
                          text=True)


@pytest.fixture
def team(tmp_path, monkeypatch):
    repo = GitRepo(tmp_path / "team")
    monkeypatch.chdir(repo.root)
    return repo


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_merge_adds_the_hook_keeping_every_other_byte_and_pre_commit_runs_it(kb, team, crlf):
    theirs = THEIRS.replace("\n", "\r\n") if crlf else THEIRS
    (team.root / ".pre-commit-config.yaml").write_bytes(theirs.encode())
    result = kb("init", "--merge")
    assert result.code == 0, result.err
    assert "  added   the kb-check hook to .pre-commit-config.yaml (every other line kept)" in result.out.splitlines()
    text = (team.root / ".pre-commit-config.yaml").read_bytes().decode()
    old, new = theirs.splitlines(True), text.splitlines(True)
    assert any(new[:at] + new[at + ADDED_LINES:] == old and "- id: kb-check" in new[at + 2]
               for at in range(len(old) + 1))  # one block inserted, every other line as it was
    assert all(line.endswith("\r\n") == crlf for line in new)
    assert pre_commit(team.root, "validate-config").returncode == 0
    team.git("add", "-A")
    ran = pre_commit(team.root, "run", "kb-check")
    assert ran.returncode == 0 and "kb check" in ran.stdout, ran.stdout + ran.stderr
    again = kb("init", "--merge")
    assert again.code == 0 and (team.root / ".pre-commit-config.yaml").read_bytes().decode() == text
    assert "does not run kb check" not in again.out


def test_without_merge_the_printed_diff_applies_to_what_merge_writes(kb, team, tmp_path):
    (team.root / ".pre-commit-config.yaml").write_text(THEIRS)
    shown = kb("init")
    assert shown.code == 0 and (team.root / ".pre-commit-config.yaml").read_text() == THEIRS
    lines = shown.out.splitlines()
    start = lines.index(".pre-commit-config.yaml does not run kb check yet; kb init --merge adds the hook "
                        "(every other line kept):")
    diff = [line[2:] for line in lines[start + 1:lines.index("next:")]]
    subprocess.run(["patch", "-s", ".pre-commit-config.yaml"], input="\n".join(diff) + "\n", text=True,
                   check=True, cwd=team.root)
    patched = (team.root / ".pre-commit-config.yaml").read_text()
    (team.root / ".pre-commit-config.yaml").write_text(THEIRS)
    assert kb("init", "--merge").code == 0
    assert (team.root / ".pre-commit-config.yaml").read_text() == patched


def test_a_list_it_cannot_add_to_gets_the_entry_printed_which_pre_commit_runs(kb, team):
    theirs = "repos: []   # none yet\n"
    (team.root / ".pre-commit-config.yaml").write_text(theirs)
    result = kb("init", "--merge")
    assert result.code == 0 and (team.root / ".pre-commit-config.yaml").read_text() == theirs
    lines = result.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(".pre-commit-config.yaml does not run kb"))
    assert "add this entry to its repos: list" in lines[start]
    entry = [line[2:] for line in lines[start + 1:lines.index("next:")]]
    (team.root / ".pre-commit-config.yaml").write_text("repos:\n" + "\n".join(entry) + "\n")
    assert pre_commit(team.root, "validate-config").returncode == 0
    team.git("add", "-A")
    ran = pre_commit(team.root, "run", "kb-check")
    assert ran.returncode == 0 and "kb check" in ran.stdout, ran.stdout + ran.stderr
