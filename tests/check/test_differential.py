"""The property the cache rests on: for any sequence of edits, git operations and configuration
changes, a cached `kb check` prints exactly what a cold one prints (stdout, stderr, exit code), in
every format, plain, --staged and --base. Seeded random sequences run for a fixed time budget
(`KB_DIFFERENTIAL_SECONDS`, default 60) in the full suite; `make test-fast` stops after 20 comparisons.
A failure names the seed and every operation before it.

The mutation check drops one input from the keys at a time and requires the same kind of sequences
to find a difference: a differential test that could not fail would prove nothing."""

from __future__ import annotations

import math
import os
import time

import pytest

from ..conftest import one_fast
from ..differential import OPERATIONS, Skip, World

BUDGET = float(os.environ.get("KB_DIFFERENTIAL_SECONDS", "60"))
STEPS = 40  # a world's sequence; then a new world with the next seed
PALETTE = 4  # each world draws from a few kinds of operation (swarm testing: interactions come up more often)
ALWAYS = ("material_edit", "doc_edit", "commit")  # what makes findings for the others to move


def run_sequences(folder, seconds: float, operations: tuple[str, ...] | None = None, first_seed: int = 0,
                  max_steps: int | None = None, modes: bool = True,
                  config: tuple[tuple[str, ...], tuple[str, ...]] | None = None) -> tuple[str | None, int]:
    """Random sequences until the budget is spent (or `max_steps`): the first difference found, with
    its seed and the operations before it, and how many comparisons were made. Each world draws from
    `operations`, or else from a palette of its own: a few kinds of operation and the edits."""
    deadline = time.monotonic() + seconds
    compared, seed = 0, first_seed
    while time.monotonic() < deadline and (max_steps is None or compared < max_steps):
        world = World(folder / f"seed-{seed}", seed)
        world.modes = modes
        if config is not None:  # the keys and levels op_config draws from
            world.config_keys, world.config_levels = config
        palette = operations or (*world.rng.sample(sorted(OPERATIONS), PALETTE), *ALWAYS)
        done: list[str] = []
        for _ in range(STEPS):
            name = world.rng.choice(palette)
            try:
                done.append(OPERATIONS[name](world))
            except Skip:
                continue
            difference = world.compare()
            compared += 1
            if difference is not None:
                return f"seed {seed}, after: {'; '.join(done)}\n{difference}", compared
            if time.monotonic() > deadline or (max_steps is not None and compared >= max_steps):
                break
        seed += 1
    return None, compared


@pytest.mark.parametrize("max_steps", [pytest.param(20, id="twenty-comparisons"),
                                       pytest.param(None, id="the-whole-budget", marks=pytest.mark.slow)])
def test_a_cached_run_prints_what_a_cold_run_prints(tmp_path, max_steps):
    difference, compared = run_sequences(tmp_path, BUDGET, max_steps=max_steps)
    assert difference is None, difference
    assert compared >= 20, f"only {compared} comparisons in {BUDGET} s"


# ---- the mutation check: each input dropped from the keys in turn must be caught ----------------------

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
