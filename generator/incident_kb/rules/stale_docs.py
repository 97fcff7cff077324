"""The stale-doc rule: a doc whose last commit is older than a material change of a record it refers to.

Any commit that touches the doc after the change makes it fresh again (a doc changed in the same
commit as the record is fresh). Findings land on the doc's path: at the first mention of the record
in its text (the message names the word), else at its `reviewed:` front-matter line when it has
one. Creating a record is not a change a doc can be stale against. This module decides staleness
from the history and references the pipeline hands it; it runs no git command.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ..findings import Finding, finding
from ..repository.files import UnreadableFile, lexists
from ..wording import path_word, plural
from .references import DocReference, front_matter_span, read_doc

if TYPE_CHECKING:
    from ..history.timelines import History
    from ..records.vocabulary import RecordKey

_HOW = {"listed": "the record's docs", "front-matter": "the front matter", "mention": "the text"}
_REVIEWED = re.compile(r"^reviewed[ \t]*:", re.MULTILINE)


def find_stale_docs(root: Path, history: History, references: Iterable[DocReference],
                    unjudged: bool = True, left_out: Callable[[str], str | None] = lambda doc: None
                    ) -> Iterator[Finding]:
    """stale-doc findings; with `unjudged`, an unjudged-doc warning on each doc that refers to a
    record but has no history in git (ignored, or in a repository of its own): never a silent pass.
    A doc `left_out` gives a reason for (a history page, a pattern the team excludes: `Config.left_out_by`)
    is not judged; `kb check -v` says which."""
    refers: dict[str, dict[RecordKey, list[DocReference]]] = {}
    for ref in (ref for ref in references if left_out(ref.doc) is None):
        refers.setdefault(ref.doc, {}).setdefault((ref.kind, ref.record_id), []).append(ref)
    for doc, records in sorted(refers.items()):
        touched = history.doc_changes.get(doc)
        if touched is None:  # ignored by git, or in a nested repository: nothing to compare
            if unjudged:
                yield _unjudged(root, doc, records)
            continue
        for (kind, record_id), refs in sorted(records.items()):
            since = [c for c in history.changes.get((kind, record_id), [])
                     if not c.created and c.at.index > touched.index]
            if not since:
                continue
            latest = since[-1]
            earlier = len(since) - 1
            more = f", after {plural(earlier, 'earlier change')}" if earlier else ""
            hows = {ref.how: ref for ref in refs}
            how = ", ".join(text for key, text in _HOW.items() if key in hows)
            mention = hows.get("mention")
            if mention is not None:  # point at the word, so a false alarm is seen for what it is
                how += f": '{mention.word}' on line {mention.line}"
            line = mention.line if mention is not None else _reviewed_line(root, doc)
            yield finding(
                "stale-doc", doc, line, 1, record_id,
                f"this doc refers to {kind} '{record_id}' (through {how}), which changed after the doc's last "
                f"commit: {latest.summary} in {latest.at}{more}; the doc was last committed in "
                f"{str(touched).removeprefix('commit ')}. Review the doc against the record and commit it "
                "(updating 'reviewed:' in its front matter is enough)"
                + (f"; if the doc is not about it, add 'not_about: [{record_id}]' to its front matter"
                   if mention is not None else ""))


def _unjudged(root: Path, doc: str, records: dict[RecordKey, list[DocReference]]) -> Finding:
    refs = [ref for found in records.values() for ref in found]
    mention = next((ref for ref in refs if ref.how == "mention"), None)
    named = ", ".join(f"{kind} '{record_id}'" for kind, record_id in sorted(records))
    return finding(
        "unjudged-doc", doc, mention.line if mention is not None else _reviewed_line(root, doc), 1, None,
        f"this doc refers to {named}, but git has no history of it here: {_why_unseen(root, doc)}; so "
        "stale-doc cannot tell whether it is stale. Commit it to this repository, or move it out of the "
        "docs folder, or turn the code off for such docs (`unjudged-doc = \"off\"` under "
        "[tool.incident-kb.severity])")


def _why_unseen(root: Path, doc: str) -> str:
    """Why git has no history of `doc`: the nested repository holding it, else git's ignore rules."""
    parts = Path(doc).parts
    for depth in range(len(parts) - 1, 0, -1):
        folder = "/".join(parts[:depth])
        if lexists(root / folder / ".git"):
            return f"it lies in {folder}/, a repository of its own (a submodule or a nested clone)"
    return f"git ignores it (`git check-ignore -v {path_word(doc)}` shows the rule)"


def _reviewed_line(root: Path, doc: str) -> int:
    """The line of `reviewed:` in the doc's front matter (the usual fix), else 1."""
    try:
        text = read_doc(root, doc)
    except UnreadableFile:
        return 1
    span = front_matter_span(text)
    match = _REVIEWED.search(text, *span) if span else None
    return text.count("\n", 0, match.start()) + 1 if match else 1
