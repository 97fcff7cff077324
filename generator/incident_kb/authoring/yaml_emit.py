"""Writing values as YAML lines, in the style hand-written records use: plain text where it reads
back as itself, single quotes where quotes are needed, long prose folded (`>-`), several lines as
a literal block (`|`), small mappings and lists inline when asked. Every line is indented in full,
ready to splice into a file (`yaml_splice.py` does the splicing). Parses only to make sure a key
or an inline value it writes bare reads back as itself.
"""

from __future__ import annotations

import io
import math
import re
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

from ruamel.yaml import YAML

from ..records.yaml_source import parse_yaml

WIDTH = 100  # new prose longer than this is folded (`>-`), as hand-written records do
_FLOW_UNSAFE = re.compile(r"[,\[\]{}]")


class RenderError(ValueError):
    """A value that cannot be written here."""


class Flow(dict):  # type: ignore[type-arg]
    """A mapping to write inline, `{knob: x}`."""


class FlowList(list):  # type: ignore[type-arg]
    """A list to write inline, `[a, b]`."""


class Quoted(str):
    """Text to write in single quotes even where it could go bare (a regular expression, say, where
    a later ' #' typed by hand would otherwise start a comment)."""


@dataclass(frozen=True, slots=True)
class Indent:
    mapping: int = 2  # how much deeper a nested mapping's keys sit than their parent key
    offset: int = 2  # how much deeper a list's dashes sit than their parent key


_dumper = YAML(typ="safe", pure=True)
_dumper.width = 1 << 20
_dumper.default_flow_style = False


def render_scalar(value: Any, flow: bool = False) -> str:
    """One value on one line, quoted only when it must be (and then with single quotes if it can)."""
    if value is None:
        return ""
    if type(value) is int or (type(value) is float and math.isfinite(value)):
        return repr(value)  # as YAML reads it back, exactly (and fast: imported runs are thousands of numbers)
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, str) and not value.isprintable():  # line breaks (YAML's too: U+0085, U+2028...), tabs
        return _double_quoted(value)
    if isinstance(value, Quoted):
        return "'" + value.replace("'", "''") + "'"
    buffer = io.StringIO()
    _dumper.dump([value], buffer)
    text = buffer.getvalue()[2:].rstrip("\n")
    if "\n" in text:  # pragma: no cover - width is unlimited
        raise RenderError(f"cannot write {value!r} on one line")
    if flow and isinstance(value, str) and text == value and (_FLOW_UNSAFE.search(value) or
                                                               not _reads_back(f"{{k: {text}}}", {"k": value})):
        text = "'" + value.replace("'", "''") + "'"
    return text


def render_key(key: str, flow: bool = False) -> str:
    """A mapping key that reads back as this text: `concurrency`, but `'true'`, `'a: b'`, `'*a'`."""
    text = render_scalar(key, flow)
    if len(text) > 1000:  # YAML allows no longer key on one line
        raise RenderError(f"the key {key[:40]!r}... is longer than 1000 characters")
    if text == key and not _reads_back(("{%s: 0}" if flow else "%s: 0") % text, {key: 0}):
        text = "'" + key.replace("'", "''") + "'"  # plain text the dumper allows, but not as a key here
    return text or "''"


def _reads_back(text: str, expected: dict[str, Any]) -> bool:
    loaded = parse_yaml(text)
    return loaded.error is None and loaded.value == expected


