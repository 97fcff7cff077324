"""The last `kb check` result, remembered with everything it was computed from, so that checking an
unchanged knowledge base again costs a walk over its folders and two git calls, not a check.

What a result depends on, all of it in the key:
- the run: the knowledge base's path, the reference date, --allow-shallow, this code and the
  installed distributions (`disk_cache` signs entries with them);
- git: HEAD, the branch, whether the clone is shallow, and the index, ignore and configuration
  files (which decide what counts as an uncommitted change);
- every entry under the record and docs folders: kind, size, change times, link target, so a file
  edited, added, removed, renamed or made unreadable changes the key;
- every other path the run looked at (pyproject.toml, deploy files, files records name), by its
  `records.files.signature`, taken when it was looked at.
The state of the inputs is taken before the check runs, so an input that changes while it runs
shows as changed next time. A file changed in the seconds before is signed by its content too: a
second change within the clock's granularity would not show in its times. The entry lives with the other cache entries (`disk_cache`: signed, verified
before it is unpickled). Imports nothing heavy: on a hit, no record is parsed and no model is built.
When only record files were edited, the caller's re-check continues from the ledger kept with the
result (`recheck.py`: only the records the edit reaches), instead of a whole check.
"""

from __future__ import annotations

import os
import pickle
import stat
import subprocess
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from .findings import Finding
from .records.disk_cache import CACHE_FOLDER, read_entry, write_entry
from .records.files import SETTLE_NS, Signature, probes_recorded, resigned, signature
from .records.vocabulary import record_kind_of

_NAME = "check-result.pickle"
_GIT_FILES = ("index", "config", "info/exclude", "shallow", "HEAD")


@dataclass(frozen=True)
class Result:
    """What `kb check` prints: its findings, summary line and notes."""

    findings: tuple[Finding, ...]
    summary: str
    notes: tuple[str, ...]


Walk = dict[str, Signature]  # root-relative entry -> signature


@dataclass(frozen=True)
class _Entry:
    folders: tuple[str, ...]  # the watched folders, root-relative
    changed_after: int  # files changed after this (ns) are signed by their content too
    walk: Walk
    git: tuple[object, ...]
    probes: dict[str, Signature]
    result: Result
    ledger: bytes | None  # the check's ledger, pickled apart: a hit never unpickles (nor imports) it


Checked = tuple[Result, object]  # a result, and the ledger `recheck` continues from (None: no ledger)


def check_remembering(root: Path, today: date, allow_shallow: bool, folders: Sequence[str],
                      check: Callable[[], Checked],
                      recheck: Callable[[object, list[str]], Checked | None] = lambda ledger, edited: None) -> Result:
    """The remembered result while nothing it was computed from changed; else `recheck(ledger,
    edited)` when only record files were edited (regular files, none added or removed), or
    `check()`; the new result is remembered with the state of its inputs taken before it ran (as
    git's index does: whatever changes later shows in its times, or, for a file changed in the
    seconds before, in its content)."""
    key = _run_key(root, today, allow_shallow)
    since = time.time_ns() - SETTLE_NS  # a file changed since is signed by its content too
    entry = read_entry(root, _NAME, key)
    edited: list[str] | None = None
    probes_before: dict[str, Signature] = {}
    if isinstance(entry, _Entry) and entry.folders == tuple(folders):
        git, walk = _git_state(root, entry.changed_after), _walk(root, folders, entry.changed_after)
        if git == entry.git and all(signature(path, entry.changed_after) == seen for path, seen in entry.probes.items()):
            if walk == entry.walk:
                return entry.result
            edited = _edited_files(entry.walk, walk) if entry.ledger is not None else None
            probes_before = {path: resigned(seen, since) for path, seen in entry.probes.items()}
        git, walk = _resigned(git, since), {path: resigned(seen, since) for path, seen in walk.items()}
    else:
        git, walk = _git_state(root, since), _walk(root, folders, since)
    # The cache's own files are no input: a cached result is exactly what the check would give.
    unwatched = tuple(str(root.absolute() / folder) for folder in (*folders, str(CACHE_FOLDER)))
    with probes_recorded(unwatched, since) as probes:
        done = recheck(pickle.loads(entry.ledger), edited) if edited else None  # type: ignore[union-attr]
        if done is None:
            probes_before = {}
            done = check()
    result, ledger = done
    packed = pickle.dumps(ledger, pickle.HIGHEST_PROTOCOL) if ledger is not None else None
    write_entry(root, _NAME, key, _Entry(tuple(folders), since, walk, git, {**probes_before, **probes}, result, packed))
    return result


def _edited_files(before: Walk, now: Walk) -> list[str] | None:
    """The record files whose signature changed, when nothing else did but folders (whose times
    change when an editor saves by renaming); None when an entry came or went, or changed kind."""
    if before.keys() != now.keys():
        return None
    edited = []
    for path, seen in now.items():
        if seen == before[path]:
            continue
        kinds = {_kind(seen), _kind(before[path])}
        if kinds == {stat.S_IFDIR}:
            continue
        if kinds != {stat.S_IFREG} or record_kind_of(path) is None:
            return None
        edited.append(path)
    return edited


def _kind(seen: Signature) -> int | None:
    found = seen[0]
    return stat.S_IFMT(found[0]) if isinstance(found, tuple) else None


def _resigned(git: tuple[object, ...], since: int) -> tuple[object, ...]:
    parsed, branch, *files = git
    return (parsed, branch, *(resigned(seen, since) for seen in files))  # type: ignore[arg-type]


def _run_key(root: Path, today: date, allow_shallow: bool) -> tuple[object, ...]:
    environment = tuple(sorted((k, v) for k, v in os.environ.items() if k.startswith("GIT_")))
    return (str(root.absolute()), today.isoformat(), allow_shallow, environment)


def _walk(root: Path, folders: Iterable[str], since: int) -> Walk:
    """Every entry under the folders (and the folders themselves), by signature; links not followed."""
    seen: Walk = {}
    for folder in folders:
        seen[folder] = signature(os.path.join(root, folder), since)
        pending = [folder]
        while pending:
            current = pending.pop()
            try:
                entries = list(os.scandir(os.path.join(root, current)))
            except OSError as exc:
                seen[f"{current}: cannot list"] = (str(exc.errno),)
                continue
            for entry in entries:
                rel = f"{current}/{entry.name}"
                seen[rel] = signature(entry.path, since, whole=False)
                if entry.is_dir(follow_symlinks=False):
                    pending.append(rel)
    return seen


def _git_state(root: Path, since: int) -> tuple[object, ...]:
    """HEAD, the branch, shallowness, and the git files that decide what is an uncommitted change."""
    parsed = _git(root, "rev-parse", "--absolute-git-dir", "--show-toplevel", "--is-shallow-repository", "HEAD")
    branch = _git(root, "symbolic-ref", "-q", "HEAD")
    lines = parsed[1].splitlines() if isinstance(parsed[1], str) else []
    files: list[Signature] = []
    if len(lines) >= 2:
        files = [signature(os.path.join(lines[0], name), since) for name in _GIT_FILES]
        files += [signature(os.path.join(lines[1], ".gitignore"), since), signature(root / ".gitignore", since)]
    return (parsed, branch, *files)


def _git(root: Path, *args: str) -> tuple[int, str | None]:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, errors="surrogateescape")
    except OSError:
        return (-1, None)
    return (done.returncode, done.stdout)
