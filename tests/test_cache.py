"""The caches of parsed records and of the history pass: used when they may be, invisible in
results (a cached run prints exactly what a cold run prints), kept in the user's cache folder (never
in the repository), and never trusted blindly."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import time

import pytest

from incident_kb import cache
from incident_kb.check import pipeline
from incident_kb.check.pipeline import check_knowledge_base, material_changes
from incident_kb.history import memo
from incident_kb.records import record_cache

from .conftest import REPO, one_fast
from .gitrepo import GitRepo

_spec = importlib.util.spec_from_file_location("bench_git_history", REPO / "bench" / "git_history.py")
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)

@pytest.fixture(autouse=True)
def no_git_configuration(git_env):
    """Git as the tests' repositories are made (conftest gives each test its own user cache)."""


def store_of(root):
    """The folder of a knowledge base's store in the user's cache folder."""
    found = cache.open_store(root)
    assert found is not None
    return found.folder


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
    assert {p.name for p in store_of(repo).iterdir()} >= {"records", "material-fields", "check-result", "repository"}
    assert (store_of(repo) / "repository").read_text() == f"{os.path.realpath(repo)}\n"
    assert not (repo / ".cache").exists()  # nothing in the repository
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


def _forged(entry, entry_name):
    """The entry rewritten to say every record is fine and there is no finding, well-formed."""
    header, _, body = entry.read_bytes().partition(b"\n")
    values = json.loads(body)
    if entry_name == "records":
        for row in values["rows"].values():
            row[1] = []  # no findings
    else:
        values["result"] = {"findings": [], "summary": "all good", "notes": []}
    body = json.dumps(values).encode()
    parts = header.split(b" ")
    return b" ".join([*parts[:4], cache.hashlib.sha256(body).hexdigest().encode()]) + b"\n" + body


@pytest.mark.parametrize("entry_name", ["records", "check-result"])
@pytest.mark.parametrize("tamper", one_fast(["flip a byte", "truncate", "written by another user", "writable by others",
                                             "a link in its place"]))
def test_a_corrupt_or_foreign_entry_is_ignored_and_rebuilt(kb, repo, monkeypatch, tmp_path, tamper, entry_name):
    expected = cold(kb, repo, monkeypatch)
    assert kb("check", "--root", repo) == expected
    store = store_of(repo)
    if entry_name == "records":  # the remembered result would be printed before records are read
        (store / "check-result").unlink()
    entry = store / entry_name
    blob = entry.read_bytes()
    if tamper == "flip a byte":
        entry.write_bytes(blob[:-10] + bytes([blob[-10] ^ 1]) + blob[-9:])
    elif tamper == "truncate":
        entry.write_bytes(blob[: len(blob) // 2])
    elif tamper == "a link in its place":
        (tmp_path / "forged").write_bytes(_forged(entry, entry_name))
        entry.unlink()
        entry.symlink_to(tmp_path / "forged")
    else:  # well-formed, but another user's to write
        entry.write_bytes(_forged(entry, entry_name))
        if tamper == "written by another user":
            if os.geteuid() != 0:
                pytest.skip("only root can give a file to another user")
            os.chown(entry, 4242, -1)
        else:
            entry.chmod(0o666)
    # What the bad entry would have spared runs again: parsing every record, or the whole check.
    module, name = (record_cache, "parse_yaml_bytes") if entry_name == "records" else \
        (pipeline, "check_knowledge_base")
    with monkeypatch.context() as patch:
        calls = []
        original = getattr(module, name)
        patch.setattr(module, name, lambda *args, **kwargs: calls.append(1) or original(*args, **kwargs))
        assert kb("check", "--root", repo) == expected
        assert len(calls) == (160 if entry_name == "records" else 1)  # nothing taken from the bad entry
    if entry_name == "records":
        (store / "check-result").unlink()
    with monkeypatch.context() as patch:  # and the entry was rebuilt
        forbid(patch, module, name)
        assert kb("check", "--root", repo) == expected


def test_the_pr_check_and_authoring_leave_no_cache_behind(kb, repo, user_cache):
    first = GitRepo(repo, init=False).git("rev-list", "--max-parents=0", "HEAD")
    kb("check", "--root", repo, "--base", first)
    kb("validate", "--root", repo)
    assert not (repo / ".cache").exists() and not user_cache.exists()


def test_a_cache_folder_inside_the_repository_is_not_used(kb, repo, monkeypatch, tmp_path):
    """A CI set-up that caches a folder of the checkout: anyone who commits could plant entries there."""
    expected = cold(kb, repo, monkeypatch)
    for inside in (repo / ".cache", repo / "knobs"):
        monkeypatch.setenv("XDG_CACHE_HOME", str(inside))
        monkeypatch.setattr(cache, "_warned", set())
        for _ in range(2):
            found = kb("check", "--root", repo)
            assert (found.code, found.out) == (expected.code, expected.out)
            warning = found.err.removeprefix(expected.err).splitlines()
            assert len(warning) == 1 and warning[0].startswith("kb: warning: the cache folder ") and \
                "inside the repository" in warning[0] and "XDG_CACHE_HOME" in warning[0], found.err
            monkeypatch.setattr(cache, "_warned", set())
        assert not (inside / "incident-kb").exists()
    link = tmp_path / "outside-link"  # a link from outside into the repository is inside it too
    link.symlink_to(repo / ".cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(link))
    assert "inside the repository" in kb("check", "--root", repo).err


def test_a_linked_cache_folder_is_neither_read_nor_written(kb, repo, tmp_path, monkeypatch, user_cache):
    expected = cold(kb, repo, monkeypatch)
    assert kb("check", "--root", repo) == expected
    store = store_of(repo)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.rmtree(store)
    store.symlink_to(elsewhere)  # someone else's folder, through a link
    assert kb("check", "--root", repo) == expected
    assert list(elsewhere.iterdir()) == []


def test_cache_off_writes_nothing(kb, repo, monkeypatch, user_cache):
    cold(kb, repo, monkeypatch)
    assert not (repo / ".cache").exists() and not user_cache.exists()


@pytest.mark.parametrize("problem", ["read-only", "full"])
def test_a_cache_that_cannot_be_written_leaves_nothing_behind_and_changes_no_result(kb, repo, monkeypatch, problem):
    expected = cold(kb, repo, monkeypatch)
    store = store_of(repo)
    if problem == "read-only":
        store.chmod(0o500)
        if os.geteuid() == 0:  # root writes anyway: make the writes fail as a read-only disk would
            monkeypatch.setattr(cache.os, "open", _failing(cache.os.open, errno_name="EROFS"))
    else:
        monkeypatch.setattr(cache.os, "fdopen", _writes_fail(cache.os.fdopen))
    for _ in range(2):
        assert kb("check", "--root", repo) == expected
    store.chmod(0o700)
    assert sorted(p.name for p in store.iterdir()) == ["repository"]  # no entry, no temporary file


def _failing(original, errno_name):
    import errno as errnos

    def open_(path, flags, *args, **kwargs):
        if flags & os.O_CREAT:
            raise OSError(getattr(errnos, errno_name), os.strerror(getattr(errnos, errno_name)), str(path))
        return original(path, flags, *args, **kwargs)
    return open_


def _writes_fail(original):
    """`os.fdopen` whose files fail to write as on a full disk, after part of the bytes."""
    import errno as errnos

    class Full:
        def __init__(self, handle):
            self.handle = handle

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.handle.close()

        def write(self, data):
            self.handle.write(data[: len(data) // 2])
            self.handle.flush()
            raise OSError(errnos.ENOSPC, "No space left on device")

    return lambda fd, mode="r", *args, **kwargs: Full(original(fd, mode, *args, **kwargs)) if "w" in mode \
        else original(fd, mode, *args, **kwargs)


def test_a_record_is_read_again_only_when_its_status_changed(kb, repo, monkeypatch):
    time.sleep(3.1)  # the clone's files settle: a status is trusted only when later changes would show
    expected = cold(kb, repo, monkeypatch)
    assert kb("check", "--root", repo) == expected  # reads every record, and keeps each one's status
    reads: list[str] = []
    original = record_cache.read_bounded
    monkeypatch.setattr(record_cache, "read_bounded", lambda path, *a: reads.append(path) or original(path, *a))
    (store_of(repo) / "check-result").unlink()  # so that the records are loaded, not the result
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
    original = cache.Store.read
    monkeypatch.setattr(cache.Store, "read", lambda self, name, key: (name == "records" and read.append(name))
                        or original(self, name, key))
    assert check_knowledge_base(repo).findings == first.findings and read == []
    knob = sorted((repo / "knobs").iterdir())[5]
    knob.write_text(knob.read_text().replace("status: active", "status: ACTIVE", 1))
    changed = check_knowledge_base(repo).findings
    monkeypatch.setenv("INCIDENT_KB_CACHE", "off")
    assert changed == check_knowledge_base(repo).findings != first.findings
    assert read == []


def test_every_record_reads_back_from_the_cache_as_the_same_model(tmp_path):
    """The record cache keeps a model as JSON only when it reads back as the same model (else the file
    is parsed on every run): on every fixture knowledge base, every model does, so the cache is used."""
    from .check.test_recheck import fixture_roots

    models = 0
    roots = {**fixture_roots(tmp_path), "this repository": REPO}  # its knob has measurements with runs
    for name, root in roots.items():
        loaded = pipeline.load_records(root, {}, cache=False)
        for record in (*loaded.catalog.knobs.values(), *loaded.catalog.incidents.values()):
            assert type(record).model_validate_json(record.model_dump_json(exclude_unset=True)) == record, \
                (name, record.id)
            models += 1
    assert models > 100


def test_after_an_amend_or_a_reset_the_history_pass_continues_from_a_walk_it_kept(kb, repo, monkeypatch):
    """The last few walks are kept by head: an amended commit, a reset or a switch back continues from
    the one on its mainline, reading only the commits since, never the whole history again."""
    git = GitRepo(repo, init=False)
    knob = sorted((repo / "knobs").iterdir())[3]
    for n, when in enumerate(("2026-12-01T00:00:00Z", "2026-12-02T00:00:00Z")):
        knob.write_text(knob.read_text().replace("value: ", f"value: {n + 1}", 1))
        git.commit(f"change {n}", when)
        assert kb("check", "--root", repo) == cold(kb, repo, monkeypatch)
    reads = []
    original = memo.read_log
    monkeypatch.setattr(memo, "read_log", lambda repo, rev, paths, *ahead: reads.append(rev)
                        or original(repo, rev, paths, *ahead))
    git.git("commit", "-q", "--amend", "-m", "change 1, amended", when="2026-12-03T00:00:00Z")
    assert kb("check", "--root", repo) == cold(kb, repo, monkeypatch)
    git.git("reset", "-q", "--hard", "HEAD~1")
    assert kb("check", "--root", repo) == cold(kb, repo, monkeypatch)
    # The amend continued from the walk kept at its parent (one commit read), the reset found the walk
    # kept at that commit (nothing read); the cold runs walked the whole history each time.
    parent = git.git("rev-parse", "HEAD")
    assert len(reads) == 3 and reads[0].startswith(f"{parent}..") and reads[2] == parent, reads


def test_a_process_memo_keeps_values_only_within_its_blocks_and_nested_ones_share_them():
    from incident_kb.cache import ProcessMemo

    memo: ProcessMemo[str, int] = ProcessMemo()
    assert memo.entries is None  # outside any block: nothing kept
    with memo.active():
        assert memo.entries == {}
        memo.entries["a"] = 1
        with memo.active():  # an inner block (--staged's check of HEAD) sees what the outer one kept
            assert memo.entries == {"a": 1}
            memo.entries["b"] = 2
        assert memo.entries == {"a": 1, "b": 2}
    assert memo.entries is None
    with memo.active():  # a new block starts empty
        assert memo.entries == {}
