r"""What a deploy file sets a setting to, in the forms deploy files are written in.

`read_settings(text, name)` finds every line that names the setting (as a whole token, see
`setting_names`) outside a comment, and reads the value it sets, trying each form in turn:

- a name/value pair: Kubernetes env lists (`- name: X` then `value: "20"`, on the next lines or one,
  in either order), ECS and Ansible alike (`{"name": "X", "value": "20"}`, `name = "X"` then
  `value = "20"`, CloudFormation's `Name`/`Value`, JSON with escaped quotes inside a string);
- `NAME=VALUE` and `NAME = VALUE`: shell (`export`), `.env`, systemd `Environment=`, docker-compose
  lists, HCL/terraform, sysctl.conf, `sysctl -w`, JVM `-XX:Name=V`, `--flag=V`, quoted or not;
- `NAME: VALUE`: YAML and JSON keys (helm values), and a dotted name written as nested YAML or JSON
  keys (`spark:` / `  sql:` / ... `partitions: 200` for `spark.sql.shuffle.partitions`; see
  `nesting.py`);
- JVM switches `-XX:+Name` (true) and `-XX:-Name` (false), and `-Xmx4g` for a name such as `-Xmx`;
- command-line flags `--name V` (also `"--name", "V"` in a list, or the next list item), and a
  flag given alone (true);
- a directive `NAME VALUE` on a line of its own (nginx, redis, Dockerfile `ENV NAME VALUE`).
- a block naming it and holding its value: terraform's `variable "NAME" {` ... `default = V`, and
  Hadoop-style XML's `<name>NAME</name>` ... `<value>V</value>`.

- a Java system property `-Dname=V` for a dotted name (`-Dspark.sql.shuffle.partitions=200`).

A value that comes from elsewhere (`$OTHER`, `{{ .Values.x }}`, a `valueFrom:`) is not a value; a
shell default (`${X:-512}`) is its default. A line that names the setting in no form read here is
returned with no value, so the caller says it cannot read it: silence would pass a reverted knob
still deployed. A line that hands the setting on from where it runs (`docker run -e NAME`,
`--env NAME`, a docker-compose `- NAME`) is returned as passed through: it sets nothing itself, and
the caller decides whether the file sets it elsewhere. Lines that only refer to the setting (`$NAME`,
`unset NAME`, `export NAME`) set nothing and are left out. Text in, lines out: no file, no knob.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator
from dataclasses import dataclass

from ..records.setting_names import name_positions, stands_with_value, takes_attached_value
from .nesting import nested_keys
from .values import SettingLine, Where, bare, is_in_flow, is_quote, resolved, unquoted, value_at, yaml_value_at

# A name/value pair's keys: `name`, or CloudFormation's `Name`; quoted, or with escaped quotes inside a string.
_PAIR_NAME = re.compile(r"""(?:^|[\s{,(\[])\\?["']?[Nn]ame\\?["']?\s*[:=]\s*\\?["']?$""")
_PAIR_VALUE = re.compile(r"""(?<![\w-])\\?["']?([Vv]alue(?:From)?)\\?["']?\s*[:=]\s*""")
_VALUE_KEYS = ("value", "valuefrom")  # a pair's value keys, lower-cased
_NAME_KEY = re.compile(r"""(?:^|[\s{,])\\?["']?[Nn]ame\\?["']?\s*[:=]""")
_KEY_LINE = re.compile(r"""^(\s*)(-\s+)?["']?([^\s"':#=]+)["']?\s*[:=](?:\s|$)\s*(.*)$""")
_JVM = re.compile(r"^-XX:[+-]?([A-Za-z0-9_]+)$")
_REFERENCE_BEFORE = ("$", "${", "$(", "%")
_SHELL_FALLBACK = re.compile(r"""\s*:?[-=]([^}$]*)\}""")  # after the name in '${NAME:-512}', '${NAME:=512}'
_NOT_SETTING_PREFIX = re.compile(r"(^|\s)(unset|export|env\s+-u|readonly|local|declare)\s+$")
# `docker run -e NAME`, `--env NAME`, `--env=NAME`, a docker-compose list item `- NAME`: the value the
# setting has where the command runs, handed on.
_PASS_THROUGH_BEFORE = re.compile(r"""((^|\s)(-e|--env)(\s+|=)|^\s*-\s+)["']?$""")


@dataclass(frozen=True, slots=True)
class _Variant:
    token: str  # what the file writes
    implied: str | None = None  # the value the token itself sets (-XX:+Flag: true)
    attached: bool = False  # the value follows without a separator (-Xmx4g)


def _variants(name: str) -> tuple[_Variant, ...]:
    jvm = _JVM.match(name)
    if jvm:
        base = jvm.group(1)
        return (_Variant(f"-XX:{base}"), _Variant(f"-XX:+{base}", "true"), _Variant(f"-XX:-{base}", "false"))
    if takes_attached_value(name):  # -Xmx, -Xms, -Xss: the value follows the name directly
        return (_Variant(name, attached=True),)
    if "." in name and not name.startswith("-"):  # a property: also a Java system property, -Dname=V
        return (_Variant(name), _Variant(f"-D{name}"))
    return (_Variant(name),)


def read_settings(text: str, name: str) -> tuple[SettingLine, ...]:
    """Every line of `text` that names setting `name` and could set it, with the value it sets (None
    when no form read here understands it), in file order. Only the lines holding the name are
    looked at (one deploy file often sets hundreds of knobs, each asked in turn)."""
    variants = _variants(name)
    last = name.rsplit(".", 1)[-1] if "." in name else None
    if not any(variant.token in text for variant in variants) and (last is None or last not in text):
        return ()
    lines, starts = _lines(text)
    found: list[SettingLine] = []
    for variant in variants:
        for index in _lines_holding(text, starts, variant.token):
            line = lines[index]
            limit = _comment_start(line)
            for at in _token_positions(line, variant, limit):
                item = _read_at(lines, index, at, variant)
                if item is not None:
                    found.append(item)
    if last is not None:
        found.extend(nested_keys(text, lines, _lines_holding(text, starts, last), name))
    # One reading per line and value: 'NAME=${NAME:-512}' sets 512 once.
    unique = {(item.line, item.value, item.form if item.value is None else ""): item
              for item in sorted(found, key=lambda item: -item.column)}
    return tuple(sorted(unique.values(), key=lambda item: (item.line, item.column)))


@functools.lru_cache(maxsize=8)
def _lines(text: str) -> tuple[list[str], list[int]]:
    """The text's lines (split at '\\n', as editors and CI count them; a '\\r' before it dropped) and
    where each starts, kept for the next knob asking about the same file."""
    lines = text.split("\n")
    starts, at = [], 0
    for line in lines:
        starts.append(at)
        at += len(line) + 1
    return [line[:-1] if line.endswith("\r") else line for line in lines], starts


def _lines_holding(text: str, starts: list[int], token: str) -> list[int]:
    """The indexes of the lines that contain `token`, in order, each once."""
    found: list[int] = []
    at = text.find(token)
    while at != -1:
        index = bisect.bisect_right(starts, at) - 1
        if not found or found[-1] != index:
            found.append(index)
        at = text.find(token, at + 1)
    return found


def _token_positions(line: str, variant: _Variant, limit: int) -> Iterator[int]:
    if variant.attached:
        at = line.find(variant.token, 0, limit)
        while at != -1:
            if stands_with_value(line, at, at + len(variant.token)):
                yield at
            at = line.find(variant.token, at + 1, limit)
        return
    yield from name_positions(line, variant.token, 0, limit)


def _comment_start(line: str) -> int:
    """Where a comment starts on the line (its length when none): `#` at the start or after a space
    outside quotes, or a line that starts with `//`, `;` or `<!--`."""
    stripped = line.lstrip()
    if stripped.startswith(("//", ";", "<!--")):
        return len(line) - len(stripped)
    quote = ""
    for i, char in enumerate(line):
        if quote:
            if char == quote:
                quote = ""
        elif is_quote(char):
            quote = char
        elif char == "#" and (i == 0 or line[i - 1].isspace()):
            return i
    return len(line)


def _read_at(lines: list[str], index: int, at: int, variant: _Variant) -> SettingLine | None:
    line = lines[index]
    end = at + len(variant.token)
    before = line[:at]
    here = Where(index + 1, at + 1, line.strip())
    if before.endswith("${"):
        default = _SHELL_FALLBACK.match(line, end)
        if default and resolved(unquoted(default.group(1))):  # '${NAME:-512}': 512 unless set elsewhere
            return here.reads(unquoted(default.group(1)), "shell default")
    if before.endswith(_REFERENCE_BEFORE):
        return None  # a reference to the setting's value, not a setting
    if _NOT_SETTING_PREFIX.search(before) and not line[end:].lstrip().startswith("="):
        return None  # 'export NAME', 'unset NAME': sets no value
    if variant.attached:
        return here.reads(bare(line, end) or None, "JVM option")
    quote = before[-1:] if is_quote(before[-1:]) else ""
    after = end + 1 if quote and line[end:end + 1] == quote else end
    if quote and before[-2:-1] == "\\" and line[end:end + 2] == "\\" + quote:
        after = end + 2  # \"NAME\": JSON inside a string
    if variant.implied is not None and line[after:after + 1] != "=":
        return here.reads(variant.implied, "JVM flag")
    if _PAIR_NAME.search(before):
        return _pair(lines, index, after, here)
    for opens, value_key, closes, form in _BLOCKS:
        if opens.search(before) and _closes_name(line[after:], form):
            return _block(lines, index, after, here, value_key, closes, form)
    if line[after:].lstrip().startswith(("=", ":")):
        return _assignment(line, after, here, variant.token, bool(quote))
    if variant.token.startswith("-"):
        return _flag(lines, index, after, here)
    directive = re.match(r"^\s*(?:ENV\s+)?$", before) and re.match(r"^\s+([^\s;]+)\s*;?\s*$", line[after:])
    if directive:
        return here.reads(unquoted(directive.group(1)), "NAME VALUE")
    if _PASS_THROUGH_BEFORE.search(before) and re.match(r"""^["']?(\s|$)""", line[after:]):
        return here.passing_through()
    return here.unreadable()


# A name given in a block that holds its value: terraform's `variable "NAME" {` ... `default = V`,
# Hadoop-style XML's `<name>NAME</name>` ... `<value>V</value>`.
_BLOCKS = (
    (re.compile(r"""(^|\s)variable\s+"$"""), re.compile(r"""(?<![\w-])default\s*=\s*"""), re.compile(r"^\s*}"),
     "terraform variable"),
    (re.compile(r"<name>\s*$"), re.compile(r"<value>\s*"), re.compile(r"</property>"), "XML property"),
)


def _closes_name(rest: str, form: str) -> bool:
    """Whether the text after a name in a block ends the name as that form does."""
    return bool(re.match(r'^\s*\{', rest) if form == "terraform variable" else re.match(r"^\s*</name>", rest))


def _block(lines: list[str], index: int, at: int, here: Where, value_key: re.Pattern[str], closes: re.Pattern[str],
           form: str) -> SettingLine:
    """The value of a block that names the setting: on the name's line or the lines after it, up to
    the block's end."""
    for j in range(index, min(len(lines), index + 50)):
        text = lines[j][at:] if j == index else lines[j]
        found = value_key.search(text)
        if found:
            raw = text[found.end():]
            value = raw[:raw.index("<")].strip() if form == "XML property" and "<" in raw else value_at(raw)
            where = Where(j + 1, here.column if j == index else found.start() + 1, lines[j].strip())
            return where.reads(value, form, name_line=index + 1, name_text=here.text)
        if j > index and closes.search(lines[j]):
            break
    return here.unreadable()


def _assignment(line: str, at: int, here: Where, name: str, quoted: bool) -> SettingLine | None:
    """`NAME=VALUE`, `NAME = VALUE`, `NAME: VALUE` (at: just after the name and its closing quote)."""
    rest = line[at:].lstrip()
    separator, rest = rest[0], rest[1:]
    if separator == ":" and not quoted and rest[:1] not in ("", " ", "\t"):
        return here.unreadable()  # 'NAME:x' with no space is no YAML key (JSON's "NAME":1 is quoted)
    if separator == "=" and rest.startswith("="):
        return here.unreadable()  # '==': a comparison, not a setting
    flow = is_in_flow(line[:here.column - 1])
    value = yaml_value_at(rest, flow) if separator == ":" else value_at(rest, flow)
    if value is None or (separator == ":" and value == "" and not is_quote(rest.strip()[:1])):
        return here.unreadable()  # a block scalar, or 'NAME:' opening a nested block: no value on this line
    if value in (f"${name}", f"${{{name}}}"):
        return None  # NAME=$NAME (an echo, a no-op): sets nothing new
    return here.reads(value, "NAME=VALUE" if separator == "=" else "YAML/JSON key")


def _flag(lines: list[str], index: int, at: int, here: Where) -> SettingLine:
    """`--name V`, `"--name", "V"`, `--name` then its value on the next line (a shell continuation, the
    next list item or array element), or `--name` alone (true)."""
    line = lines[index]
    rest = line[at:]
    element = re.match(r"""^\s*,\s*(["'])([^"']*)\1""", rest)  # ["--name", "V"]
    if element:
        return here.reads(element.group(2), "CLI flag")
    word = re.match(r"^\s+([^\s\\]+)", rest)
    if word and not _is_flag(word.group(1)):
        return here.reads(unquoted(word.group(1).rstrip(",;")), "CLI flag")
    if not word:
        following = _next_content(lines, index)
        continued = rest.strip() == "\\" and following is not None
        list_item = re.match(r"^(\s*)-\s", line)
        array = re.match(r"^\s*,\s*$", rest)
        value = None
        if continued:
            value = re.match(r"^\s*([^\s\\]+)", following or "")
        elif list_item and following is not None:
            same_list = following.startswith(list_item.group(1) + "-") and \
                len(following) - len(following.lstrip()) == len(list_item.group(1))
            value = re.match(r"""^\s*-\s+(["']?)([^\s"']+)\1\s*$""", following) if same_list else None
        elif array and following is not None:
            value = re.match(r"""^\s*(["'])([^"']*)\1\s*,?\s*\]?\s*$""", following)
        if value is not None:
            found = value.group(value.lastindex or 1)
            if not _is_flag(found):
                return here.reads(unquoted(found), "CLI flag")
    return here.reads("true", "CLI flag")  # given alone, or followed by another flag: it is on


def _is_flag(text: str) -> bool:
    return text.startswith("-") and not re.match(r"^-\d", text)


def _next_content(lines: list[str], index: int) -> str | None:
    for line in lines[index + 1:]:
        if line.strip() and not line.lstrip().startswith("#"):
            return line
    return None


def _pair(lines: list[str], index: int, at: int, here: Where) -> SettingLine:
    """A name/value pair whose name is the setting: its `value` on the same line (a flow mapping), or
    a sibling key of the same mapping on the lines around it."""
    line = lines[index]
    opened = _open_object(line, at)
    same = _PAIR_VALUE.search(line, at, _object_end(line, at)) or \
        (_PAIR_VALUE.search(line, opened, at) if opened is not None else None)
    if same:
        if same.group(1).lower() == "valuefrom":
            return here.unreadable()
        return here.reads(yaml_value_at(line[same.end():], True), "Kubernetes env")
    if opened is not None:  # `[{ name = "K"` with `value = ...` on a line below, before the object closes
        return _pair_below(lines, index, here)
    start = re.match(r"^(\s*)(-\s+)?", line)
    assert start is not None
    column = len(start.group(0))
    siblings = list(_siblings(lines, index, column, first=bool(start.group(2))))
    for sibling_index, key, rest in siblings:
        if key.lower() in _VALUE_KEYS:
            where = Where(sibling_index + 1, column + 1, lines[sibling_index].strip())
            value = None if key.lower() == "valuefrom" else yaml_value_at(rest)
            return where.reads(value, "Kubernetes env", name_line=index + 1, name_text=line.strip())
    return here.unreadable()


def _open_object(line: str, at: int) -> int | None:
    """Where the flow object holding the text at `at` opens on its line (`{ "value": "256", "name": `),
    None when none is open there."""
    opens = line.rfind("{", 0, at)
    return opens if opens != -1 and is_in_flow(line[opens:at]) else None


def _object_end(line: str, at: int) -> int:
    """Where the flow object holding the text at `at` closes on its line (the line's end when it does not)."""
    depth, quote = 0, ""
    for i in range(at, len(line)):
        char = line[i]
        if quote:
            quote = "" if char == quote else quote
        elif is_quote(char):
            quote = char
        elif char in "{[":
            depth += 1
        elif char in "}]":
            if not depth:
                return i
            depth -= 1
    return len(line)


def _pair_below(lines: list[str], index: int, here: Where) -> SettingLine:
    """The value of a pair whose object opens on the name's line: a `value` key on a line below,
    before the object closes."""
    for j in range(index + 1, min(len(lines), index + 20)):
        found = _PAIR_VALUE.search(lines[j])
        if found:
            value = None if found.group(1).lower() == "valuefrom" else yaml_value_at(lines[j][found.end():], True)
            return Where(j + 1, found.start() + 1, lines[j].strip()).reads(
                value, "Kubernetes env", name_line=index + 1, name_text=here.text)
        if "}" in lines[j] or _NAME_KEY.search(lines[j]):
            break
    return here.unreadable()


def _siblings(lines: list[str], index: int, column: int, first: bool) -> Iterator[tuple[int, str, str]]:
    """(index, key, rest of line) of the keys of the mapping whose key at `column` is on line `index`:
    below it, then (unless it opens its list item) above it."""
    for j in range(index + 1, len(lines)):
        found = _key_at(lines[j], column)
        if found is _BLANK:
            continue
        if found is None:
            break
        if found is not _DEEPER:
            yield (j, *found)  # type: ignore[misc]
    if first:
        return
    for j in range(index - 1, -1, -1):
        found = _key_at(lines[j], column)
        if found is _BLANK or found is _DEEPER:
            continue
        if found is None:
            line_start = re.match(r"^(\s*)-\s+", lines[j])
            if line_start and len(line_start.group(0)) == column:  # the item's first line: '- key: ...'
                match = _KEY_LINE.match(lines[j])
                if match:
                    yield j, match.group(3), match.group(4)
            break
        yield (j, *found)  # type: ignore[misc]


_BLANK = ("", "")
_DEEPER = ("", " ")


def _key_at(line: str, column: int) -> tuple[str, str] | None:
    """The key and the rest of a line whose key sits at `column` (not opening a list item); _BLANK
    for a blank or comment line, _DEEPER for a line inside a value below the column, None when the
    mapping has ended."""
    stripped = line.strip()
    if not stripped or stripped.startswith(("#", "//")):
        return _BLANK
    indent = len(line) - len(line.lstrip())
    if indent > column:
        return _DEEPER
    if indent < column or stripped.startswith("-"):
        return None
    match = _KEY_LINE.match(line)
    if match is None:
        return None if stripped[0] in "}]" else _DEEPER
    return match.group(3), match.group(4)
