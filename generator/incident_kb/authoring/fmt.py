"""What `kb fmt` does (its command: `commands/fmt.py`): records in one canonical shape, without losing a comment.

The shape: keys in the order the schema declares them (each key moves with the comments and blank
lines above it), single quotes wherever a quoted value needs no escapes, the editor schema modeline
on top, one newline at the end. Everything else (comments, blank lines, indentation, block styles,
inline lists) is the author's and stays. A formatted file must read back as exactly the same data,
so formatting can never change what a record says: a file that would is left alone and reported.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..check.pipeline import record_files
from ..findings import Finding, KbError, finding
from ..records.schema import MODELS, Record
from ..records.validate import dotted, fields_at
from ..records.vocabulary import RecordKind, record_kind_of
from ..records.yaml_source import Key, parse_yaml
from .record_files import RecordFile, read_record
from .scaffold import modeline
from .yaml_splice import Document, EditError, Node, reorder_entries

_MODELINE_MARK = "yaml-language-server:"
_FOLDERS = " and ".join(f"{kind.folder}/" for kind in RecordKind)


@dataclass(frozen=True, slots=True)
class Formatted:
    rel_path: str
    record: RecordFile | None = None  # the file as read; None when it cannot be read
    text: str | None = None  # the formatted text; None when the file cannot be formatted
    changes: tuple[str, ...] = ()  # what formatting changed, for the author
    problem: Finding | None = None

    @property
    def changed(self) -> bool:
        return bool(self.changes)


def format_record(text: str, kind: RecordKind, rel_path: str) -> tuple[str, list[str]]:
    """The formatted text and what changed; raises EditError when the text is not a YAML mapping."""
    changes: list[str] = []
    ended = text.rstrip("\n") + "\n"
    if ended != text and parse_yaml(ended).value == parse_yaml(text).value:  # not when a block's text ends there
        text = ended
        changes.append("one newline at the end")
    if not any(_MODELINE_MARK in line for line in _leading_comments(text)):
        text = modeline(kind, rel_path) + "\n" + text
        changes.append("editor schema modeline added")
    text, moved = _order_keys(text, MODELS[kind])
    if moved:
        changes.append("keys in schema order in " + ", ".join(moved))
    text, requoted = _single_quotes(text)
    if requoted:
        changes.append(f"single quotes on line{'s' * (len(requoted) > 1)} {', '.join(map(str, requoted))}")
    return text, changes


def format_file(root: Path, path: Path) -> Formatted:
    rel = path.relative_to(root).as_posix()
    kind = record_kind_of(rel)
    if kind is None:  # pragma: no cover - callers pass record files only
        raise KbError(f"{rel} is not a record; records live in {_FOLDERS}")
    try:
        record = read_record(root, kind, path)
    except KbError as exc:
        return Formatted(rel, problem=finding("unreadable-file", rel, 0, 0, None, str(exc).split(": ", 1)[-1]))
    before = parse_yaml(record.text)
    if before.error is not None:
        error = before.error
        return Formatted(rel, record, problem=finding(error.code, rel, error.line, error.column, None,
                                                      f"{error.message}; fix it before formatting"))
    try:
        formatted, changes = format_record(record.text, kind, rel)
    except EditError as exc:
        return Formatted(rel, record, problem=finding("not-a-mapping", rel, 1, 1, None, f"{exc}; nothing to format"))
    if parse_yaml(formatted).value != before.value:  # pragma: no cover - a bug; never change what a record says
        raise KbError(f"{rel}: formatting would change what the record says; this is a bug in kb, file left alone")
    return Formatted(rel, record, formatted, tuple(changes))


def files_to_format(root: Path, names: list[Path]) -> list[Path]:
    """The record files named (all records when none are), checked to be records."""
    if not names:
        return [path for kind in RecordKind for path in record_files(root, kind)]
    paths = []
    for name in names:
        path = name if name.is_absolute() else Path.cwd() / name
        resolved = path.resolve()
        inside = resolved.is_relative_to(root.resolve())
        if not inside or record_kind_of(resolved.relative_to(root.resolve()).as_posix()) is None \
                or not resolved.is_file():
            raise KbError(f"{name} is not a record file; records are the .yaml files in "
                          f"{_FOLDERS} (and their subfolders) under {root}")
        paths.append(root.resolve() / resolved.relative_to(root.resolve()))
    return paths


def _leading_comments(text: str) -> Iterator[str]:
    for line in text.split("\n"):
        if line.strip() and not line.lstrip().startswith("#"):
            return
        yield line


def _order_keys(text: str, model: type[Record]) -> tuple[str, list[str]]:
    moved: list[str] = []
    for _ in range(text.count("\n") + 1):  # each pass puts one mapping in order
        doc = Document(text)
        found = _first_unordered(doc.root, (), model)
        if found is None:
            return text, moved
        node, path, order = found
        text = reorder_entries(doc, node, order)
        moved.append(dotted(path) or "the record")
    raise KbError("key ordering did not settle; this is a bug in kb")  # pragma: no cover


def _first_unordered(node: Node, path: Key, model: type[Record]) -> tuple[Node, Key, list[int]] | None:
    if node.kind == "map" and not node.flow:
        names = list(fields_at(model, path))
        if names:
            rank = {name: i for i, name in enumerate(names)}
            order = sorted(range(len(node.keys)), key=lambda i: (rank.get(node.keys[i].value, len(rank)), i))
            if order != list(range(len(node.keys))):
                return node, path, order
    steps: list[str | int] = [k.value for k in node.keys] if node.kind == "map" else list(range(len(node.children)))
    for step, child in zip(steps, node.children):
        found = _first_unordered(child, (*path, step), model)
        if found is not None:
            return found
    return None


def _single_quotes(text: str) -> tuple[str, list[int]]:
    """Double-quoted values that need no escapes, written with single quotes."""
    doc = Document(text)
    targets = [n for n in _values(doc.root) if n.style == '"' and n.value.isprintable()
               and doc.line_of(n.start) == doc.line_of(n.end - 1)]
    for node in sorted(targets, key=lambda n: n.start, reverse=True):
        text = text[:node.start] + "'" + node.value.replace("'", "''") + "'" + text[node.end:]
    return text, sorted(doc.line_of(n.start) + 1 for n in targets)


def _values(node: Node) -> Iterator[Node]:
    for child in node.children:
        if child.kind == "scalar":
            yield child
        else:
            yield from _values(child)
