"""PR mode (`kb check --base REF`): which of today's findings already existed at REF; and pre-commit
mode (`kb check --staged`), which checks the commit being made the same way against HEAD.

The knowledge base at REF (or as the index would commit it) is checked from its files as committed
there, read from git's objects (no checkout; the work tree is untouched, and for --staged neither
an untracked nor an unstaged file counts) with the history up to REF (up to HEAD plus the commit
being made). Only what the knowledge base reads is read: its records, docs and configuration, then
the files its records name (deploy files, docs elsewhere). They go to a private temporary folder as
a checkout would lay them out, links as links (history/tree_layout.py), every path checked first.

A finding of today is pre-existing when one at REF is the same finding: same code, file and record,
and the same field (its key path, e.g. 'measurements[1].delta_pct') with the same message, or that
message with only list positions changed (an item moved), or the same field with the same code
(its details changed); a finding made from no field needs the same message, numbers aside. Each
finding at REF accounts for one finding today. Matched findings are reported as warnings marked
"pre-existing at REF" and do not fail the run. Nothing here decides what is a finding; it only
compares two checks.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import re
import tempfile
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

from ..findings import Finding, KbError, Severity
from ..history.gitio import (
    IndexNotCommittable,
    NotARepository,
    PendingTree,
    RepoState,
    index_tree,
    list_tree,
    open_repository,
    repository_state,
    resolve_commit,
    staged_paths,
    tree_changes,
)
from ..history.memo import walks_shared
from ..history.tree_layout import TreeLayout
from ..records.links import files_named
from ..records.model import Catalog
from ..records.record_cache import loads_shared
from ..records.vocabulary import RecordKind, record_kind_of
from ..records.yaml_source import MAX_BYTES
from ..repository.files import UnreadableFile, is_folder, lexists, regular_file_status
from ..rules.references import read_doc
from ..settings.config_files import CONFIG_FILES
from ..settings.kb_settings import Settings, read_settings
from ..settings.reference_date import reference_date
from ..wording import plural
from .pipeline import (
    CheckMode,
    KnowledgeBase,
    RecordsRead,
    check_knowledge_base,
    collector_paused,
    knowledge_base_settings,
    load_records,
    read_records,
)
from .staged import files_named_by_records, is_own_file

if TYPE_CHECKING:
    import git

    from ..history.gitio import LogAhead
    from .owners import Ownership

# The settings, and the site's configuration, which says where the docs are (records/docs_folder.py).
_INDEX = re.compile(r"\[\d+\]")
_NUMBER = re.compile(r"\b\d+\b")


def check_at_base(root: Path, ref: str, *, allow_shallow: bool = False,
                  today: date | None = None) -> tuple[str, list[Finding]]:
    """(commit id, findings) of the knowledge base at `root` as it stood at commit `ref`."""
    base = check_base(root, ref, allow_shallow=allow_shallow, today=today)
    return base.commit, base.findings


@dataclass(frozen=True)
class BaseCheck:
    """The knowledge base as it stood at the base: its findings, records, and its docs' digests."""

    commit: str
    findings: list[Finding]
    catalog: Catalog  # empty when there was no knowledge base there
    doc_digests: Mapping[str, str]  # each doc that referred to a record there -> a digest of its text

    def unchanged_docs(self, kb: KnowledgeBase) -> dict[str, bool]:
        """For each doc of `kb` that refers to a record: whether its text is as it was at the base."""
        return {doc: self.doc_digests.get(doc) == _doc_digest(kb.root, doc)
                for doc in sorted({reference.doc for reference in kb.references})}


def check_base(root: Path, ref: str, *, allow_shallow: bool = False, today: date | None = None) -> BaseCheck:
    """The knowledge base at `root` as it stood at commit `ref`, checked."""
    try:
        with open_repository(root) as repo:
            state = repository_state(repo, root)
            commit = resolve_commit(repo, ref)
            if commit is None:
                raise KbError(f"--base {ref}: no such commit in {state.toplevel}; fetch it first (e.g. `git fetch "
                              f"origin main` and --base origin/main; in CI check out with `fetch-depth: 0`)")
            with tempfile.TemporaryDirectory(prefix="kb-base-") as folder, loads_shared():
                base_root = Path(folder)
                if _lay_out(repo, commit, state.prefix, base_root, f"--base {ref}")[0] is None:
                    # no knowledge base there yet (or not in this folder): everything today is new
                    return BaseCheck(commit, [], Catalog.of(()), {})
                kb = check_knowledge_base(base_root, CheckMode(today, allow_shallow, repo_folder=root, rev=commit,
                                                               cache=False))
                digests = {doc: digest for doc in {reference.doc for reference in kb.references}
                           if (digest := _doc_digest(base_root, doc)) is not None}
                return BaseCheck(commit, _relocated(kb, base_root), kb.catalog, digests)
    except NotARepository as exc:
        raise KbError(f"--base needs the git history: {exc}; run kb check --base inside a clone of the "
                      "repository") from None


