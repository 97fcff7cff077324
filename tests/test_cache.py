"""The caches of parsed records and of the history pass: used when they may be, invisible in
results (a cached run prints exactly what a cold run prints), and never trusted blindly."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import pickle
import time

import pytest

from generator import check_memo, pipeline
from generator.history import memo
from generator.pipeline import check_knowledge_base, material_changes
from generator.records import disk_cache, record_cache

from .conftest import REPO
from .gitrepo import GitRepo

_spec = importlib.util.spec_from_file_location("bench_git_history", REPO / "bench" / "git_history.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

CACHE = ".cache/incident-kb"


@pytest.fixture(autouse=True)
def own_cache_key(tmp_path, monkeypatch, git_env):
    """Each test has its own user cache folder (so its own key), like a fresh machine."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "user-cache"))
    monkeypatch.delenv("INCIDENT_KB_CACHE", raising=False)
    monkeypatch.setattr(disk_cache, "_key", None)


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """A small repository shaped like the benchmark's: records, docs, material and prose edits, renames."""
    folder = tmp_path_factory.mktemp("synthetic") / "kb"
    bench.synthesise(folder, 160, 480, 24)
    return folder


@pytest.fixture
def repo(synthetic, tmp_path):
    root = tmp_path / "kb"
    GitRepo(synthetic, init=False).git("clone", "-q", str(synthetic), str(root))
    return root


def cold(kb, root, monkeypatch, *args):
    monkeypatch.setenv("INCIDENT_KB_CACHE", "off")
    try:
        return kb("check", "--root", root, *args)
    finally:
        monkeypatch.delenv("INCIDENT_KB_CACHE")


def forbid(monkeypatch, module, name):
    def refuse(*args, **kwargs):
        raise AssertionError(f"{name} ran although its result was cached")
    monkeypatch.setattr(module, name, refuse)


def test_a_cached_run_prints_what_a_cold_run_prints(kb, repo, monkeypatch):
    expected = cold(kb, repo, monkeypatch)
    assert expected.code == 1 and "stale-doc" in expected.out  # the history pass matters here
    assert kb("check", "--root", repo) == expected  # fills the cache
    assert {p.name for p in (repo / CACHE).iterdir()} >= {"records.pickle", "material-fields.pickle", ".gitignore"}
    with monkeypatch.context() as patch:  # now nothing is parsed, and git's log is not read again
        forbid(patch, record_cache, "parse_yaml_bytes")
        forbid(patch, memo, "read_log")
        assert kb("check", "--root", repo) == expected

    # one record changed in the work tree, then committed, then more commits on top
    git = GitRepo(repo, init=False)
    knob = sorted((repo / "knobs").iterdir())[3]
    knob.write_text(knob.read_text().replace("status: active", "status: reverted\nkeep_reverted: vendor fix", 1)
                    .replace("value: ", "value: 1", 1))
    assert kb("check", "--root", repo) == cold(kb, repo, monkeypatch)
    git.commit("revert a knob", "2026-12-01T00:00:00Z")
    with monkeypatch.context() as patch:
        reads = []
        original = memo.read_log
        patch.setattr(memo, "read_log", lambda repo, rev, paths: reads.append(rev) or original(repo, rev, paths))
        cached = kb("check", "--root", repo)
        assert len(reads) == 1 and ".." in reads[0]  # only the new commit was read
    assert cached == cold(kb, repo, monkeypatch)
    doc = sorted((repo / "docs/design").iterdir())[0]
    doc.write_text(doc.read_text() + "\nReviewed again.\n")
    git.commit("review a doc", "2026-12-02T00:00:00Z")
    assert kb("check", "--root", repo) == cold(kb, repo, monkeypatch)


def test_timelines_come_out_the_same_from_the_cache(repo, monkeypatch):
    monkeypatch.setenv("INCIDENT_KB_CACHE", "off")
    expected = material_changes(repo)
    monkeypatch.delenv("INCIDENT_KB_CACHE")
    assert material_changes(repo) == expected
    with monkeypatch.context() as patch:
        forbid(patch, memo, "read_log")
        assert material_changes(repo) == expected
    assert sum(map(len, expected.values())) > 160  # creations and material changes of every record


