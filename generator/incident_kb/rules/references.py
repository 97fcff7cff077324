"""Which hand-written docs refer to which records.

A doc refers to a record when the record lists it under `docs`, when its front matter lists the
record's id (`records:`, `knobs:` or `incidents:`), or when its text (below the front matter)
names it: an incident's id, or a knob's id, setting name or one of its `aliases:`, each as a whole
token with its own punctuation (`-XX:MaxGCPauseMillis`, `net.ipv4.tcp_congestion_control`,
`--max-connections`; see `records/setting_names.py`). Short names count only when a knob lists them
under `aliases:` (TARGET_CTAS for SGLANG_SM120_MMA_TARGET_CTAS): a name that merely ends the same way
(a gateway's own TIMEOUT_MS, SEARCH_UPSTREAM_TIMEOUT_MS's tail) is another setting. So whether a doc
refers to a knob depends on the doc and that knob alone, never on which other knobs exist; a word
that several records use refers to each of them. A doc opts out of the text mentions of some
records with `not_about: [id, ...]` in its front matter, or of all of them with `mentions: false`
(a guide that uses records as examples).

Each doc is read and tokenised once; each word is looked up whole (and, for a word with dots such
as a file name, each dotted part), and a name with other punctuation through the longest word in
it (`MaxGCPauseMillis` for `-XX:MaxGCPauseMillis`), then checked in place: the cost grows linearly
with the size of the docs, never with the length of a word times its parts, nor with docs x
records. Reads docs; knows nothing of git.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from ..records.model import Catalog
from ..records.setting_names import stands_whole, stands_with_value, takes_attached_value, unmatchable_reason
from ..records.vocabulary import DOC_SUFFIXES, RecordKey, RecordKind
from ..records.yaml_source import parse_yaml
from ..repository.files import TooLarge, UnreadableFile, folder_entries, is_file, is_folder, read_bounded
from ..repository.written_pages import MANIFEST, rendered_files

# A word: letters (of any script), digits and '_', joined by single '-' or '.' (ids, env names,
# sysctl names, file names). Each repetition starts with a separator, so matching is linear.
_WORD = re.compile(r"\w+(?:[-.]\w+)*")
_FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(.*?\r?\n)?---[ \t]*(\r?\n|\Z)", re.DOTALL)
_FRONT_MATTER_KEYS = {"records": None, "knobs": RecordKind.KNOB, "incidents": RecordKind.INCIDENT}
MAX_DOC_BYTES = 5 << 20


@dataclass(frozen=True, slots=True, order=True)
class DocReference:
    doc: str  # repository-relative path of the doc
    kind: RecordKind
    record_id: str
    how: str  # 'listed' (in the record's docs), 'front-matter' or 'mention'
    # For a mention: the word as written and the 1-based line of its first occurrence in the doc.
    word: str = field(default="", compare=False)
    line: int = field(default=0, compare=False)


def doc_paths(root: Path, catalog: Catalog, folder: str, skipped: list[tuple[str, str]] | None = None) -> list[str]:
    """Markdown files (each suffix MkDocs renders) under the docs folder `folder` (docs/, or the one the
    site renders: see settings/docs_folder.py; anything so named but a folder: reading refuses what is not a
    regular file inside the repository; no page `kb render` wrote and its manifest vouches for, see
    repository/written_pages.py), plus any other file a
    record lists under `docs`. Subfolders reached through a link inside the repository are walked;
    each folder under the docs folder that is not (a link out, to nothing or back, one that cannot be listed)
    goes into `skipped` as (path, why)."""
    found: set[str] = set()
    docs = folder
    if is_folder(root / docs):
        passed: list[tuple[str, str]] = []
        entries = folder_entries(root / docs, skip_unlistable=True, inside=root, skipped=passed)
        if skipped is not None:  # (a link named like a doc is read as one, and refused there)
            skipped.extend((f"{docs}/{rel}" if rel else docs, why) for rel, why in passed
                           if not rel.endswith(DOC_SUFFIXES))
        candidates = [rel for rel, is_dir in entries if rel.endswith(DOC_SUFFIXES) and not is_dir
                      and not is_folder(root / docs / rel)]
        rendered = rendered_files(root, docs, [*candidates, *(rel for rel, _ in entries  # kb render's pages
                                                              if rel.endswith("/" + MANIFEST))], MAX_DOC_BYTES)
        found = {f"{docs}/{rel}" for rel in candidates if rel not in rendered}
    for records in (catalog.knobs, catalog.incidents):
        for record in records.values():
            found.update(d for d in record.docs if is_file(root / d))
    return sorted(found)




@dataclass(frozen=True, slots=True)
class DocWords:
    """What a doc's words are looked up in: whole words (ids, names and aliases that are one word of
    the tokenizer), and names with other punctuation by their core word, each with the records it
    names."""

    words: dict[str, tuple[RecordKey, ...]]
    punctuated: dict[str, tuple[tuple[str, int, tuple[RecordKey, ...]], ...]]  # core -> (name, core's offset, records)
    attached: tuple[tuple[str, tuple[RecordKey, ...]], ...] = ()  # names written with their value glued on (-Xmx4g)


def name_aliases(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """Term -> the knobs it names: each knob's id, setting name and `aliases:` (no derived short
    names: they would depend on which other knobs exist)."""
    found: dict[str, list[str]] = {}
    for knob in catalog.knobs.values():
        for term in dict.fromkeys((knob.id, knob.name, *knob.aliases)):
            if term and unmatchable_reason(term) is None and knob.id not in found.setdefault(term, []):
                found[term].append(knob.id)
    return {term: tuple(ids) for term, ids in found.items()}


def doc_words(catalog: Catalog) -> DocWords:
    terms: dict[str, list[RecordKey]] = {}
    for incident_id in catalog.incidents:
        terms.setdefault(incident_id, []).append((RecordKind.INCIDENT, incident_id))
    for term, knob_ids in name_aliases(catalog).items():
        terms.setdefault(term, []).extend((RecordKind.KNOB, knob_id) for knob_id in knob_ids)
    words: dict[str, tuple[RecordKey, ...]] = {}
    punctuated: dict[str, list[tuple[str, int, tuple[RecordKey, ...]]]] = {}
    attached = tuple((term, tuple(records)) for term, records in terms.items() if takes_attached_value(term))
    for term, records in terms.items():
        if _WORD.fullmatch(term):
            words[term] = tuple(records)
        else:  # looked up by the longest word of it, then checked in place
            parts = _WORD.findall(term)
            if not parts:
                continue  # no word of a doc can be it (`unmatchable_reason` says so to the author)
            core = max(parts, key=len)
            punctuated.setdefault(core, []).append((term, term.index(core), tuple(records)))
    return DocWords(words, {core: tuple(items) for core, items in punctuated.items()}, attached)


def find_doc_references(root: Path, catalog: Catalog, folder: str, docs: Iterable[str] | None = None,
                        unreadable: dict[str, str] | None = None,
                        skipped: list[tuple[str, str]] | None = None) -> list[DocReference]:
    """Every reference from a doc (under the docs folder `folder`, or `docs`) to a record; docs that
    cannot be read are skipped, and put in `unreadable` (doc -> why) when it is given, as folders under
    the docs folder not read are in `skipped` (see `doc_paths`)."""
    docs = doc_paths(root, catalog, folder, skipped) if docs is None else list(docs)
    words = doc_words(catalog)
    references: set[DocReference] = set()
    for kind in RecordKind:
        for record in catalog.records(kind).values():
            references.update(DocReference(d, kind, record.id, "listed") for d in record.docs)
    for doc in docs:
        try:
            text = read_doc(root, doc)
        except UnreadableFile as exc:
            if unreadable is not None and not isinstance(exc, TooLarge):  # a huge doc is no doc to check
                unreadable[doc] = str(exc)
            continue
        for kind, record_id in _front_matter_records(text, catalog):
            references.add(DocReference(doc, kind, record_id, "front-matter"))
        meta = _front_matter(text)
        if meta.get("mentions") is False:
            continue
        not_about = _ids(meta.get("not_about"))
        span = front_matter_span(text)
        body_start = _FRONT_MATTER.match(text).end() if span else 0  # type: ignore[union-attr]
        for (kind, record_id), (word, line) in first_mentions(text, words, body_start).items():
            if record_id not in not_about:
                references.add(DocReference(doc, kind, record_id, "mention", word, line))
    return sorted(references)


def first_mentions(text: str, words: DocWords, start: int = 0) -> dict[RecordKey, tuple[str, int]]:
    """Each record mentioned in `text` from `start` on, with the word and line of its first mention.
    One pass over the text; each word costs a dictionary lookup per dotted part (`word_candidates`),
    twice when some name has other punctuation."""
    found: dict[RecordKey, tuple[str, int]] = {}
    line, counted = 1, 0

    def note(records: tuple[RecordKey, ...], word: str, at: int) -> None:
        nonlocal line, counted
        fresh = [record for record in records if record not in found]
        if fresh:
            line += text.count("\n", counted, at) if at >= counted else -text.count("\n", at, counted)
            counted = at
            for record in fresh:
                found[record] = (word, line)

    for match in _WORD.finditer(text, start):
        for candidate in word_candidates(match.group(0)):
            records = words.words.get(candidate)
            if records is not None:
                note(records, candidate, match.start())
        if words.punctuated:
            for candidate, within in _candidate_places(match.group(0)):
                for name, offset, records in words.punctuated.get(candidate, ()):
                    at = match.start() + within - offset
                    if at >= start and text.startswith(name, at) and stands_whole(text, at, at + len(name)):
                        note(records, name, at)
        for name, records in words.attached:  # '-Xmx4g' names -Xmx: one word of the doc, 'Xmx4g'
            at = match.start() - 1
            if at >= start and text.startswith(name, at) and stands_with_value(text, at, at + len(name)):
                note(records, name, at)
    return found


def _candidate_places(word: str) -> Iterator[tuple[str, int]]:
    """`word_candidates` with where each starts in the word."""
    yield word, 0
    if "." in word:
        at = 0
        for part in word.split("."):
            yield part, at
            at += len(part) + 1


def word_candidates(word: str) -> Iterator[str]:
    """What a word of a doc is looked up as: itself and, for a dotted word (a file name such as
    knob-id.yaml), each dotted part. Never its '_'- or '-'-fragments: REDIS_POOL_SIZE is one word."""
    yield word
    if "." in word:
        yield from word.split(".")


def docs_referring_to(references: Iterable[DocReference], kind: RecordKind, record_id: str) -> list[str]:
    return sorted({r.doc for r in references if r.kind == kind and r.record_id == record_id})


def front_matter_span(text: str) -> tuple[int, int] | None:
    """Where a doc's front matter (between its opening and closing '---') lies in `text`."""
    match = _FRONT_MATTER.match(text)
    return match.span(1) if match and match.group(1) else None


def _front_matter(text: str) -> dict[str, object]:
    match = _FRONT_MATTER.match(text)
    meta = parse_yaml(match.group(1)).value if match and match.group(1) else None
    return meta if isinstance(meta, dict) else {}


def _ids(value: object) -> set[str]:
    """The ids a front-matter key lists: one id, or a list of them."""
    listed = value if isinstance(value, list) else [value]
    return {item for item in listed if isinstance(item, str)}


def _front_matter_records(text: str, catalog: Catalog) -> Iterable[tuple[RecordKind, str]]:
    meta = _front_matter(text)
    for key, kind in _FRONT_MATTER_KEYS.items():
        for record_id in sorted(_ids(meta.get(key))):
            if kind in (None, RecordKind.KNOB) and record_id in catalog.knobs:
                yield RecordKind.KNOB, record_id
            if kind in (None, RecordKind.INCIDENT) and record_id in catalog.incidents:
                yield RecordKind.INCIDENT, record_id


def read_doc(root: Path, doc: str) -> str:
    """A doc's text (undecodable bytes replaced); raises UnreadableFile."""
    return read_bounded(root / doc, MAX_DOC_BYTES, root).decode("utf-8", errors="replace")