def _doc_digest(root: Path, doc: str) -> str | None:
    try:
        return hashlib.sha256(read_doc(root, doc).encode("utf-8", "surrogatepass")).hexdigest()
    except (UnreadableFile, UnicodeDecodeError):
        return None


def _lay_out(repo: git.Repo, rev: str, prefix: str, dest: Path, mode: str, env: Mapping[str, str] | None = None,
             work_tree: Path | None = None, *, with_facts: bool = False, in_memory: bool = False,
             settled: Callable[[Settings], object] | None = None) -> tuple[RecordsRead | None, TreeLayout]:
    """Write what the knowledge base under `prefix` reads in commit (or tree) `rev` into `dest`: its
    records, configuration, docs (where that configuration says) and the files its records name,
    links as links (see history/tree_layout.py), each file's bytes from `work_tree` where its file there
    holds the same; returns its records as read (`with_facts`: with each file's facts), and the
    layout. No records, with nothing written, when `rev` holds no record folder there. `in_memory`: the
    record files are read from memory, not written (`TreeLayout.unwritten`), unless the tree holds a link
    there (a file could then be read under two names); `settled`: called with the laid-out
    configuration's settings once it is there, before the records are read."""
    folders = [kind.folder for kind in RecordKind]
    layout = TreeLayout(repo, rev, prefix, dest, mode, env, work_tree)
    entries = layout.entries([*folders, *CONFIG_FILES])
    if not any(entry.path.split("/", 1)[0] in folders for entry in entries):
        return None, layout
    layout.add(entries, _is_record if in_memory else None)
    if layout.linked:
        layout.write_all()
    settings = read_settings(dest)
    if settled is not None:
        settled(settings)
    layout.add(layout.entries([settings.docs.rel_path]))  # as the laid-out configuration says
    read = collector_paused(read_records)(dest, {}, False, with_facts=with_facts, contents=layout.contents,
                                          unwritten=layout.unwritten)
    layout.add_paths(sorted(_named_paths(read.catalog)))
    return read, layout


def _is_record(path: str, content: bytes) -> bool:
    """A record file the loader reads from memory as it would from the folder (a larger one is written,
    for the loader to refuse)."""
    return record_kind_of(path) is not None and len(content) <= MAX_BYTES


@dataclass(frozen=True, slots=True)
class StagedCheck:
    """`kb check --staged`: the findings of the commit being made, those already at HEAD marked as
    pre-existing; or `note` alone when there is nothing to check."""

    findings: tuple[Finding, ...] = ()
    summary: str = ""
    notes: tuple[str, ...] = ()
    note: str | None = None
    ownership: Ownership | None = None  # who owns what the findings are about (the github and gitlab formats)


def check_staged(root: Path, *, allow_shallow: bool = False, today: date | None = None) -> StagedCheck:
    """`_check_staged`, each record file loaded once for the commit and HEAD (most bytes are the same),
    and the mainline up to HEAD walked once for both."""
    with loads_shared(), walks_shared():
        return _check_staged(root, allow_shallow=allow_shallow, today=today)


