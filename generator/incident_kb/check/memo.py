"""The last `kb check` result, remembered with everything it was computed from, so that checking an
unchanged knowledge base again costs a look at each input and three git calls, not a check.

What a result depends on, all of it in the key or the entry:
- the run: the knowledge base's real path, the reference date, --allow-shallow, the environment git
  reads (GIT_*, HOME, XDG_CONFIG_HOME), this code and the installed distributions (the store's
  fingerprint);
- git's view (`history.git_view`): HEAD, the branch, the shallow boundary, the effective
  configuration at every level, the index, ignore and attributes files git reads;
- every look the check made at the repository, written down by `repository/files.py` (the one module
  that looks): each path it read or looked at by its signature, each folder it listed by its
  entries, and the `.gitignore` and `.gitattributes` files in the folders on the way to them.
git's view is taken before the check runs and each path at its first look, so an input that changes
while the check runs shows as changed next time. A file changed in the seconds before is signed by
its content too: a second change within the clock's granularity would not show in its times.

The entry lives in the knowledge base's store (`incident_kb.cache`: outside the repository, JSON).
Imports nothing heavy: on a hit, no record is parsed and no model is built. When only record files
changed, the caller's re-check continues from the ledger kept with the result (`recheck.py`: only
the records the edit reaches), instead of a whole check.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from ..cache import Store, open_store
from ..findings import Finding, finding_from_json
from ..history.git_view import GitView, read_git_view
from ..records.vocabulary import record_kind_of
from ..repository.files import SETTLE_NS, Probes, probes_recorded, real_path, resigned, signature

_NAME = "check-result"
_GIT_FILES = (".gitignore", ".gitattributes")
# Findings of what kb could not read (a partial clone's missing versions): a result with one is never remembered.
NOT_REMEMBERED = ("missing-history",)  # read by git in every folder on a path's way


@dataclass(frozen=True)
class Result:
    """What `kb check` prints: its findings, summary line and notes."""

    findings: tuple[Finding, ...]
    summary: str
    notes: tuple[str, ...]

    def to_json(self) -> dict[str, object]:
        return {"findings": [item.to_json() for item in self.findings], "summary": self.summary,
                "notes": list(self.notes)}

    @classmethod
    def from_json(cls, values: dict[str, Any]) -> Result:
        return cls(tuple(finding_from_json(item) for item in values["findings"]), values["summary"],
                   tuple(values["notes"]))


Checked = tuple[Result, Any]  # a result, and the ledger `recheck` continues from, as JSON text (None: none)


def check_remembering(root: Path, today: date, allow_shallow: bool, check: Callable[[GitView | None], Checked],
                      recheck: Callable[[str, list[str], bool], Checked | None] = lambda *args: None) -> Result:
    """The remembered result while nothing it was computed from changed; else `recheck(ledger,
    edited, moved)` when only record files were edited (regular files before and after) and, with
    `moved`, git's view moved, or `check(view)`; the new result is remembered with git's view taken
    before it ran (`view`, which the check's history pass reads instead of asking git again) and every
    look it made."""
    store = open_store(root)
    if store is None:
        return check(None)[0]
    since = time.time_ns() - SETTLE_NS  # a file changed since is signed by its content too
    view = read_git_view(root, since)
    if view is None:  # git's view cannot be known: nothing is remembered
        return check(None)[0]
    key = run_key(root, today, allow_shallow)
    found = store.read(_NAME, key)
    entry: dict[str, Any] = found if isinstance(found, dict) and _is_entry(found) else {}
    edited: list[str] | None = None
    kept: Probes | None = None
    moved = False
    if entry:
        moved = [resigned(seen, since) for seen in entry["view"][-1]] != list(view.files) or \
            entry["view"][:-1] != view.as_key()[:-1]
        before = Probes(entry["changed_after"], entry["files"], entry["listings"])
        files, folders = before.changed()
        if not files and not folders and not moved:
            return Result.from_json(entry["result"])
        if not folders and entry["ledger"] is not None:
            edited = _edited_records(root, files, before)
        kept = before
    with probes_recorded(since) as probes:
        done = recheck(entry["ledger"], edited, moved) if edited is not None else None
        if done is None:
            kept = None
            done = check(view)
    result, ledger = done
    if any(item.code in NOT_REMEMBERED for item in result.findings):
        return result  # what kb could not know: asked anew next time
    _remember(store, key, root, view, since, probes, kept, result, ledger)
    return result


def run_key(root: Path, today: date, allow_shallow: bool) -> list[object]:
    """What a result depends on besides git and the files it looked at: the run and the environment
    git reads its configuration through."""
    environment = sorted([name, value] for name, value in os.environ.items()
                         if name.startswith("GIT_") or name in ("HOME", "XDG_CONFIG_HOME"))
    return [real_path(root), today.isoformat(), allow_shallow, environment]


def _is_entry(entry: object) -> bool:
    return (isinstance(entry, dict)
            and {"changed_after", "view", "files", "listings", "result", "ledger"} <= entry.keys())


def _edited_records(root: Path, changed: list[str], before: Probes) -> list[str] | None:
    """The changed paths as root-relative record files, when each is one and was and is a regular
    file; else None."""
    prefix = os.path.join(real_path(root), "")
    edited = []
    for path in changed:
        rel = path[len(prefix):].replace(os.sep, "/") if path.startswith(prefix) else None
        if rel is None or record_kind_of(rel) is None or not _is_regular(before.files[path]) or \
                not _is_regular(signature(path, before.changed_after)):
            return None
        edited.append(rel)
    return edited


def _is_regular(seen: str) -> bool:
    own = seen.partition(":")[2].partition("|")[0]
    return own[:1].isdigit() and stat.S_ISREG(int(own.partition(",")[0]))


def _remember(store: Store, key: list[object], root: Path, view: GitView, since: int, probes: Probes,
              kept: Probes | None, result: Result, ledger: str | None) -> None:
    files = {path: resigned(seen, since) for path, seen in kept.files.items()} if kept is not None else {}
    files.update(probes.files)
    listings = {**(kept.listings if kept is not None else {}), **probes.listings}
    top = view.state.split("\n")[2] if view.state.count("\n") >= 2 else real_path(root)
    for folder in _folders_on_the_way(top, [*files, *(os.path.join(folder, "") for folder in listings)]):
        for name in _GIT_FILES:
            path = os.path.join(folder, name)
            if path not in files:
                files[path] = signature(path, since)
    store.write(_NAME, key, {"changed_after": since, "view": view.as_key(), "files": files, "listings": listings,
                             "result": result.to_json(), "ledger": ledger})


def _folders_on_the_way(top: str, paths: list[str]) -> set[str]:
    """Every folder from the top level down to each path's folder (those inside the top level)."""
    folders: set[str] = set()
    start = os.path.join(top, "")
    for path in paths:
        folder = os.path.dirname(path)
        while (folder + os.sep).startswith(start) and folder not in folders:
            folders.add(folder)
            folder = os.path.dirname(folder)
    return folders


def ledger_text(values: object) -> str:
    """A ledger as the entry keeps it: JSON text, parsed only when a re-check needs it."""
    return json.dumps(values, separators=(",", ":"), ensure_ascii=False)
