"""A dotted name written as nested keys: `spark:` / `  sql:` / ... `partitions: 200` in YAML (by
indentation), `{"spark": {"sql": {"shuffle": {"partitions": 200}}}}` in JSON (by its braces, on one
line or many), for `spark.sql.shuffle.partitions`. A part of the path may hold dots itself
(`{"spark.sql": {"shuffle.partitions": 200}}`). `forms.py` asks this for the lines holding the
name's last part; text in, lines out.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from .values import SettingLine, Where, value_at, yaml_value_at

_YAML_KEY = re.compile(r"""^(\s*)(-\s+)?["']?([^\s"':#{}\[\],]+)["']?\s*:(?:\s+(.*))?$""")
_JSON_TOKEN = re.compile(r'"(?:[^"\\\n]|\\.)*"|[{}\[\]:,]|[^\s{}\[\]:,"]+')


def nested_keys(text: str, lines: list[str], candidates: list[int], name: str) -> Iterator[SettingLine]:
    """The lines (among `candidates`, by index) whose key completes dotted `name` under its parents."""
    if text.lstrip()[:1] in ("{", "["):
        yield from _json_nested_keys(text, lines, set(candidates), name)
    else:
        yield from _yaml_nested_keys(lines, candidates, name)


def _json_nested_keys(text: str, lines: list[str], candidates: set[int], name: str) -> Iterator[SettingLine]:
    for path, key, key_at, value_at_ in _json_keys(text):
        if path != name or key == name:  # a flat key naming it whole is read as a key already
            continue
        index = text.count("\n", 0, key_at)
        if index not in candidates:
            continue
        line_start = text.rfind("\n", 0, key_at) + 1
        rest = text[value_at_:].lstrip()
        value = None if rest[:1] in ("{", "[") else value_at(rest.split("\n", 1)[0], flow=True)
        yield Where(index + 1, key_at - line_start + 1, lines[index].strip()).reads(value, "nested JSON keys")


@functools.lru_cache(maxsize=8)
def _json_keys(text: str) -> tuple[tuple[str, str, int, int], ...]:
    """(dotted path, key, where the key starts, where its value starts) of every key of a JSON document,
    read by its tokens alone (one pass; comments and trailing commas do not stop it)."""
    found: list[tuple[str, str, int, int]] = []
    stack: list[str | None] = []  # the key each open object or array is the value of (None: an item)
    previous, previous_at, key = "", 0, None
    for token in _JSON_TOKEN.finditer(text):
        word = token.group(0)
        if word == ":" and previous.startswith('"'):
            key = previous[1:-1]
            found.append((".".join([*(part for part in stack if part), key]), key, previous_at, token.end()))
        elif word in ("{", "["):
            stack.append(key if previous == ":" else None)
        elif word in ("}", "]"):
            if stack:
                stack.pop()
        previous, previous_at = word, token.start()
    return tuple(found)


def _yaml_nested_keys(lines: list[str], candidates: list[int], name: str) -> Iterator[SettingLine]:
    """A dotted name written as nested YAML keys: the line (among `candidates`) whose key completes
    the name, with its parents (by indentation) holding the rest."""
    for index in candidates:
        line = lines[index]
        match = _YAML_KEY.match(line)
        if match is None or match.group(3) == name or not name.endswith("." + match.group(3)):
            continue
        path = [match.group(3)]
        indent = len(match.group(1)) + len(match.group(2) or "")
        for j in range(index - 1, -1, -1):
            parent = _YAML_KEY.match(lines[j])
            if not lines[j].strip() or lines[j].lstrip().startswith("#"):
                continue
            own = len(lines[j]) - len(lines[j].lstrip())
            if own >= indent:
                continue
            if parent is None or (parent.group(4) or "").strip():
                break
            path.insert(0, parent.group(3))
            indent = own
            if ".".join(path) == name or not name.endswith("." + ".".join(path)):
                break
        if ".".join(path) == name:
            rest = match.group(4) or ""
            value = yaml_value_at(rest) if rest.strip() else None
            yield Where(index + 1, len(match.group(1)) + len(match.group(2) or "") + 1,
                         line.strip()).reads(value, "nested YAML keys")