@pytest.mark.parametrize("entry_name", ["records.pickle", "check-result.pickle"])
@pytest.mark.parametrize("tamper", ["flip a byte", "truncate", "forge with another key", "plant from the repository"])
def test_a_corrupt_or_foreign_entry_is_ignored_and_rebuilt(kb, repo, monkeypatch, tmp_path, tamper, entry_name):
    expected = cold(kb, repo, monkeypatch)
    assert kb("check", "--root", repo) == expected
    if entry_name == "records.pickle":  # the remembered result would be printed before records are read
        (repo / CACHE / "check-result.pickle").unlink()
    entry = repo / CACHE / entry_name
    blob = entry.read_bytes()
    if tamper == "flip a byte":
        entry.write_bytes(blob[:-10] + bytes([blob[-10] ^ 1]) + blob[-9:])
    elif tamper == "truncate":
        entry.write_bytes(blob[: len(blob) // 2])
    else:
        # An entry that says every record is fine and has no findings, signed with a key that is not
        # this user's (another machine's, or one the repository brought along with its .cache/).
        saved = pickle.loads(blob[len(disk_cache._MAGIC) + 32:])
        (fingerprint, key), entries = saved
        if entry_name == "records.pickle":
            records, statuses = entries
            forged = ({k: (record, (), packed, raw_id) for k, (record, _, packed, raw_id) in records.items()}, statuses)
        else:
            forged = dataclasses.replace(entries, result=check_memo.Result((), "all good", ()))
        monkeypatch.setattr(disk_cache, "_key", b"k" * 32)
        disk_cache.write_entry(repo, entry_name, key, forged)
        monkeypatch.setattr(disk_cache, "_key", None)
        if tamper == "plant from the repository":
            GitRepo(repo, init=False).git("add", "-f", CACHE)
            GitRepo(repo, init=False).git("commit", "-q", "-m", "a planted cache")
            expected = cold(kb, repo, monkeypatch)
    # What the bad entry would have spared runs again: parsing every record, or the whole check.
    module, name = (record_cache, "parse_yaml_bytes") if entry_name == "records.pickle" else \
        (pipeline, "check_knowledge_base")
    with monkeypatch.context() as patch:
        calls = []
        original = getattr(module, name)
        patch.setattr(module, name, lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs))
        assert kb("check", "--root", repo) == expected
        assert len(calls) == (160 if entry_name == "records.pickle" else 1)  # nothing taken from the bad entry
    if entry_name == "records.pickle":
        (repo / CACHE / "check-result.pickle").unlink()
    with monkeypatch.context() as patch:  # and the entry was rebuilt
        forbid(patch, module, name)
        assert kb("check", "--root", repo) == expected


def test_the_pr_check_and_authoring_leave_no_cache_behind(kb, repo):
    first = GitRepo(repo, init=False).git("rev-list", "--max-parents=0", "HEAD")
    kb("check", "--root", repo, "--base", first)
    kb("validate", "--root", repo)
    assert not (repo / ".cache").exists()


def test_a_linked_cache_folder_is_neither_read_nor_written(kb, repo, tmp_path, monkeypatch):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (repo / ".cache").mkdir()
    (repo / CACHE).symlink_to(elsewhere)  # as a repository could commit it
    expected = cold(kb, repo, monkeypatch)
    assert kb("check", "--root", repo) == expected
    assert list(elsewhere.iterdir()) == []
    (repo / CACHE).unlink()
    (repo / ".cache").rmdir()
    (repo / ".cache").symlink_to(elsewhere)
    assert kb("check", "--root", repo) == expected
    assert list(elsewhere.iterdir()) == []


def test_cache_off_writes_nothing_not_even_a_key(kb, repo, monkeypatch, tmp_path):
    cold(kb, repo, monkeypatch)
    assert not (repo / ".cache").exists() and not (tmp_path / "user-cache").exists()


def test_a_record_is_read_again_only_when_its_status_changed(kb, repo, monkeypatch):
    time.sleep(3.1)  # the clone's files settle: a status is trusted only when later changes would show
    expected = cold(kb, repo, monkeypatch)
    assert kb("check", "--root", repo) == expected  # reads every record, and keeps each one's status
    reads: list[str] = []
    original = record_cache.read_bounded
    monkeypatch.setattr(record_cache, "read_bounded", lambda path, *a: reads.append(path) or original(path, *a))
    (repo / CACHE / "check-result.pickle").unlink()  # so that the records are loaded, not the result
    assert kb("check", "--root", repo) == expected
    assert reads == []
    # The same size, the times put back: only the change time tells, and it does.
    knob = sorted((repo / "knobs").iterdir())[5]
    status = knob.stat()
    knob.write_text(knob.read_text().replace("status: active", "status: ACTIVE", 1))
    os.utime(knob, ns=(status.st_atime_ns, status.st_mtime_ns))
    after = kb("check", "--root", repo)
    # Only that record is read: by the re-check, which finds it broken, then by the whole check.
    assert reads == [str(knob), str(knob)]
    assert after == cold(kb, repo, monkeypatch) and after != expected


def test_a_long_lived_process_reads_the_records_entry_once(repo, monkeypatch):
    """`mkdocs serve` checks again after every save: the entry stays in memory, and stays right."""
    monkeypatch.setattr(record_cache, "_HELD", {})
    monkeypatch.setattr(record_cache, "_holding", False)
    record_cache.hold_in_memory()
    first = check_knowledge_base(repo)
    read = []
    original = record_cache.read_entry
    monkeypatch.setattr(record_cache, "read_entry", lambda *args: read.append(args) or original(*args))
    assert check_knowledge_base(repo).findings == first.findings and read == []
    knob = sorted((repo / "knobs").iterdir())[5]
    knob.write_text(knob.read_text().replace("status: active", "status: ACTIVE", 1))
    changed = check_knowledge_base(repo).findings
    monkeypatch.setenv("INCIDENT_KB_CACHE", "off")
    assert changed == check_knowledge_base(repo).findings != first.findings
    assert read == []
