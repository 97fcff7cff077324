"""The stale-doc rule: a doc whose last commit is older than a material change of a record it refers to.

Any commit that touches the doc after the change makes it fresh again (a doc changed in the same
commit as the record is fresh). Findings land on the doc's path, at its `reviewed:` front-matter
line when it has one. Creating a record is not a change a doc can be stale against. This module
decides staleness from what `history` and `references` give it; it runs no git command itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..findings import Finding, finding
from ..history.timelines import History, HistoryUnavailable, MaterialChange, RecordKey, read_history
from ..records.model import Catalog
from ..records.schema import DOCS_FOLDER
from .references import DocReference, find_doc_references, front_matter_span

_HOW = {"listed": "the record's docs", "front-matter": "the front matter", "mention": "the text"}
_REVIEWED = re.compile(r"^reviewed[ \t]*:", re.MULTILINE)


@dataclass
class DocCheck:
    findings: list[Finding]
    notes: list[str]  # one-line remarks for the user (why git checks were skipped, and such)
    timelines: dict[RecordKey, list[MaterialChange]] = field(default_factory=dict)  # when asked for


def check_docs_against_history(catalog: Catalog, root: Path, *, repo_folder: Path | None = None,
                               rev: str | None = None, allow_shallow: bool = False,
                               timelines: bool = False) -> DocCheck:
    """stale-doc findings and notes; with `timelines`, every record's material changes too, read in
    the same pass over history (the site shows them).

    `repo_folder` and `rev` read the history of another folder at another commit (see read_history)."""
    references = [r for r in find_doc_references(root, catalog) if (root / r.doc).is_file()]
    wanted = set(catalog.sources) if timelines else {(r.kind, r.record_id) for r in references}
    records = {catalog.source(*key).rel_path: key for key in wanted}
    extra_docs = sorted({r.doc for r in references if not r.doc.startswith(DOCS_FOLDER + "/")})
    try:
        history = read_history(root, records, extra_docs, repo_folder=repo_folder, rev=rev,
                               allow_shallow=allow_shallow)
    except HistoryUnavailable as exc:
        return DocCheck([], [f"warning: {exc}; the git-based checks (stale-doc) were skipped"])
    return DocCheck(list(find_stale_docs(root, history, references)), history.notes,
                    history.changes if timelines else {})


def find_stale_docs(root: Path, history: History, references: Iterable[DocReference]) -> Iterator[Finding]:
    refers: dict[str, dict[RecordKey, list[str]]] = {}
    for ref in references:
        refers.setdefault(ref.doc, {}).setdefault((ref.kind, ref.record_id), []).append(ref.how)
    for doc, records in sorted(refers.items()):
        touched = history.doc_changes.get(doc)
        if touched is None:
            continue  # never committed and not visible to git (ignored): nothing to compare
        for (kind, record_id), hows in sorted(records.items()):
            since = [c for c in history.changes.get((kind, record_id), [])
                     if not c.created and c.at.index > touched.index]
            if not since:
                continue
            latest = since[-1]
            earlier = len(since) - 1
            more = f", after {earlier} earlier change{'s' * (earlier != 1)}" if earlier else ""
            how = ", ".join(text for key, text in _HOW.items() if key in hows)
            yield finding(
                "stale-doc", doc, _reviewed_line(root / doc), 1, record_id,
                f"this doc refers to {kind} '{record_id}' (through {how}), which changed after the doc's last "
                f"commit: {latest.summary} in {latest.at}{more}; the doc was last committed in "
                f"{str(touched).removeprefix('commit ')}. Review the doc against the record and commit it "
                "(updating 'reviewed:' in its front matter is enough)")


def _reviewed_line(path: Path) -> int:
    """The line of `reviewed:` in the doc's front matter (the usual fix), else 1."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 1
    span = front_matter_span(text)
    match = _REVIEWED.search(text, *span) if span else None
    return text.count("\n", 0, match.start()) + 1 if match else 1
