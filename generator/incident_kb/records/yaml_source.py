"""Loading YAML records: plain Python values plus a source map of line numbers.

Walks libyaml's event stream (ruamel.yaml.clib's C parser) with an explicit stack, so reading is
fast, positions come for free, and no input can recurse deeply or expand: aliases, duplicate keys,
non-scalar keys and absurd nesting are refused with their line. Never raises on bad input: every
problem comes back as a `LoadError`. Knows nothing of knobs or incidents.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
)
from ruamel.yaml.nodes import ScalarNode

from ..repository.files import TooLarge, UnreadableFile, read_bounded

try:  # the C parser; ruamel.yaml[oldlibyaml] installs it (see pyproject.toml)
    from _ruamel_yaml import CParser as _Parser  # type: ignore[import-not-found]
except ImportError:  # pragma: no cover - only when the clib wheel is missing
    from ruamel.yaml.parser import Parser as _Parser  # type: ignore[assignment]

MAX_BYTES = 1 << 20  # a record is a few KB; anything near this is a mistake, not a record
MAX_DEPTH = 64

Key = tuple[str | int, ...]

_STR_TAG = "tag:yaml.org,2002:str"
_NULL_TAG = "tag:yaml.org,2002:null"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_TIMESTAMP_TAG = "tag:yaml.org,2002:timestamp"
# What an explicit tag may name: the YAML 1.2 core schema's scalars, each on a value of its type.
_CORE_TAGS = frozenset((_STR_TAG, _NULL_TAG, _BOOL_TAG, _INT_TAG, _FLOAT_TAG))
_EXAMPLES = {_NULL_TAG: "'~'", _BOOL_TAG: "true or false", _INT_TAG: "12", _FLOAT_TAG: "12.5"}
# Plain scalars are typed by their text, dates included.
_RESOLVED_TAGS = _CORE_TAGS | {_TIMESTAMP_TAG}
_PLAIN_COLLECTION_TAGS = (None, "!", "tag:yaml.org,2002:map", "tag:yaml.org,2002:seq")
_yaml = YAML(typ="safe", pure=False)
_constructor = _yaml.constructor
# YAML 1.2 implicit types by first character (ruamel's own table): resolving through this table
# directly, with plain strings for tags, is several times faster than Resolver.resolve per scalar.
_IMPLICIT: dict[str, list[tuple[str, re.Pattern[str]]]] = {
    first: [(str(tag), regexp) for tag, regexp in entries]
    for first, entries in _yaml.resolver.versioned_resolver.items() if first is not None
}


@dataclass(frozen=True, slots=True)
class LoadError:
    message: str
    line: int  # 1-based; 1 for problems with the file as a whole
    column: int
    code: str = "yaml-syntax"


@dataclass(slots=True)
class SourceMap:
    """1-based (line, column) of each key path: of the key for mapping entries, of the item in lists."""

    positions: dict[Key, tuple[int, int]] = field(default_factory=dict)

    def locate(self, key: Key) -> tuple[int, int]:
        """The position of `key`, or of its nearest ancestor that has one (e.g. for a missing field)."""
        while key:
            if key in self.positions:
                return self.positions[key]
            key = key[:-1]
        return self.positions.get((), (1, 1))


@dataclass(slots=True)
class LoadedYaml:
    value: Any = None
    source_map: SourceMap = field(default_factory=SourceMap)
    error: LoadError | None = None


class _Refused(Exception):
    def __init__(self, message: str, mark: Any) -> None:
        super().__init__(message)
        self.line = mark.line + 1
        self.column = mark.column + 1


def read_yaml_file(path: Path, root: Path | None = None) -> LoadedYaml:
    """Read and parse one file (a regular file inside `root`, when given); size, encoding and
    syntax problems become `LoadedYaml.error`."""
    try:
        raw = read_bounded(path, MAX_BYTES, root)
    except TooLarge as exc:
        return _failed(f"the file is {exc.size / 1e6:.1f} MB; a record must be under {MAX_BYTES // 1024} KiB "
                       "(is this really a record?)", "unreadable-file")
    except UnreadableFile as exc:
        return _failed(f"cannot read the file: {exc}", "unreadable-file")
    return parse_yaml_bytes(raw)


def parse_yaml_bytes(raw: bytes) -> LoadedYaml:
    """Parse a file's bytes (read no larger than MAX_BYTES); encoding problems become errors too."""
    text, problem, line = decode_text(raw)
    if text is None:
        return _failed(problem, "unreadable-file", line)
    return parse_yaml(text)


