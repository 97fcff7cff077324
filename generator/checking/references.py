"""Which hand-written docs refer to which records.

A doc refers to a record when the record lists it under `docs`, when its front matter lists the
record's id (`records:`, `knobs:` or `incidents:`), or when its text mentions a knob's id or
setting name (also the name without its common prefix, e.g. TARGET_CTAS for
SGLANG_SM120_MMA_TARGET_CTAS, where no other knob's name ends the same way) or an incident's id,
unless its front matter says `mentions: false` (a guide that uses records as examples).
Each doc is read and tokenised once; matching is a dictionary lookup per token, so the cost grows
with the size of the docs, not with docs x records. Reads docs; knows nothing of git.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..records.model import Catalog
from ..records.schema import DOCS_FOLDER, RecordKind
from ..records.yaml_source import parse_yaml

_TOKEN = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]*")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?\r?\n)?---[ \t]*(\r?\n|\Z)", re.DOTALL)
_FRONT_MATTER_KEYS = {"records": None, "knobs": RecordKind.KNOB, "incidents": RecordKind.INCIDENT}
_MAX_DOC_BYTES = 5 << 20


@dataclass(frozen=True, slots=True, order=True)
class DocReference:
    doc: str  # repository-relative path of the doc
    kind: RecordKind
    record_id: str
    how: str  # 'listed' (in the record's docs), 'front-matter' or 'mention'


def doc_paths(root: Path, catalog: Catalog) -> list[str]:
    """Markdown files under docs/, plus any other path a record lists under `docs`."""
    found = {p.relative_to(root).as_posix() for p in (root / DOCS_FOLDER).rglob("*.md") if p.is_file()} \
        if (root / DOCS_FOLDER).is_dir() else set()
    for records in (catalog.knobs, catalog.incidents):
        for record in records.values():
            found.update(d for d in record.docs if (root / d).is_file())
    return sorted(found)


def name_aliases(catalog: Catalog) -> dict[str, str]:
    """Token -> knob id, for each knob's id, setting name and unambiguous name suffixes."""
    aliases: dict[str, str] = {}
    suffix_owners: dict[str, set[str]] = {}
    for knob in catalog.knobs.values():
        aliases[knob.id] = knob.id
        aliases[knob.name] = knob.id
        parts = knob.name.split("_")
        for start in range(1, len(parts) - 1):  # suffixes of two or more words
            suffix_owners.setdefault("_".join(parts[start:]), set()).add(knob.id)
    for suffix, owners in suffix_owners.items():
        if len(owners) == 1 and suffix not in aliases:
            aliases[suffix] = next(iter(owners))
    return aliases


def find_doc_references(root: Path, catalog: Catalog, docs: Iterable[str] | None = None) -> list[DocReference]:
    docs = doc_paths(root, catalog) if docs is None else list(docs)
    knob_tokens = name_aliases(catalog)
    references: set[DocReference] = set()
    for kind in RecordKind:
        for record in catalog.records(kind).values():
            references.update(DocReference(d, kind, record.id, "listed") for d in record.docs)
    for doc in docs:
        text = _read(root / doc)
        if text is None:
            continue
        for kind, record_id in _front_matter_records(text, catalog):
            references.add(DocReference(doc, kind, record_id, "front-matter"))
        if _front_matter(text).get("mentions") is False:
            continue
        for token in set(_TOKEN.findall(text)):
            for candidate in _token_variants(token):
                if candidate in knob_tokens:
                    references.add(DocReference(doc, RecordKind.KNOB, knob_tokens[candidate], "mention"))
                if candidate in catalog.incidents:
                    references.add(DocReference(doc, RecordKind.INCIDENT, candidate, "mention"))
    return sorted(references)


def docs_referring_to(references: Iterable[DocReference], kind: RecordKind, record_id: str) -> list[str]:
    return sorted({r.doc for r in references if r.kind == kind and r.record_id == record_id})


def _token_variants(token: str) -> Iterable[str]:
    """The token and its '_'-suffixes of two or more words (MMA_TARGET_CTAS, TARGET_CTAS)."""
    yield token
    if "_" in token:
        parts = token.split("_")
        for start in range(1, len(parts) - 1):
            yield "_".join(parts[start:])


def front_matter_span(text: str) -> tuple[int, int] | None:
    """Where a doc's front matter (between its opening and closing '---') lies in `text`."""
    match = _FRONT_MATTER.match(text)
    return match.span(1) if match and match.group(1) else None


def _front_matter(text: str) -> dict[str, object]:
    match = _FRONT_MATTER.match(text)
    meta = parse_yaml(match.group(1)).value if match and match.group(1) else None
    return meta if isinstance(meta, dict) else {}


def _front_matter_records(text: str, catalog: Catalog) -> Iterable[tuple[RecordKind, str]]:
    meta = _front_matter(text)
    for key, kind in _FRONT_MATTER_KEYS.items():
        ids = meta.get(key)
        for record_id in ids if isinstance(ids, list) else [ids] if isinstance(ids, str) else []:
            if not isinstance(record_id, str):
                continue
            if kind in (None, RecordKind.KNOB) and record_id in catalog.knobs:
                yield RecordKind.KNOB, record_id
            if kind in (None, RecordKind.INCIDENT) and record_id in catalog.incidents:
                yield RecordKind.INCIDENT, record_id


def _read(path: Path) -> str | None:
    try:
        if path.stat().st_size > _MAX_DOC_BYTES:
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
