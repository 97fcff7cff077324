"""Text-level edits of a YAML document that leave every byte they do not touch alone.

A round-trip YAML library re-emits the whole file and hangs each comment on the node above it, so
appending an item or moving a key drags comments to the wrong place. Here the document is parsed
only for positions (where each node starts, where its content ends), and each edit splices
lines rendered by `yaml_emit.py` in at line boundaries: comments, blank lines, quoting and
indentation elsewhere survive by construction. An `Editor` also applies every edit to a copy of the
data and checks that the new text parses to exactly that, so an edit can never say something other
than what was meant. Knows nothing of knobs or incidents.
"""

from __future__ import annotations

import bisect
import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.error import YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from ..findings import KbError
from ..records.yaml_source import Key, event_parser, parse_yaml
from .yaml_emit import Indent, RenderError, render_entry, render_item, render_key


class EditError(KbError):
    """The edit cannot be made in place; the message says where, why and what to do instead."""


@dataclass(slots=True, eq=False)
class Node:
    kind: str  # "map", "seq" or "scalar"
    start: int  # offset of the first character (of a block sequence: its first dash)
    end: int  # offset just after the content; trailing blank lines and comments are not part of it
    flow: bool = False
    style: str | None = None  # of a scalar: None (plain), "'", '"', "|" or ">"
    value: str = ""  # of a scalar: its text
    keys: list[Node] = field(default_factory=list)  # of a mapping: the key scalars
    children: list[Node] = field(default_factory=list)  # mapping values, or sequence items

    @property
    def is_empty_scalar(self) -> bool:
        return self.kind == "scalar" and self.style is None and self.value == ""

    def index_of(self, key: str) -> int | None:
        return next((i for i, k in enumerate(self.keys) if k.value == key), None)


