"""Files git opens on its own while kb asks it about the work tree (every .gitignore on the way and
under the folders kb reads, .gitattributes, the exclude files): one that is a named pipe hangs git,
and `kb check` with it, forever. kb looks first and exits 2 naming the file; what git does not open
(a link in the tree, a nested repository's files) is no false alarm."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ..gitrepo import GitRepo
from ..repository.test_bad_files import run_kb

WAITED_ON = "git would wait on it forever"


def committed(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.commit("seed", "2026-11-01T00:00:00Z")
    return repo


def check(root: Path):
    # 60 s: without the look first, git never returns and the timeout fails the test
    proc = run_kb("check", "--root", root, timeout=60)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc


@pytest.mark.parametrize("where", [".gitignore", "knobs/.gitignore", "docs/runbooks/old/.gitignore",
                                   ".gitattributes", ".git/info/exclude"])
def test_a_named_pipe_git_would_open_is_named_not_waited_on(seed_kb, where):
    committed(seed_kb)
    (seed_kb / where).parent.mkdir(parents=True, exist_ok=True)
    (seed_kb / where).unlink(missing_ok=True)
    os.mkfifo(seed_kb / where)
    os.utime(next((seed_kb / "knobs").glob("*.yaml")), (1, 1))  # the index must re-read a record: attributes
    proc = check(seed_kb)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith(f"kb: {where}: ") and WAITED_ON in proc.stderr and "named pipe" in proc.stderr


def test_the_folders_between_the_repository_top_and_the_knowledge_base_count(seed_kb, tmp_path):
    top = seed_kb.parent
    committed(top)
    (top / "team").mkdir()
    os.mkfifo(top / "team/.gitignore")
    moved = top / "team/kb"
    seed_kb.rename(moved)
    proc = check(moved)
    assert proc.returncode == 2 and proc.stderr.startswith("kb: team/.gitignore: ") and WAITED_ON in proc.stderr


def test_a_users_excludes_file_that_is_a_named_pipe_is_named(seed_kb, tmp_path):
    repo = committed(seed_kb)
    pipe = tmp_path / "my-ignores"
    os.mkfifo(pipe)
    repo.git("config", "core.excludesFile", str(pipe))
    proc = check(seed_kb)
    assert proc.returncode == 2 and proc.stderr.startswith(f"kb: {pipe}: ") and WAITED_ON in proc.stderr


def test_what_git_does_not_open_is_no_false_alarm(seed_kb, tmp_path):
    committed(seed_kb)
    os.mkfifo(tmp_path / "pipe")
    (seed_kb / "docs/.gitignore").symlink_to(tmp_path / "pipe")  # git opens an in-tree ignore file without
    nested = seed_kb / "docs/vendor"                               # following a link
    GitRepo(nested)
    os.mkfifo(nested / ".gitignore")  # a nested repository is listed as one entry, never walked
    os.mkfifo(seed_kb / "docs/notes.gitignore")  # not a name git reads
    proc = check(seed_kb)
    assert WAITED_ON not in proc.stderr and proc.returncode in (0, 1), proc.stderr