_UTF16_32 = ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"), (codecs.BOM_UTF16_LE, "UTF-16"),
             (codecs.BOM_UTF16_BE, "UTF-16"))


def decode_text(raw: bytes) -> tuple[str | None, str, int]:
    """(text, '', 0) for UTF-8 text (a BOM is dropped), else (None, why, line of the problem)."""
    wide = next((name for bom, name in _UTF16_32 if raw.startswith(bom)), None)
    if wide is None and len(raw) >= 4 and b"\0" in raw[:4] and raw[:4].count(0) == 2 and (
            raw[1] == raw[3] == 0 or raw[0] == raw[2] == 0):
        wide = "UTF-16"  # no byte-order mark, but text with every other byte zero
    if wide is not None:
        return None, f"the file is not UTF-8 (it is {wide}); save it as UTF-8", 1
    if b"\0" in raw:
        return None, "the file is binary (it contains NUL bytes); records are UTF-8 text", 1
    try:
        return raw.decode("utf-8-sig"), "", 0
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, (f"the file is not UTF-8 (byte 0x{raw[exc.start]:02x} at offset {exc.start}); "
                      "save it as UTF-8"), line


def event_parser(text: str) -> Any:
    """libyaml's event parser over `text` (`get_event()` until StreamEndEvent); marks count characters."""
    return _Parser(text)


def parse_yaml(text: str) -> LoadedYaml:
    loaded = LoadedYaml()
    try:
        loaded.value = _build(text, loaded.source_map.positions)
    except _Refused as exc:
        loaded.error = LoadError(str(exc), exc.line, exc.column)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        problem = " ".join(p for p in (exc.context, exc.problem) if p) or str(exc)
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        tab = _tab_near(text, line, column)
        if tab is not None:
            line, column = tab
            problem = ("a tab character indents this line; YAML indents with spaces only: replace the tab with "
                       f"spaces ({problem})")
        elif "found unexpected ':'" in problem and "{" in text.split("\n")[line - 1][:column]:
            # libyaml (YAML 1.1) ends a plain value in {braces} at a ':' that YAML 1.2 would keep in it
            problem += ("; inside {braces} a value with a ':' (a NAME:ID reference) needs quotes, e.g. "
                        "{knob: 'payments:db-pool-size'}, or write it as a block: 'suspect:' then 'knob: "
                        "payments:db-pool-size' on the next line, indented")
        loaded.error = LoadError(f"invalid YAML: {problem}", line, column)
    except (YAMLError, ValueError, TypeError, OverflowError) as exc:
        loaded.error = LoadError(f"invalid YAML: {exc}", 1, 1)
    return loaded


def _tab_near(text: str, line: int, column: int) -> tuple[int, int] | None:
    """(line, column) of a tab in the indentation of the line a parse error points at (or of the
    line before, where libyaml sometimes stops), else None."""
    lines = text.split("\n")
    for number in (line, line - 1):
        if 1 <= number <= len(lines):
            content = lines[number - 1]
            indent = content[: len(content) - len(content.lstrip(" \t"))]
            if "\t" in indent or (number == line and content[column - 1: column] == "\t"):
                return number, (indent.index("\t") if "\t" in indent else column - 1) + 1
    return None


def _failed(message: str, code: str, line: int = 1) -> LoadedYaml:
    return LoadedYaml(error=LoadError(message, line, 1, code))


