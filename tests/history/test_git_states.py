"""Where history is missing or odd: shallow clones, plain folders, no commits, detached HEAD.
Each gets one line that says what and how to fix it, never a traceback."""

from __future__ import annotations

import json

import pytest

from ..gitrepo import GitRepo
from ..story import step, story_until

pytestmark = pytest.mark.usefixtures("git_env")


def test_shallow_clone_is_refused_with_the_fix(kb, tmp_path):
    origin, _ = story_until(tmp_path / "origin", 4)
    clone = GitRepo(tmp_path / "clone", init=False)
    GitRepo(tmp_path).git("clone", "-q", "--depth", "1", f"file://{origin.root}", str(clone.root))
    result = kb("check", "--root", clone.root)
    assert result.code == 2
    assert result.out == ""
    assert result.err.count("\n") == 1 and result.err.startswith("kb: ")
    assert "shallow clone" in result.err and "fetch-depth: 0" in result.err and "--allow-shallow" in result.err
    # With --allow-shallow it checks what it can: in one commit nothing looks changed after the docs.
    allowed = kb("check", "--root", clone.root, "--format", "json", "--allow-shallow")
    assert "shallow clone" in allowed.err
    assert [f["code"] for f in json.loads(allowed.out)["findings"]] == []
    assert allowed.code == 0


def test_outside_git_the_git_checks_are_skipped_with_a_warning(kb, seed_kb):
    result = kb("check", "--root", seed_kb)
    assert (result.code, result.out) == (0, "all good: 1 knob, 1 incident checked\n")
    assert result.err.startswith("kb: warning: ") and result.err.count("\n") == 1
    assert "not inside a git repository" in result.err and "stale-doc" in result.err and "git init" in result.err


def test_a_repository_with_no_commits(kb, seed_kb):
    GitRepo(seed_kb)
    result = kb("check", "--root", seed_kb)
    assert result.code == 0
    assert "has no commits yet" in result.err and "git commit" in result.err


def test_detached_head_reads_history_from_that_commit(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 4)
    repo.git("checkout", "-q", "--detach", ids[3])
    result = kb("check", "--root", root, "--format", "json")
    assert result.code == 1
    assert f"HEAD is detached at {ids[3]}" in result.err and result.err.count("\n") == 1
    assert {f["code"] for f in json.loads(result.out)["findings"]} == {"stale-doc", "reclaimable-knob"}


def test_base_outside_git_or_unknown_is_a_clear_error(kb, seed_kb, tmp_path):
    result = kb("check", "--root", seed_kb, "--base", "main")
    assert result.code == 2 and "--base needs the git history" in result.err and result.err.count("\n") == 1
    root = tmp_path / "repo"
    story_until(root, 1)
    result = kb("check", "--root", root, "--base", "origin/main")
    assert result.code == 2 and "no such commit" in result.err and "git fetch" in result.err


def test_knowledge_base_in_a_subfolder_of_its_repository(kb, tmp_path):
    top = GitRepo(tmp_path / "mono")
    inner = GitRepo(top.root / "kb", init=False)
    inner.commit = top.commit  # type: ignore[method-assign]
    for number in range(1, 4):
        step(inner, number)
    result = kb("check", "--root", inner.root, "--format", "json")
    stale = [f["path"] for f in json.loads(result.out)["findings"] if f["code"] == "stale-doc"]
    assert stale == ["docs/design/DSV4_DECODE_PERF_PLAN.md", "docs/design/DSV4_PD_DEADLOCK_ISSUE.md"]


def redate_head(repo: GitRepo, committer_date: str) -> str:
    """Give HEAD's commit a committer date line that git accepts as an object (git mktree and
    hash-object do), however malformed; returns the new commit id."""
    text = repo.git("cat-file", "commit", "HEAD")
    lines = [f"{line.rsplit('>', 1)[0]}> {committer_date}".rstrip() if line.startswith("committer ") else line
             for line in text.split("\n")]
    path = repo.root / ".git" / "redated"
    path.write_text("\n".join(lines) + "\n")
    commit = repo.git("hash-object", "-t", "commit", "-w", "--literally", str(path))
    repo.git("update-ref", "refs/heads/main", commit)
    return commit


@pytest.mark.parametrize("date_line", ["253402300800 +0000", "1700000000 -9999", "1700000000 +2400",
                                       "not a date at all", "", "99999999999999999999 +0000", "-5 +0000",
                                       "253402300000 -0500"])
def test_a_commit_with_any_date_line_on_the_mainline_stops_nothing(kb, tmp_path, date_line):
    repo, _ = story_until(tmp_path / "kb", 3)
    redate_head(repo, date_line)  # the resolution, a material change, in a commit with that date line
    step(repo, 4)
    result = kb("check", "--root", repo.root, "--format", "json")
    assert result.code == 1, result.err
    assert "Traceback" not in result.err
    stale = [f for f in json.loads(result.out)["findings"] if f["code"] == "stale-doc"]
    assert {f["path"] for f in stale} == {"docs/design/DSV4_DECODE_PERF_PLAN.md",
                                          "docs/design/DSV4_PD_DEADLOCK_ISSUE.md"}
    out = tmp_path / "site"
    rendered = kb("render", "--root", repo.root, "--out", out)
    assert rendered.code == 0, rendered.err
    assert (out / "index.md").is_file()


