"""PR mode (`kb check --base REF`): which of today's findings already existed at REF.

The knowledge base at REF is checked from its files as committed there, read from git's objects
(no checkout; the work tree is untouched) with the history up to REF. Only what the knowledge base
reads is read: its records, docs and configuration, then the files its records name (deploy
files, docs elsewhere). They go to a private temporary folder, every path checked first: a tree
entry with '..', an absolute path or an empty part stops the run (git itself would refuse to check
it out), and links are not written, so nothing lands outside that folder or is read through a link.

A finding of today is pre-existing when one at REF is the same finding: same code, file and record,
and the same field (its key path, e.g. 'measurements[1].delta_pct') with the same message, or that
message with only list positions changed (an item moved), or the same field with the same code
(its details changed); a finding made from no field needs the same message, numbers aside. Each
finding at REF accounts for one finding today. Matched findings are reported as warnings marked
"pre-existing at REF" and do not fail the run. Nothing here decides what is a finding; it only
compares two checks.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import replace
from datetime import date
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from .findings import Finding, KbError, Severity
from .history.gitio import NotARepository, Oversized, TreeEntry, iter_blobs, list_tree, open_repository, \
    repository_state, resolve_commit
from .pipeline import KnowledgeBase, check_knowledge_base, load_knowledge_base
from .records.links import files_named
from .records.writes import write_new_file
from .records.model import Catalog
from .records.docs_folder import MKDOCS_CONFIGS, ZENSICAL_TOML, docs_folder
from .records.vocabulary import RecordKind

if TYPE_CHECKING:
    import git

# The settings, and the site's configuration, which says where the docs are (records/docs_folder.py).
_CONFIG = ("pyproject.toml", *MKDOCS_CONFIGS, ZENSICAL_TOML)
# Above every reader's limit (deploy files: 10 MiB): a larger file at the base is laid out by its size
# alone, so the check refuses it as it would in the work tree, and git's bytes are never held.
_MAX_BLOB = 64 << 20
_INDEX = re.compile(r"\[\d+\]")
_NUMBER = re.compile(r"\b\d+\b")


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
            folders = [kind.folder for kind in RecordKind]
            entries = list_tree(repo, commit, state.prefix, [*folders, *_CONFIG])
            if not any(entry.path.split("/", 1)[0] in folders for entry in entries):
                return commit, []  # no knowledge base there yet (or not in this folder): everything today is new
            with tempfile.TemporaryDirectory(prefix="kb-base-") as folder:
                base_root = Path(folder)
                written = _write_entries(repo, entries, base_root, ref)
                docs = docs_folder(base_root).rel_path  # as the base's configuration says
                written |= _write_entries(repo, list_tree(repo, commit, state.prefix, [docs]), base_root, ref)
                named = sorted(set(_named_paths(load_knowledge_base(base_root).catalog)) - written)
                _write_entries(repo, [e for e in list_tree(repo, commit, state.prefix, named) if e.path in named],
                               base_root, ref)
                kb = check_knowledge_base(base_root, allow_shallow=allow_shallow, repo_folder=root, rev=commit,
                                          today=today, cache=False)
                return commit, _relocated(kb, base_root)
    except NotARepository as exc:
        raise KbError(f"--base needs the git history: {exc}; run kb check --base inside a clone of the "
                      "repository") from None


def mark_pre_existing(findings: Sequence[Finding], base: Sequence[Finding], ref: str) -> tuple[list[Finding], int]:
    """Today's findings with those already present at the base marked, and how many were."""
    matched = [False] * len(findings)
    taken = [False] * len(base)
    for identity in (_exact, _moved, _same_field):
        waiting: dict[Hashable, list[int]] = {}
        for i, f in enumerate(base):
            if not taken[i] and (key := identity(f)) is not None:
                waiting.setdefault(key, []).append(i)
        for j, f in enumerate(findings):
            if not matched[j] and (key := identity(f)) is not None and waiting.get(key):
                taken[waiting[key].pop(0)] = matched[j] = True
    marked = [_as_pre_existing(f, ref) if m else f for f, m in zip(findings, matched)]
    return marked, sum(matched)


def _exact(f: Finding) -> Hashable:
    return f.code, f.path, f.subject, f.key, f.message


def _moved(f: Finding) -> Hashable:
    """The same finding about an item that moved in its list (its field keeps its place in the item);
    a finding made from no field: the same message, numbers such as line numbers aside."""
    if f.key is None:
        return f.code, f.path, f.subject, None, _NUMBER.sub("#", f.message)
    return f.code, f.path, f.subject, _INDEX.sub("[#]", f.key), _INDEX.sub("[#]", f.message)


def _same_field(f: Finding) -> Hashable | None:
    return None if f.key is None else (f.code, f.path, f.subject, f.key)


def _as_pre_existing(f: Finding, ref: str) -> Finding:
    return replace(f, severity=Severity.WARNING, message=f"pre-existing at {ref} ({f.severity}): {f.message}")


def _relocated(kb: KnowledgeBase, base_root: Path) -> list[Finding]:
    """Findings at the base, with the temporary folder's name taken out of their messages."""
    prefix = str(base_root)
    return [replace(f, message=f.message.replace(prefix, ".")) if prefix in f.message else f for f in kb.findings]


def _named_paths(catalog: Catalog) -> Iterable[str]:
    """The files the records name, which the checks read or look for (the fields the schema marks
    `NamesPath`: deploy files, docs, evidence...)."""
    return files_named((*catalog.knobs.values(), *catalog.incidents.values()))


def _write_entries(repo: git.Repo, entries: Iterable[TreeEntry], dest: Path, ref: str) -> set[str]:
    """Write the regular files among `entries` into `dest` from git's objects; returns their paths.

    Links and submodules are left out. An entry whose path could leave `dest` stops the run."""
    paths_of: dict[str, list[str]] = {}
    for entry in entries:
        _refuse_escaping(entry.path, ref)
        if entry.kind == "blob" and entry.mode in ("100644", "100755"):
            paths_of.setdefault(entry.blob, []).append(entry.path)
    written: set[str] = set()
    for blob, content in iter_blobs(repo, paths_of, _MAX_BLOB):
        for path in paths_of[blob]:
            _write_new_file(dest, path, content, ref)
            written.add(path)
    return written


def _refuse_escaping(path: str, ref: str) -> None:
    parts = path.split("/")
    if PurePosixPath(path).is_absolute() or any(part in ("", ".", "..") for part in parts):
        raise KbError(f"--base {ref}: the commit's tree holds a file named {path!r}, which would leave its folder; "
                      "git refuses to check such a tree out, and so does kb")


def _write_new_file(dest: Path, path: str, content: bytes | Oversized, ref: str) -> None:
    """Create `dest/path`; `dest` is a private folder holding only what was written here, so
    no part of the path can be a link, and the result is checked to be inside `dest` all the same."""
    try:
        # An oversized blob is laid out as large as at the base, so readers refuse it alike; never read.
        write_new_file(dest, path, content.size if isinstance(content, Oversized) else content)
    except ValueError:
        raise KbError(f"--base {ref}: {path!r} would be written outside the temporary folder; refusing") from None
    except OSError as exc:
        raise KbError(f"--base {ref}: cannot lay out {path!r} from the commit's tree ({exc.strerror or exc}); "
                      "is the tree well-formed?") from None
