"""A setting's value as a deploy file writes it, and the line it is on: quoted or bare, a shell
default standing for its default, a reference or a template standing for no value kb can know.
`forms.py` finds the lines; this reads what they say. Text in, text out.

Markup is not the value: a YAML anchor (`&pool 512`) or a core tag (`!!str 512`) stands before the
value and is left out; an alias (`*pool`) or any other tag (`!Ref x`, `!ENV`) stands for a value kb
cannot know. A bare value ends at a space, a quote or `;`, and at a comma only inside a flow
collection (`{ K = 256, B = 1 }`, `[a, b]`): `MALLOC_CONF=background_thread:true,thp:always` is one
value. A JSON string with escaped quotes (`\"256\"`, a task definition inside a string) is read too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_QUOTES = "\"'"
_BARE_END = re.compile(r"[\s,;}\])\"'`]")  # inside a flow collection
_BLOCK_BARE_END = re.compile(r"[\s;}\])\"'`]")  # elsewhere: a comma is part of the value
_ANCHOR = re.compile(r"&[^\s,\[\]{}]+(?:\s+|$)")
_TAG = re.compile(r"!(?:<([^>]*)>|(!?)([^\s,\[\]{}!]*))(?:\s+|$)")
# The tags that keep a scalar's text as its value: YAML's core schema, short ('!!str') or verbatim.
_CORE_TAGS = frozenset(("str", "int", "float", "bool", "null", ""))
_CORE_PREFIX = "tag:yaml.org,2002:"
_SHELL_DEFAULT = re.compile(r"^\$\{\w+:?[-=]([^}]*)\}$")


@dataclass(frozen=True, slots=True)
class SettingLine:
    """A line of a deploy file that names the setting, and what it sets it to."""

    line: int  # 1-based: where the value is (a name/value pair's value line)
    column: int  # 1-based column of the setting's name (of the value, for a pair's separate value line)
    text: str  # that line, whole, without its surrounding space
    value: str | None  # the value as text, quotes removed; None when no form read here understands the line
    form: str  # the form read ('NAME=VALUE', 'Kubernetes env', ...); '' when none
    name_line: int | None = None  # a name/value pair on two lines: the name's line...
    name_text: str | None = None  # ...and its text

    @property
    def is_readable(self) -> bool:
        return self.value is not None

    @property
    def passes_through(self) -> bool:
        """The line hands on the value the setting has where it runs (`docker run -e NAME`, a
        docker-compose `- NAME`): it sets none itself."""
        return self.form == PASS_THROUGH

    @property
    def shown(self) -> str:
        """The line as a message quotes it: whole, with the name's line first for a pair on two lines."""
        if self.name_text is not None and self.name_line != self.line:
            return f"{self.name_text}' ... '{self.text}"
        return self.text


@dataclass(frozen=True, slots=True)
class Where:
    line: int
    column: int
    text: str

    def reads(self, value: str | None, form: str, name_line: int | None = None,
              name_text: str | None = None) -> SettingLine:
        value = resolved(value) if value is not None else None
        return SettingLine(self.line, self.column, self.text, value, form if value is not None else "",
                           name_line, name_text)

    def unreadable(self) -> SettingLine:
        return SettingLine(self.line, self.column, self.text, None, "")

    def passing_through(self) -> SettingLine:
        return SettingLine(self.line, self.column, self.text, None, PASS_THROUGH)


PASS_THROUGH = "passed through"


def value_at(text: str, flow: bool = False) -> str | None:
    """The value at the start of `text` (after the separator): quoted (an escaped quote too, inside
    a string), or bare up to a space or a delimiter (a comma only when `flow`: inside `{...}` or
    `[...]`); None for a YAML block scalar."""
    text = text.lstrip()
    if text[:1] == "\\" and is_quote(text[1:2]):  # \"256\": JSON inside a string
        close = text.find("\\" + text[1], 2)
        return text[2:close] if close != -1 else None
    if is_quote(text[:1]):
        close = text.find(text[0], 1)
        return text[1:close] if close != -1 else text[1:]
    if text[:1] in ("|", ">"):
        return None
    if text.startswith("${") and "}" in text:
        return text[:text.index("}") + 1]
    if flow:
        return bare(text, 0)
    match = _BLOCK_BARE_END.search(text)
    value = text[:match.start() if match else len(text)]
    return value[:-1] if value.endswith(",") else value  # a JSON or HCL line's trailing comma


def yaml_value_at(text: str, flow: bool = False) -> str | None:
    """The value at the start of `text` after a YAML (or JSON) key's colon, its node properties left
    out: an anchor (`&pool 512`), a core tag (`!!str 512`, `!!int "512"`). None for a block scalar, an
    alias (`*pool`) or another tag (`!Ref`, `!ENV`, `!!binary`): a value kb cannot know from here."""
    rest = text.lstrip()
    for _ in range(2):  # an anchor and a tag, in either order
        anchor = _ANCHOR.match(rest)
        tag = _TAG.match(rest) if anchor is None else None
        if anchor is not None:
            rest = rest[anchor.end():]
        elif tag is not None:
            verbatim, secondary, suffix = tag.groups()
            core = verbatim.removeprefix(_CORE_PREFIX) if verbatim is not None and verbatim.startswith(_CORE_PREFIX) \
                else suffix if secondary or (not suffix and verbatim is None) else None
            if core not in _CORE_TAGS:
                return None
            rest = rest[tag.end():]
    if rest.startswith("*"):
        return None
    return value_at(rest, flow)


def is_in_flow(before: str) -> bool:
    """Whether text that follows `before` on its line lies inside a flow collection opened there
    (`{ name = "K", value = ...`, `[a, ...`): an open brace or bracket outside quotes."""
    depth, quote = 0, ""
    for char in before:
        if quote:
            quote = "" if char == quote else quote
        elif is_quote(char):
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]" and depth:
            depth -= 1
    return depth > 0


def is_quote(char: str) -> bool:
    return len(char) == 1 and char in _QUOTES


def bare(text: str, at: int) -> str:
    match = _BARE_END.search(text, at)
    return text[at:match.start() if match else len(text)]


def unquoted(text: str) -> str:
    return text[1:-1] if len(text) >= 2 and text[0] == text[-1] and is_quote(text[0]) else text


def resolved(value: str) -> str | None:
    """The value a deploy file's text stands for: a shell default's default; None when it comes from
    elsewhere (another variable, a template)."""
    default = _SHELL_DEFAULT.match(value)
    if default:
        return resolved(unquoted(default.group(1)))  # '${X:-$OTHER}' comes from elsewhere too
    if value.startswith("$") or "{{" in value:
        return None
    return value
