"""Which knowledge base `kb` works on without --root: the nearest folder with knobs/ or incidents/,
no further up than the repository's top; outside a repository no further up than $HOME, and never
into a folder every user may write to, so a shared /tmp/knobs is nobody's knowledge base."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from incident_kb.commands.command import find_root

from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")
NEW = ("new", "knob", "batch-size", "--name", "BATCH", "--summary", "s", "--value", "8")


def folders(*paths: Path) -> None:
    for path in paths:
        path.mkdir(parents=True, exist_ok=True)


def test_outside_a_repository_it_never_climbs_above_home(kb, tmp_path, monkeypatch):
    home, work = tmp_path / "home/ada", tmp_path / "home/ada/work/notes"
    folders(tmp_path / "knobs", work)  # someone's knowledge base above $HOME
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.chdir(work)
    assert find_root(work) == work
    result = kb(*NEW)
    assert result.code == 2 and result.err.count("\n") == 1
    assert os.listdir(tmp_path / "knobs") == []


def test_outside_a_repository_home_itself_may_be_the_knowledge_base(tmp_path, monkeypatch):
    home = tmp_path / "home/ada"
    folders(home / "incidents", home / "work/notes", home / "kb/knobs/group")
    monkeypatch.setenv("HOME", str(home))
    assert find_root(home / "work/notes") == home
    assert find_root(home / "kb/knobs/group") == home / "kb"


@pytest.mark.parametrize("planted", [("knobs",), ("incidents",), (".git", "knobs")])
def test_it_never_climbs_into_a_folder_everyone_may_write_to(kb, tmp_path, monkeypatch, planted):
    shared = tmp_path / "tmp"
    folders(shared / "ada/work", *(shared / name for name in planted))
    shared.chmod(0o1777)  # what /tmp is
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.chdir(shared / "ada/work")
    assert find_root(shared / "ada/work") == shared / "ada/work"
    assert kb(*NEW).code == 2
    assert not (shared / "knobs/batch-size.yaml").exists()


def test_inside_a_repository_it_stops_at_the_repository_top(tmp_path, monkeypatch):
    folders(tmp_path / "knobs", tmp_path / "repo/src/deep")
    GitRepo(tmp_path / "repo")
    monkeypatch.setenv("HOME", str(tmp_path))  # $HOME above the repository: the repository decides
    assert find_root(tmp_path / "repo/src/deep") == tmp_path / "repo"
    folders(tmp_path / "repo/kb/incidents", tmp_path / "repo/kb/docs/guide")
    assert find_root(tmp_path / "repo/kb/docs/guide") == tmp_path / "repo/kb"


def test_a_repository_whose_top_is_above_home_is_still_found(tmp_path, monkeypatch):
    GitRepo(tmp_path / "repo")
    folders(tmp_path / "repo/knobs", tmp_path / "repo/users/ada/notes")
    monkeypatch.setenv("HOME", str(tmp_path / "repo/users/ada"))
    assert find_root(tmp_path / "repo/users/ada/notes") == tmp_path / "repo"