def _double_quoted(text: str) -> str:
    """`text` in double quotes with every character that is not printable escaped, so no line
    break of any kind (YAML also breaks lines at U+0085, U+2028 and U+2029) is left raw."""
    out = []
    for char in text:
        if char in _ESCAPES:
            out.append(_ESCAPES[char])
        elif char.isprintable():
            out.append(char)
        elif "\ud800" <= char <= "\udfff":
            raise RenderError(f"the text {text[:40]!r} holds bytes that are not UTF-8; give it as UTF-8 text")
        else:
            code = ord(char)
            out.append(f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}")
    return '"' + "".join(out) + '"'


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _render_flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{render_key(k, flow=True)}: {_render_flow(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_render_flow(v) for v in value) + "]"
    return render_scalar(value, flow=True)


def _scalar_lines(value: Any, first_column: int, column: int) -> tuple[str, list[str]]:
    """The text after 'key: ' (or '- '), and any lines below it (a block scalar's content)."""
    if isinstance(value, str) and "\n" in value:
        body = value.rstrip("\n")
        trailing = len(value) - len(body)
        lines = body.split("\n")
        # Kept trailing blank lines ('|+') would run into whatever is added below: quote those instead.
        if body and not body[0].isspace() and trailing <= 1 and all(line.isprintable() for line in lines):
            pad = " " * column
            return "|" if trailing else "|-", [pad + line if line else "" for line in lines]
        return render_scalar(value), []
    text = render_scalar(value)
    if isinstance(value, str) and first_column + len(text) > WIDTH and _is_foldable(value):
        lines = _wrap(value, max(WIDTH - column, 40))
        if len(lines) > 1:  # folding that leaves one line would only move the text down
            return ">-", [" " * column + line for line in lines]
    return text, []


def _is_foldable(value: str) -> bool:
    return (value == value.strip() and "  " not in value and "\t" not in value and "\r" not in value
            and " " in value and value.isprintable())


def _wrap(text: str, width: int) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        if current and len(current) + 1 + len(word) > width:
            lines.append(current)
            current = word
        else:
            current = f"{current} {word}" if current else word
    lines.append(current)
    return lines


def render_entry(key: str, value: Any, column: int, indent: Indent) -> list[str]:
    """`key: value` at `column`, with any nested lines, each line indented in full."""
    pad = " " * column
    key = render_key(key)
    if isinstance(value, FlowList) and len(pad) + len(key) + 2 + len(_render_flow(value)) > WIDTH:
        return _wrapped_flow_list(f"{pad}{key}: ", value, column + indent.mapping)
    if isinstance(value, Flow | FlowList) or (isinstance(value, dict | list) and not value):
        return [f"{pad}{key}: {_render_flow(value)}"]
    if isinstance(value, dict):
        lines = [f"{pad}{key}:"]
        for k, v in value.items():
            lines += render_entry(k, v, column + indent.mapping, indent)
        return lines
    if isinstance(value, list):
        lines = [f"{pad}{key}:"]
        for item in value:
            lines += render_item(item, column + indent.offset, indent)
        return lines
    head, below = _scalar_lines(value, column + len(key) + 2, column + indent.mapping)
    return [f"{pad}{key}:{' ' + head if head else ''}", *below]


def _wrapped_flow_list(head: str, values: list[Any], column: int) -> list[str]:
    """A long inline list over as many lines as it takes, each within WIDTH where its items allow:
    `runs: [2799.2, 2781.4, ...,` then the rest indented under the key."""
    pieces = [_render_flow(v) + "," for v in values]
    pieces[-1] = pieces[-1][:-1] + "]"
    lines: list[str] = []
    current = head + "[" + pieces[0]
    for piece in pieces[1:]:
        if len(current) + 1 + len(piece) <= WIDTH:
            current += " " + piece
        else:
            lines.append(current)
            current = " " * column + piece
    return [*lines, current]


def render_item(value: Any, dash_column: int, indent: Indent) -> list[str]:
    """`- value` with its dash at `dash_column`."""
    content = dash_column + 2
    prefix = " " * dash_column + "- "
    if isinstance(value, dict) and value and not isinstance(value, Flow):
        lines: list[str] = []
        for k, v in value.items():
            lines += render_entry(k, v, content, indent)
        return [prefix + lines[0][content:], *lines[1:]]
    if isinstance(value, list) and value and not isinstance(value, FlowList):
        raise RenderError("a list directly inside a list is not supported")
    if isinstance(value, dict | list):
        return [prefix + _render_flow(value)]
    head, below = _scalar_lines(value, content, content)
    return [prefix + head, *below]
