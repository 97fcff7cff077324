"""PR mode (`kb check --base REF`): which of today's findings already existed at REF.

The knowledge base at REF is checked from its files as committed there (written to a temporary
folder from git's objects: no second checkout, the work tree is untouched) with the history up to
REF. A finding of today matches one at REF with the same code, file, record and message (numbers
in the message, such as line numbers, may differ); matched findings are pre-existing: they are
reported as warnings marked "pre-existing at REF" and do not fail the run. Nothing here decides
what is a finding; it only compares two checks.
"""

from __future__ import annotations

import os
import tempfile
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from .findings import Finding, KbError, Severity
from .history.gitio import NotARepository, iter_blobs, list_tree, open_repository, repository_state, resolve_commit
from .pipeline import KnowledgeBase, check_knowledge_base
from .records.schema import RecordKind

if TYPE_CHECKING:
    import git

_Key = tuple[str, str, str | None, str]  # code, file, record, message


def check_at_base(root: Path, ref: str, *, allow_shallow: bool = False,
                  today: date | None = None) -> tuple[str, list[Finding]]:
    """(commit id, findings) of the knowledge base at `root` as it stood at commit `ref`."""
    try:
        with open_repository(root) as repo:
            state = repository_state(repo, root)
            commit = resolve_commit(repo, ref)
            if commit is None:
                raise KbError(f"--base {ref}: no such commit in {state.toplevel}; fetch it first (e.g. `git fetch "
                              f"origin main` and --base origin/main; in CI check out with `fetch-depth: 0`)")
            with tempfile.TemporaryDirectory(prefix="kb-base-") as folder:
                base_root = Path(folder)
                _write_tree(repo, commit, state.prefix, base_root)
                if not any((base_root / kind.folder).is_dir() for kind in RecordKind):
                    return commit, []  # no knowledge base there yet: everything today is new
                kb = check_knowledge_base(base_root, allow_shallow=allow_shallow, repo_folder=root, rev=commit,
                                          today=today)
                return commit, _relocated(kb, base_root)
    except NotARepository as exc:
        raise KbError(f"--base needs the git history: {exc}; run kb check --base inside a clone of the "
                      "repository") from None


def mark_pre_existing(findings: Sequence[Finding], base: Sequence[Finding], ref: str) -> tuple[list[Finding], int]:
    """Today's findings with those already present at the base marked, and how many were."""
    exact = Counter(_exact_key(f) for f in base)
    loose = Counter(f.identity for f in base)
    matched = [_take(exact, _exact_key(f)) for f in findings]
    for i, f in enumerate(findings):
        if matched[i]:
            loose[f.identity] -= 1
    # Second pass: the same finding with other numbers in its message (it moved a few lines).
    matched = [m or _take(loose, f.identity) for m, f in zip(matched, findings)]
    marked = [_as_pre_existing(f, ref) if m else f for f, m in zip(findings, matched)]
    return marked, sum(matched)


def _exact_key(f: Finding) -> _Key:
    return f.code, f.path, f.subject, f.message


def _take(counter: Counter[_Key], key: _Key) -> bool:
    if counter[key] > 0:
        counter[key] -= 1
        return True
    return False


def _as_pre_existing(f: Finding, ref: str) -> Finding:
    return replace(f, severity=Severity.WARNING, message=f"pre-existing at {ref} ({f.severity}): {f.message}")


def _relocated(kb: KnowledgeBase, base_root: Path) -> list[Finding]:
    """Findings at the base, with the temporary folder's name taken out of their messages."""
    prefix = str(base_root)
    return [replace(f, message=f.message.replace(prefix, ".")) if prefix in f.message else f for f in kb.findings]


def _write_tree(repo: git.Repo, commit: str, prefix: str, dest: Path) -> None:
    """Write the files under `prefix` at `commit` into `dest`, straight from git's objects."""
    entries = list_tree(repo, commit, prefix)
    paths_of: dict[str, list[tuple[str, str]]] = {}
    for entry in entries:
        target = dest / entry.path
        target.parent.mkdir(parents=True, exist_ok=True)
        if entry.kind == "blob":
            paths_of.setdefault(entry.blob, []).append((entry.path, entry.mode))
        else:
            target.mkdir(exist_ok=True)  # a submodule: its folder exists, its content is not ours
    for blob, content in iter_blobs(repo, paths_of):
        for path, mode in paths_of[blob]:
            target = dest / path
            if mode == "120000":
                os.symlink(content.decode("utf-8", "surrogateescape"), target)
            else:
                target.write_bytes(content)