def _check_staged(root: Path, *, allow_shallow: bool = False, today: date | None = None) -> StagedCheck:
    """Judge exactly what the next commit would hold: the index's files, laid out from git's objects
    into a private temporary folder (never the work tree, so an untracked or unstaged file changes
    nothing, whether or not pre-commit stashed the unstaged changes), with the history up to HEAD
    plus that commit. Findings already at HEAD do not fail it."""
    try:  # (a commit that removes the knowledge base may have taken its folder from the work tree too)
        with open_repository(next(folder for folder in (root, *root.parents) if is_folder(folder))) as repo:
            state = repository_state(repo, root)
            paths = [path[len(state.prefix):] for path in staged_paths(repo) if path.startswith(state.prefix)]
            if not paths:
                return StagedCheck(note=_NOTHING_TO_CHECK)
            with index_tree(repo) as pending, tempfile.TemporaryDirectory(prefix="kb-staged-") as folder, \
                    contextlib.ExitStack() as stack:
                staged_root = Path(folder)
                ahead: list[LogAhead | None] = []

                def walk_ahead(settings: Settings) -> None:
                    if any(is_own_file(path, settings.docs.rel_path) for path in paths):  # else maybe nothing to do
                        ahead.append(stack.enter_context(_walk_ahead(root, settings, allow_shallow)))

                read, layout = _lay_out(repo, pending.tree, state.prefix, staged_root, "--staged", pending.env,
                                        state.toplevel / state.prefix, with_facts=True, in_memory=True,
                                        settled=walk_ahead)
                if read is None:
                    return StagedCheck(note=_removed_note(repo, state))
                settings = knowledge_base_settings(staged_root)  # the docs and named files are there now
                if not any(is_own_file(path, settings.docs.rel_path) for path in paths) and \
                        not set(paths) & files_named_by_records(read.catalog):
                    return StagedCheck(note=_NOTHING_TO_CHECK)
                kb = check_knowledge_base(staged_root, CheckMode(today, allow_shallow, repo_folder=root,
                                                                 pending=pending, cache=False, ledger=True),
                                          read=None if layout.linked and not read.unwritten else
                                          dataclasses.replace(read, settings=settings),
                                          ahead=ahead[0] if ahead else None)
                today_findings = _relocated(kb, staged_root)
                summary, notes = kb.summary, kb.notes
                ownership = _staged_ownership(kb, root)
                at_head = None if state.head is None else \
                    _head_from_commit(repo, state.head, state.prefix, pending, kb, layout, root, allow_shallow)
    except NotARepository as exc:
        raise KbError(f"--staged checks the commit being made: {exc}") from None
    except IndexNotCommittable as exc:
        raise KbError(f"--staged checks the commit being made, and git cannot make one from the index ({exc}); "
                      "resolve the conflicts and stage the result (git add)") from None
    if state.head is None:  # the first commit: everything in it is new
        return StagedCheck(tuple(today_findings), summary, notes, ownership=ownership)
    if at_head is not None:
        commit, base = state.head, at_head
    else:
        commit, base = check_at_base(root, "HEAD", allow_shallow=allow_shallow, today=today)
    findings, pre_existing = mark_pre_existing(today_findings, base, "HEAD")
    return StagedCheck(tuple(findings), summary + pre_existing_summary(pre_existing, "HEAD", commit), notes,
                       ownership=ownership)


def _staged_ownership(kb: KnowledgeBase, root: Path) -> Ownership:
    """The commit's owners: its records' `owners:` and the CODEOWNERS it holds in the knowledge base's
    folder; with none there, the repository top's (for a knowledge base in a subfolder: the temporary
    folder has no top to look in), as the work tree holds it."""
    from ..settings.codeowners import read_top_codeowners
    from .owners import Ownership

    codeowners = kb.settings.codeowners
    return Ownership(kb.catalog, codeowners if codeowners.rel_path is not None else read_top_codeowners(root))


def _walk_ahead(root: Path, settings: Settings,
                allow_shallow: bool) -> contextlib.AbstractContextManager[LogAhead | None]:
    """The mainline walk's `git log` up to HEAD, started now: the check of the commit being made
    continues that walk with the commit (used only if it is the very same command: see `LogAhead`)."""
    from ..history.timelines import history_read_ahead

    return history_read_ahead(root, settings.folders, allow_shallow=allow_shallow, cache=False)