# ---- a repository git refuses, and git calls that change nothing -----------------------------------

@pytest.mark.parametrize("args", [(), ("--staged",), ("--base", "HEAD")])
def test_a_repository_git_refuses_for_its_owner_says_what_to_set(kb, tmp_path, monkeypatch, args):
    """Another user's checkout without safe.directory (CI containers): a known condition, exit 2 and one
    line naming the setting, not a 39-line traceback read as findings."""
    root = tmp_path / "kb"
    story_until(root, 4)
    monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")  # git's own switch for this check
    for cache in ("on", "off"):
        monkeypatch.setenv("INCIDENT_KB_CACHE", cache)
        result = kb("check", "--root", root, *args)
        assert (result.code, result.out) == (2, ""), result.err
        assert result.err.count("\n") == 1 and result.err.startswith("kb: git refuses to read "), result.err
        assert f"git config --global --add safe.directory {root}" in result.err


def test_kb_s_own_git_calls_leave_the_index_alone(kb, tmp_path):
    """After a touch (or an edit undone), `git diff` refreshes the index unless told not to: kb's reads
    take --no-optional-locks, so .git/index is never rewritten and the second run is already warm."""
    import os
    import time

    from incident_kb.check import pipeline

    root = tmp_path / "kb"
    story_until(root, 4)
    kb("check", "--root", root)
    index = root / ".git/index"
    before = index.stat()
    time.sleep(0.05)
    for path in (root / "docs").rglob("*.md"):
        os.utime(path)  # a touch: the index's stat data no longer matches
    runs = []
    original = pipeline.check_knowledge_base
    pipeline.check_knowledge_base = lambda *a, **k: runs.append(1) or original(*a, **k)
    try:
        first, second = kb("check", "--root", root), kb("check", "--root", root)
    finally:
        pipeline.check_knowledge_base = original
    after = index.stat()
    assert (after.st_mtime_ns, after.st_ino, after.st_size) == (before.st_mtime_ns, before.st_ino, before.st_size)
    assert first == second and runs == [1]  # the touch is seen once; the second run is remembered


def test_an_edit_within_the_second_the_index_was_written_is_seen(kb, tmp_path, monkeypatch):
    """git tells such an edit ('racy git') by comparing with the index file's own time: kb's private copy
    of the index keeps that time, or a same-size edit with its times put back would pass unseen."""
    import os

    root = tmp_path / "kb"
    repo, _ = story_until(root, 5)  # all fresh: the docs were updated last
    repo.git("config", "core.trustctime", "false")  # so that only the file's times tell, as on some systems
    knob = root / "knobs/sglang-sm120-mma-target-ctas.yaml"
    written = knob.stat()
    knob.write_text(knob.read_text().replace("value: 512", "value: 640"))  # the same size
    os.utime(knob, ns=(written.st_atime_ns, written.st_mtime_ns))
    os.utime(root / ".git/index", ns=(written.st_atime_ns, written.st_mtime_ns))  # written in that second
    monkeypatch.setenv("INCIDENT_KB_CACHE", "off")
    found = kb("check", "--root", root)
    assert "stale-doc" in found.out and "value 512 -> 640 in uncommitted changes" in found.out, found.out


@pytest.mark.parametrize("state", ["branch", "detached", "shallow", "branch named like a tag", "no commits"])
def test_the_repository_s_state_asked_at_once_is_what_git_says_one_by_one(tmp_path, state):
    """gitio.open_repository asks HEAD's commit, shallowness and branch in one git process; the state
    is what `git rev-parse HEAD`, `--is-shallow-repository` and `symbolic-ref` say each on its own."""
    from incident_kb.history import gitio

    repo, ids = story_until(tmp_path / "origin", 2) if state != "no commits" else (GitRepo(tmp_path / "origin"), [])
    root = repo.root
    if state == "detached":
        repo.git("checkout", "-q", "--detach", ids[1])
    elif state == "shallow":
        clone = GitRepo(tmp_path / "clone", init=False)
        GitRepo(tmp_path).git("clone", "-q", "--depth", "1", f"file://{root}", str(clone.root))
        root = clone.root
    elif state == "branch named like a tag":
        repo.git("tag", repo.git("symbolic-ref", "--short", "HEAD"))
    git = GitRepo(root, init=False)
    with gitio.open_repository(root) as opened:
        asked_at_once = gitio._opened[id(opened)].head is not None
        found = gitio.repository_state(opened, root)
    assert asked_at_once == (state != "no commits")  # without a commit: asked one by one, as before
    head = git.git("rev-parse", "--verify", "--quiet", "HEAD^{commit}", check=False) or None
    branch = git.git("symbolic-ref", "-q", "--short", "HEAD", check=False) or None
    assert found.head == head and found.shallow == (state == "shallow")
    assert (found.branch is None) == (branch is None) and (state == "detached") == (branch is None)