def _build(text: str, positions: dict[Key, tuple[int, int]]) -> Any:
    """Turn the event stream of a single-document file into Python values, recording positions."""
    parser = _Parser(text)
    # Each frame: [container, key path, pending mapping key or None, key start mark, seen keys]
    stack: list[list[Any]] = []
    root: Any = None
    documents = 0
    while True:
        event = parser.get_event()
        kind = type(event)
        if kind is ScalarEvent or kind is MappingStartEvent or kind is SequenceStartEvent:
            if kind is ScalarEvent:
                value: Any = _scalar(event)
            elif event.tag not in _PLAIN_COLLECTION_TAGS:
                raise _Refused(f"the tag '{event.tag}' is not allowed in records", event.start_mark)
            elif len(stack) >= MAX_DEPTH:
                raise _Refused(f"nesting deeper than {MAX_DEPTH} levels; records are shallow", event.start_mark)
            else:
                value = {} if kind is MappingStartEvent else []
            if not stack:
                documents += 1
                if documents > 1:
                    raise _Refused("more than one YAML document ('---'); a record file holds exactly one",
                                   event.start_mark)
                root = value
                positions[()] = (event.start_mark.line + 1, event.start_mark.column + 1)
                path: Key = ()
            else:
                frame = stack[-1]
                container, parent = frame[0], frame[1]
                if type(container) is list:
                    path = (*parent, len(container))
                    positions[path] = (event.start_mark.line + 1, event.start_mark.column + 1)
                    container.append(value)
                elif frame[2] is None:  # this node is a mapping key
                    if kind is not ScalarEvent or not isinstance(value, str | int | float | bool) or value is None:
                        raise _Refused("a mapping key must be a plain name such as 'status'", event.start_mark)
                    key = value if isinstance(value, str) else str(value)
                    if key in frame[4]:
                        raise _Refused(f"duplicate key '{key}': the later value would silently replace the "
                                       f"earlier one (line {frame[4][key]}); keep one", event.start_mark)
                    frame[4][key] = event.start_mark.line + 1
                    frame[2], frame[3] = key, event.start_mark
                    continue
                else:
                    key, mark = frame[2], frame[3]
                    path = (*parent, key)
                    positions[path] = (mark.line + 1, mark.column + 1)
                    container[key] = value
                    frame[2] = None
            if kind is not ScalarEvent:
                stack.append([value, path, None, None, {}])
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            stack.pop()
        elif kind is AliasEvent:
            raise _Refused("aliases ('*name') are not allowed in records: write the value out", event.start_mark)
        elif event.__class__.__name__ == "StreamEndEvent":
            return root


# Plain scalars repeat a lot across records and their versions (keys, statuses, dates, numbers):
# remember the value each text stands for. Only immutable values are kept, and the memo is emptied
# when it grows large.
_PLAIN: dict[str, Any] = {}
_PLAIN_LIMIT = 200_000
_UNSET = object()


# Decimal numbers as a plain scalar writes them: read with int()/float() directly, which is what the
# core schema's resolution gives for them and costs a tenth (imported runs are thousands of numbers).
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?\Z")


def _scalar(event: Any) -> Any:
    tag = event.tag
    value = event.value
    if tag is None or tag == "!":  # untagged: plain scalars are typed by their text, quoted ones are strings
        if not event.implicit[0]:
            return value
        if _DECIMAL.match(value):
            return int(value) if value.lstrip("+-").isdigit() else float(value)
        known = _PLAIN.get(value, _UNSET)
        if known is not _UNSET:
            return known
        tag = next((t for t, regexp in _IMPLICIT.get(value[:1], ()) if regexp.match(value)), _STR_TAG)
        typed = _construct(tag, event)
        if len(_PLAIN) >= _PLAIN_LIMIT:
            _PLAIN.clear()
        _PLAIN[value] = typed
        return typed
    return _explicit(tag, event)


def _construct(tag: str, event: Any) -> Any:
    value = event.value
    if tag == _STR_TAG:
        return value
    if tag == _NULL_TAG:
        return None
    if tag == _BOOL_TAG:
        return value.lower() == "true"
    if tag not in _RESOLVED_TAGS:
        raise _Refused(f"the tag '{_short(tag)}' is not allowed in records; write the plain value", event.start_mark)
    node = ScalarNode(tag, value, event.start_mark, event.end_mark, event.style)
    try:
        return _constructor.construct_object(node)
    except (ValueError, OverflowError, YAMLError):
        # Looks like a date or number but is not one (2026-13-45): keep the text, so the schema
        # reports it against the field with an example of what is expected.
        return value


def _explicit(tag: str, event: Any) -> Any:
    """A scalar with an explicit tag: only the core schema's, and only on a value of that type
    (`!!bool yes` is not true in YAML 1.2, and must not quietly become false)."""
    value = event.value
    if tag in ("!", _STR_TAG):
        return value
    if tag not in _CORE_TAGS:  # python/..., binary, set, timestamp, local tags: not plain data
        raise _Refused(f"the tag '{_short(tag)}' is not allowed in records; write the plain value", event.start_mark)
    resolved = next((t for t, regexp in _IMPLICIT.get(value[:1], ()) if regexp.match(value)), _STR_TAG)
    if resolved != tag and not (tag == _NULL_TAG and value == "") and not (tag == _FLOAT_TAG and resolved == _INT_TAG):
        raise _Refused(f"'{value}' is not a {_short(tag)} value; drop the tag, or write e.g. "
                       f"{_EXAMPLES[tag]}", event.start_mark)
    return _construct(tag, event)


def _short(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag
