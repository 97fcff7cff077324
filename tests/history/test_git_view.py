"""git's view of a repository (history/git_view.py) as the history pass reads it instead of asking git
again: HEAD's facts, whether the clone is partial, the index's place, and the view of another
repository never taken for this one's."""

from __future__ import annotations

from pathlib import Path

from incident_kb.history.git_view import GitView, read_git_view
from incident_kb.history.gitio import _head_facts, _opened, open_repository

from ..gitrepo import GitRepo


def _view(root: Path) -> GitView:
    view = read_git_view(root, 0)
    assert view is not None
    return view


def _committed(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.write("a.txt", "a\n")
    repo.commit("one", when="2026-11-01T00:00:00Z")
    return repo


def test_head_facts_are_what_git_answers_when_asked_alone(tmp_path, git_env):
    repo = GitRepo(tmp_path / "kb")
    repo.write("a.txt", "a\n")
    first = repo.commit("one", when="2026-11-01T00:00:00Z")
    repo.commit("two", when="2026-11-02T00:00:00Z")
    with open_repository(repo.root) as opened:
        asked = _head_facts(opened)
    assert _view(repo.root).head_facts == asked and asked is not None and asked[1:] == (False, "main")
    repo.git("checkout", "-q", "--detach", first)
    with open_repository(repo.root) as opened:
        asked = _head_facts(opened)
    assert _view(repo.root).head_facts == asked and asked is not None and asked[2] is None


def test_a_partial_clone_is_told_from_the_configuration_as_git_finds_it(tmp_path, git_env):
    repo = _committed(tmp_path / "kb")
    assert _view(repo.root).partial_clone is False
    for name, value in (("remote.Origin.promisor", "true"), ("remote.origin.promisor", "false")):
        repo.git("config", name, value)  # any value: `git config --get-regexp` finds the name
        assert _view(repo.root).partial_clone is True
        repo.git("config", "--unset", name)
    repo.git("config", "extensions.partialClone", "origin")
    assert _view(repo.root).partial_clone is True
    repo.git("config", "--unset", "extensions.partialClone")
    repo.git("config", "remote.origin.promisorx", "true")  # not the name
    assert _view(repo.root).partial_clone is False


def test_the_index_is_where_git_reads_it(tmp_path, git_env, monkeypatch):
    repo = _committed(tmp_path / "kb")
    assert _view(repo.root).index == str(repo.root / ".git/index")
    monkeypatch.setenv("GIT_INDEX_FILE", str(tmp_path / "elsewhere"))
    assert _view(repo.root).index == str(tmp_path / "elsewhere")


def test_another_repositorys_view_is_not_taken_for_this_one(tmp_path, git_env):
    this, other = GitRepo(tmp_path / "this"), GitRepo(tmp_path / "other")
    for repo, when in ((this, "2026-11-01T00:00:00Z"), (other, "2026-11-02T00:00:00Z")):
        repo.write("a.txt", f"{when}\n")
        repo.commit("one", when=when)
    with open_repository(this.root, _view(other.root)) as opened:
        assert _opened[id(opened)].head == _head_facts(opened) != _view(other.root).head_facts
        assert _opened[id(opened)].index is None
