"""The mutation check of the cache's differential test (test_differential.py): each input dropped from
the keys in turn, the same kind of random sequences must find a cached `kb check` that prints other than
a cold one. A differential test that could not fail would prove nothing. (A file of its own, so that
`make test`'s workers share the two files' minutes.)"""

from __future__ import annotations

import math

import pytest

from ..conftest import one_fast
from ..differential import run_sequences


def _view_without(monkeypatch, field: str, where=("check_memo", "timelines")) -> None:
    """git's view as read, with one of its parts always the same (so no key can tell it changed)."""
    import dataclasses

    from incident_kb.check import memo as check_memo
    from incident_kb.history import git_view, timelines

    original = git_view.read_git_view

    def blind(folder, changed_after):
        view = original(folder, changed_after)
        return dataclasses.replace(view, **{field: () if field == "files" else ""})

    for module in {"check_memo": check_memo, "timelines": timelines}.values() if where == ("check_memo", "timelines") \
            else [check_memo if name == "check_memo" else timelines for name in where]:
        monkeypatch.setattr(module, "read_git_view", blind)


def _probes_without(monkeypatch, kind: str) -> None:
    from incident_kb.repository import files

    original = files.Probes.changed

    def blind(self):
        changed_files, changed_folders = original(self)
        return ([], changed_folders) if kind == "files" else (changed_files, [])

    monkeypatch.setattr(files.Probes, "changed", blind)


def _walk_key_without_the_view(monkeypatch) -> None:
    """The history walk remembered whatever git's view of history (as before issue 18)."""
    import dataclasses

    from incident_kb.history import git_view, timelines

    original = git_view.read_git_view
    monkeypatch.setattr(timelines, "read_git_view", lambda folder, changed_after: dataclasses.replace(
        original(folder, changed_after), state="", config="", boundary="", files=("",)))


def _run_key_without_the_date(monkeypatch) -> None:
    from incident_kb.check import memo as check_memo

    original = check_memo.run_key
    monkeypatch.setattr(check_memo, "run_key", lambda root, today, allow_shallow: [
        *original(root, today, allow_shallow)[:1], *original(root, today, allow_shallow)[2:]])


def _records_by_path_alone(monkeypatch) -> None:
    """The record cache keyed by a record's path, not by its content."""
    from incident_kb.records import record_cache

    monkeypatch.setattr(record_cache, "blob_id", lambda data: "same")


EDITS = ("material_edit", "doc_edit", "commit")
# The settings that change most what git reports about docs made executable or CRLF, at the level no other
# overrides (a setting in the environment changes the run's key anyway).
CONFIG_THAT_SHOWS = (("core.fileMode", "core.autocrlf"), ("local", "local", "local", "unset"))
# Each input, what drops it, and the operations that change it (with the edits that make it show).
MUTATIONS = {
    "HEAD": (lambda patch: _view_without(patch, "head"), ("reset", "amend", "branch", *EDITS)),
    "the shallow boundary": (lambda patch: _view_without(patch, "boundary"), ("shallow", "shallow", "unshallow",
                                                                          "material_edit", "commit")),
    "git's configuration": (lambda patch: _view_without(patch, "config"), ("config", "config", "chmod", "crlf",
                                                                          "material_edit")),
    "git's own files (index, ignore, attributes)": (lambda patch: _view_without(patch, "files"),
                                                    ("attributes", "crlf", "config", "stage_some", *EDITS)),
    "a look at a file": (lambda patch: _probes_without(patch, "files"), ("deploy_edit", "same_size_edit", *EDITS)),
    "a folder's listing": (lambda patch: _probes_without(patch, "listings"), ("record_added", "record_removed",
                                                                              *EDITS)),
    "the history walk's view of git": (_walk_key_without_the_view, ("shallow", "unshallow", "config", *EDITS)),
    "the date rules count from": (_run_key_without_the_date, ("today", "today", *EDITS)),
    "a record's content (the record cache)": (_records_by_path_alone, ("material_edit", "record_added", "doc_edit")),
}


# The record cache's case is quick: the one `make test-fast` runs.
@pytest.mark.parametrize("dropped", one_fast(MUTATIONS, fast="a record's content (the record cache)"))
def test_dropping_an_input_from_the_keys_is_caught(tmp_path, monkeypatch, dropped):
    mutate, operations = MUTATIONS[dropped]
    mutate(monkeypatch)
    # Bounded by comparisons, not seconds: the worlds are seeded, so the same sequences run however busy
    # the machine is (a 90 s budget ran out after 83 comparisons at load 10 to 20, before the difference).
    difference, compared = run_sequences(tmp_path, math.inf, operations=operations, max_steps=150, modes=False,
                                         config=CONFIG_THAT_SHOWS)
    assert difference is not None, f"{compared} comparisons without {dropped} in the keys found no difference"