def _head_from_commit(repo: git.Repo, head: str, prefix: str, pending: PendingTree, kb: KnowledgeBase,
                      layout: TreeLayout, repo_folder: Path, allow_shallow: bool) -> list[Finding] | None:
    """HEAD's findings, when the commit being made only edits records in place (and files the
    knowledge base does not read): the commit's check (`kb`, of the folder `layout` filled) re-checked
    as `recheck` does after an edit, with those records put back as HEAD holds them and history read
    up to HEAD: what a whole check of HEAD finds. None when the commit changes more (a record added,
    removed, renamed, its id or names changed; a doc, the configuration, a file a record names), when
    the folder holds a link (a file could be read under two names), or the re-check cannot follow it:
    HEAD is then checked whole. Changes the folder: the commit's check must be done."""
    from .recheck import recheck

    ledger, root = kb.ledger, layout.dest
    if ledger is None or layout.linked:
        return None
    changes = tree_changes(repo, head, pending, [f":(top,literal){prefix.rstrip('/')}"] if prefix else [])
    records: list[str] = []
    others: list[str] = []
    for change in changes:
        path = change.path[len(prefix):]
        facts = ledger.files.get(path)
        if facts is not None and change.status == "M" and facts.in_catalog:
            records.append(path)
        elif record_kind_of(path) is not None or change.old_path is not None:
            return None
        else:
            others.append(path)
    if not records:
        return None
    at_head = {entry.path: entry for entry in list_tree(repo, head, prefix, records)}
    if any(at_head.get(path) is None or at_head[path].mode not in ("100644", "100755") or
           (path not in layout.unwritten and regular_file_status(str(root / path)) is None) for path in records):
        return None
    head_layout = TreeLayout(repo, head, prefix, root, "--staged")
    head_layout.replace(at_head.values(), unwritten=layout.unwritten)  # written: read as HEAD holds them
    in_memory = {path: content for path, content in layout.unwritten.items() if path not in at_head}
    edited = load_records(root, {}, cache=False, only=records, consistency=False).catalog
    named = {*_named_paths(kb.catalog), *_named_paths(edited)}
    read_whole = (*kb.settings.folders, *CONFIG_FILES)
    if any(lexists(root / path) or any(path == folder or path.startswith(folder + "/") for folder in read_whole)
           or any(path == name or path.startswith(name + "/") or name.startswith(path + "/") for name in named)
           for path in others):
        return None  # a file the knowledge base reads at HEAD or in the commit
    head_layout.add_paths(sorted(_named_paths(edited)))
    if head_layout.linked:
        return None
    done = recheck(root, ledger, records, kb.today or reference_date(None), allow_shallow,
                   repo_folder=repo_folder, rev=head, unwritten=in_memory)
    if done is None:
        return None
    where = str(root)
    return [replace(f, message=f.message.replace(where, ".")) if where in f.message else f for f in done[0]]


def pre_existing_summary(count: int, ref: str, commit: str) -> str:
    """What the summary line adds in PR and pre-commit modes."""
    where = ref if commit.startswith(ref) else f"{ref} ({commit[:7]})"
    return f"; {plural(count, 'finding')} pre-existing at {where} {'does' if count == 1 else 'do'} not fail the run"


_NOTHING_TO_CHECK = "kb check --staged: the commit touches no file of the knowledge base; nothing to check"


def _removed_note(repo: git.Repo, state: RepoState) -> str:
    """What to say when the commit being made holds no record folder of the knowledge base."""
    where = f"in {state.prefix.rstrip('/')}/" if state.prefix else "at the top of the repository"
    folders = " and ".join(f"{kind.folder}/" for kind in RecordKind)
    had = state.head is not None and list_tree(repo, state.head, state.prefix, [kind.folder for kind in RecordKind])
    if had:
        return (f"kb check --staged: note: the commit removes the whole knowledge base {where} ({folders} hold "
                "no file after it); allowed, nothing left to check. If that is not meant, unstage it (git restore "
                "--staged PATH)")
    return f"kb check --staged: the commit holds no knowledge base {where} (no {folders}); nothing to check"


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
    severity = Severity.INFO if f.severity is Severity.INFO else Severity.WARNING  # info stays info
    return replace(f, severity=severity, message=f"pre-existing at {ref} ({f.severity}): {f.message}")


def _relocated(kb: KnowledgeBase, base_root: Path) -> list[Finding]:
    """Findings at the base, with the temporary folder's name taken out of their messages."""
    prefix = str(base_root)
    return [replace(f, message=f.message.replace(prefix, ".")) if prefix in f.message else f for f in kb.findings]


def _named_paths(catalog: Catalog) -> Iterable[str]:
    """The files the records name, which the checks read or look for (the fields the schema marks
    `NamesPath`: deploy files, docs, evidence...)."""
    return files_named((*catalog.knobs.values(), *catalog.incidents.values()))