class Document:
    """A YAML text and the positions of its nodes."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.root = _parse(text)
        self._line_starts = [0, *(m.end() for m in re.finditer("\n", text))]

    def find(self, path: Key) -> Node | None:
        node: Node | None = self.root
        for part in path:
            if node is None:
                return None
            if isinstance(part, int):
                node = node.children[part] if node.kind == "seq" and 0 <= part < len(node.children) else None
            else:
                i = node.index_of(part) if node.kind == "map" else None
                node = node.children[i] if i is not None else None
        return node

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._line_starts, offset) - 1

    def column_of(self, offset: int) -> int:
        return offset - self._line_starts[self.line_of(offset)]

    def line_start(self, line: int) -> int:
        return self._line_starts[line] if line < len(self._line_starts) else len(self.text)

    def line_text(self, line: int) -> str:
        return self.text[self.line_start(line):self.line_start(line + 1)].rstrip("\n")

    @property
    def line_count(self) -> int:
        return len(self._line_starts)

    def entry_end_line(self, content_end: int, column: int) -> int:
        """The last line of an entry whose content ends at `content_end`: comment lines right below it
        that are indented deeper than the entry (`column`) still belong to it."""
        line = self.line_of(max(content_end - 1, 0))
        while line + 1 < self.line_count:
            following = self.line_text(line + 1)
            stripped = following.lstrip(" ")
            if not stripped.startswith("#") or len(following) - len(stripped) <= column:
                break
            line += 1
        return line

    def indent(self) -> Indent:
        """The indentation this document already uses, so new lines look like their neighbours."""
        mapping = offset = None
        stack = [self.root]
        while stack and (mapping is None or offset is None):
            node = stack.pop()
            if node.kind == "map" and not node.flow:
                for key, child in zip(node.keys, node.children):
                    if child.kind != "scalar" and not child.flow:
                        depth = self.column_of(child.start) - self.column_of(key.start)
                        if child.kind == "map" and mapping is None and depth > 0:
                            mapping = depth
                        elif child.kind == "seq" and offset is None and depth >= 0:
                            offset = depth
            stack.extend(reversed(node.children))
        return Indent(2 if mapping is None else mapping, 2 if offset is None else offset)


def _parse(text: str) -> Node:
    """Positions of every node; the caller has already checked the text parses as a record."""
    parser = event_parser(text)
    stack: list[Node] = []
    root: Node | None = None
    try:
        while True:
            event = parser.get_event()
            kind = type(event)
            if kind is StreamEndEvent:
                break
            if kind is AliasEvent:
                raise EditError("the file uses an alias ('*name'); records may not")
            if kind is ScalarEvent:
                style = event.style or None
                end = event.end_mark.index
                if style in ("|", ">"):
                    end = _block_content_end(text, event.start_mark.index, end)
                node = Node("scalar", event.start_mark.index, end, style=style, value=event.value)
            elif kind is MappingStartEvent or kind is SequenceStartEvent:
                node = Node("map" if kind is MappingStartEvent else "seq", event.start_mark.index,
                            event.start_mark.index, flow=bool(event.flow_style))
            elif kind is MappingEndEvent or kind is SequenceEndEvent:
                done = stack.pop()
                if done.flow:
                    done.end = event.end_mark.index
                elif done.children:
                    done.end = done.children[-1].end
                continue
            else:
                continue
            if not stack:
                root = node
            else:
                parent = stack[-1]
                if parent.kind == "map" and len(parent.keys) == len(parent.children):
                    parent.keys.append(node)
                else:
                    parent.children.append(node)
            if node.kind != "scalar":
                stack.append(node)
    except YAMLError as exc:
        raise EditError(f"the file is not valid YAML: {exc}") from None
    if root is None or root.kind != "map":
        raise EditError("the file's top level is not a mapping of fields")
    return root


def _block_content_end(text: str, start: int, end: int) -> int:
    """Where a block scalar's content ends: after its last line that holds content. The blank lines
    below it are not part of it, unless kept ('|+'); a line of spaces deeper than the block's
    indentation is content (a space at the end of the text), not a blank line."""
    header_end = text.find("\n", start, end)
    header = text[start:end if header_end < 0 else header_end].split("#", 1)[0]
    if header_end < 0:
        return start + len(header.rstrip())
    if "+" in header:
        return end
    lines = text[header_end + 1:end].split("\n")
    explicit = re.search(r"[1-9]", header)
    if explicit:  # '|2': content sits that much deeper than the line the block starts on
        starts_at = text.rfind("\n", 0, start) + 1
        line = text[starts_at:start]
        indent = len(line) - len(line.lstrip(" -")) + int(explicit.group())
    else:  # the first line with anything but spaces sets the indentation
        indent = next((len(line) - len(line.lstrip(" ")) for line in lines if line.strip(" ")), 0)
    last = max((i for i, line in enumerate(lines) if line.strip(" ") or len(line) > indent), default=None)
    if last is None:
        return start + len(header.rstrip())
    return header_end + 1 + sum(len(line) + 1 for line in lines[:last]) + len(lines[last])


# ---- edits -------------------------------------------------------------------------------------

def _after_colon(doc: Document, key: Node) -> int:
    position = key.end
    while doc.text[position] in " \t":
        position += 1
    if doc.text[position] != ":":  # pragma: no cover - a block mapping key is always followed by ':'
        raise EditError(f"line {doc.line_of(key.start) + 1}: expected ':' after '{key.value}'")
    return position + 1


def _splice(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _insert_after(doc: Document, line: int, lines: list[str]) -> str:
    at = doc.line_start(line + 1)
    text = doc.text
    if at == len(text) and text and not text.endswith("\n"):
        if parse_yaml(text + "\n").value != parse_yaml(text).value:
            raise EditError(f"line {doc.line_count}: the file ends inside a text block ('|' or '>') with no line "
                            "break, and a line added below would change that text; end the block's header with "
                            "'-' (e.g. '|-') and the file with a line break, then run the command again")
        text, at = text + "\n", at + 1
    return _splice(text, at, at, "".join(entry + "\n" for entry in lines))


def _set_existing(doc: Document, mapping: Node, index: int, value: Any, indent: Indent) -> str:
    key, old = mapping.keys[index], mapping.children[index]
    if old.kind != "scalar" and not old.flow:
        raise EditError(f"line {doc.line_of(key.start) + 1}: '{key.value}' holds nested lines that kb does not "
                        "replace; edit them by hand")
    column = doc.column_of(key.start)
    lines = render_entry(key.value, value, column, indent)
    head = lines[0][column + len(render_key(key.value)) + 1:]  # ' value', ' |' or '' (a nested block follows)
    colon = _after_colon(doc, key)
    start, end = colon, colon if old.is_empty_scalar else old.end
    if not old.is_empty_scalar and "\n" in doc.text[colon:old.start]:
        # The value sits below its key, after a comment or a blank line: only the value changes.
        start, head = old.start, head.lstrip(" ")
    head += _header_comment(doc, old)
    if len(lines) == 1:
        return _splice(doc.text, start, end, head)
    # The value's lines go below its line, which keeps any comment it had.
    line_end = doc.line_start(doc.line_of(end) + 1)
    rest = doc.text[end:line_end]
    if not rest.endswith("\n"):
        rest += "\n"
    return doc.text[:start] + head + rest + "".join(line + "\n" for line in lines[1:]) + doc.text[line_end:]


def _header_comment(doc: Document, old: Node) -> str:
    """The comment after a block scalar's indicator ('|  # why'), which outlives the block's text."""
    if old.style not in ("|", ">"):
        return ""
    header_end = doc.text.find("\n", old.start, old.end)
    header = doc.text[old.start:old.end if header_end < 0 else header_end]
    mark = header.find("#")
    return header[len(header[:mark].rstrip()):] if mark > 0 else ""


def _insert_key(doc: Document, mapping: Node, key: str, value: Any, order: Sequence[str], indent: Indent) -> str:
    if mapping.flow:
        raise EditError(f"line {doc.line_of(mapping.start) + 1}: cannot add '{key}' to an inline mapping "
                        "('{...}'); write it one key per line")
    column = doc.column_of(mapping.keys[0].start)
    lines = render_entry(key, value, column, indent)
    rank = {name: i for i, name in enumerate(order)}
    if key in rank:  # after the keys that come before it in `order`; keys `order` does not know come last
        before = [i for i, k in enumerate(mapping.keys) if rank.get(k.value, len(rank)) < rank[key]]
    else:
        before = list(range(len(mapping.keys)))
    if not before:  # it goes first: insert at the first key, which may share its line with a dash
        first = mapping.keys[0].start
        return _splice(doc.text, first, first, "\n".join([lines[0][column:], *lines[1:]]) + "\n" + " " * column)
    return _insert_after(doc, doc.entry_end_line(mapping.children[before[-1]].end, column), lines)


def _append_item(doc: Document, sequence: Node, items: Sequence[Any], indent: Indent) -> str:
    dash = doc.column_of(sequence.start)
    lines = [line for item in items for line in render_item(item, dash, indent)]
    return _insert_after(doc, doc.entry_end_line(sequence.end, dash), lines)


def _container(data: Any, path: Key) -> Any:
    for part in path:
        data = data[part]
    return data


class Editor:
    """A document under edit: each change is made to the text and to a copy of the data.

    `name` (the file's path) starts every error message."""

    def __init__(self, text: str, name: str = "the document") -> None:
        self.name = name
        loaded = parse_yaml(text)
        if loaded.error is not None:
            raise EditError(f"{name}:{loaded.error.line}: {loaded.error.message}")
        self.text = text
        self.expected = copy.deepcopy(loaded.value)
        self.indent = self._document().indent()

    def value(self, path: Key) -> Any:
        try:
            return _container(self.expected, path)
        except (KeyError, IndexError, TypeError):
            return None

    def set(self, path: Key, key: str, value: Any, order: Sequence[str] = ()) -> None:
        """Set `key` of the mapping at `path`, adding it where `order` puts it when it is missing."""
        doc = self._document()
        mapping = doc.find(path)
        if mapping is None or mapping.kind != "map":
            raise EditError(f"{self.name}: there is no mapping at {path!r}")
        index = mapping.index_of(key)
        try:
            if index is None:
                self.text = _insert_key(doc, mapping, key, value, order, self.indent)
            else:
                self.text = _set_existing(doc, mapping, index, value, self.indent)
        except (EditError, RenderError) as exc:
            raise EditError(f"{self.name}: {exc}") from None
        _container(self.expected, path)[key] = copy.deepcopy(value)

    def append(self, path: Key, item: Any, order: Sequence[str] = ()) -> None:
        """Append `item` to the list at `path`, creating the list (where `order` puts it) if needed."""
        self.extend(path, (item,), order)

    def extend(self, path: Key, items: Sequence[Any], order: Sequence[str] = ()) -> None:
        """Append `items` to the list at `path` in one edit (the text is parsed once, however many)."""
        if not items:
            return
        doc = self._document()
        sequence = doc.find(path)
        if sequence is None or sequence.is_empty_scalar or (sequence.kind == "seq" and sequence.flow
                                                            and not sequence.children):
            self.set(path[:-1], str(path[-1]), list(items), order)
            return
        where = f"{self.name}: line {doc.line_of(sequence.start) + 1}"
        if sequence.kind != "seq":
            raise EditError(f"{where}: '{path[-1]}' is not a list")
        if sequence.flow:
            raise EditError(f"{where}: '{path[-1]}' is an inline list ('[...]'); "
                            "write it one item per line to add to it")
        try:
            self.text = _append_item(doc, sequence, items, self.indent)
        except (EditError, RenderError) as exc:
            raise EditError(f"{self.name}: {exc}") from None
        _container(self.expected, path).extend(copy.deepcopy(list(items)))

    def check(self) -> None:
        """The text must parse to exactly the data the edits meant."""
        loaded = parse_yaml(self.text)
        if loaded.error is not None or loaded.value != self.expected:
            problem = loaded.error.message if loaded.error else "it reads back differently"
            raise EditError(f"{self.name}: the edited text is wrong ({problem}); this is a bug in kb, "
                            "nothing was written")

    def _document(self) -> Document:
        try:
            return Document(self.text)
        except EditError as exc:
            raise EditError(f"{self.name}: {exc}") from None


def reorder_entries(doc: Document, mapping: Node, order: Sequence[int]) -> str:
    """The text with a block mapping's entries in `order`, each moving with the comment and blank
    lines above it (the first entry's own comments stay where the mapping starts)."""
    column = doc.column_of(mapping.keys[0].start)
    first = doc.line_of(mapping.keys[0].start)
    ends = [doc.entry_end_line(value.end, column) for value in mapping.children]
    starts = [first, *(end + 1 for end in ends[:-1])]
    chunks = [doc.text[doc.line_start(s):doc.line_start(e + 1)] for s, e in zip(starts, ends)]
    chunks = [chunk if chunk.endswith("\n") else chunk + "\n" for chunk in chunks]
    prefix = doc.text[doc.line_start(first):mapping.keys[0].start]  # '  - ' when the mapping is a list item
    chunks[0] = " " * len(prefix) + chunks[0][len(prefix):]
    lines = "".join(chunks[i] for i in order).split("\n")
    if prefix.strip():
        key_line = next(i for i, line in enumerate(lines) if line.strip() and not line.lstrip().startswith("#"))
        lines[key_line] = prefix + lines[key_line][len(prefix):]
    end = doc.line_start(ends[-1] + 1)
    tail = doc.text[end:]
    return doc.text[:doc.line_start(first)] + "\n".join(lines)[: None if tail or doc.text.endswith("\n") else -1] + tail
