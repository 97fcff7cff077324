"""`kb init --site zensical` beside a Zensical site a team already has: what its zensical.toml must
add to show the knowledge base, and, with `kb init --merge`, that addition made in the file.

The knowledge base's pages go into a folder of the team's docs folder (`kb/`, like `prefix: kb` for
MkDocs), which `kb render` fills: the folder is where the configuration loads the pages' style sheet
from (`website/core/site_config.zensical_prefix`), so adding that line is what tells kb render where
to write. What is added to `[project]`, only where missing: the style sheet and the script
(`extra_css`, `extra_javascript`), the markdown extensions the pages use when the file lists its own,
the theme folder `kb render` writes its edit-button override into (when the theme has none of its own),
a "Knowledge base" section at the end of an explicit `nav`, the search plugin's separator (it splits
`_`, `+`, `%` and `−` too) and the tags plugin. The lines are spliced into the text: an array gains
its items before its closing bracket, a missing key goes at the end of `[project]`'s own keys, a
missing table at the end of the file; every other byte (comments, order, quoting, line endings) is
kept. The result is parsed again and must read as the old file plus exactly the additions; a shape
kb cannot add to line by line (no `[project]` table, an inline table in the way) is refused with the
lines to add by hand. Writes nothing: `init` writes.
"""

from __future__ import annotations

import copy
import posixpath
import re
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..repository.written_pages import MANIFEST
from ..settings.config_files import ZENSICAL_TOML
from ..website.core.bundle import SiteNeeds
from ..website.core.links import INCIDENT_INDEX, KNOB_INDEX, TAGS_PAGE
from ..website.core.site_config import ZENSICAL_THEME, zensical_prefix
from .site_merge import PREFIXES, SEARCH_SEPARATOR, SiteAdditions, SiteSetup, site_dir_of
from .site_readback import CannotMerge

_HEADER = re.compile(r"^[ \t]*\[")
_PROJECT = re.compile(r"^[ \t]*\[[ \t]*project[ \t]*\][ \t]*(#.*)?$")
_THEME = re.compile(r"^[ \t]*\[[ \t]*project\.theme[ \t]*\][ \t]*(#.*)?$")
_EXTENSIONS = re.compile(r"^[ \t]*\[[ \t]*project\.markdown_extensions[ \t]*\][ \t]*(#.*)?$")


def zensical_site_setup(root: Path, text: str, docs: str) -> SiteSetup:
    """A team's own zensical.toml (`text`, its docs folder `docs`): where the knowledge base goes in
    its docs folder, and what the file must add to show it."""
    try:
        project = tomllib.loads(text).get("project")
    except (tomllib.TOMLDecodeError, RecursionError):
        project = None
    project = project if isinstance(project, dict) else {}
    site_dir = site_dir_of(root, project.get("site_dir", "site"))
    configured = zensical_prefix(project)
    try:
        prefix = configured if configured is not None else zensical_prefix_for(root / docs)
        additions = zensical_additions(text, prefix)
    except CannotMerge as exc:
        return SiteSetup("zensical", ZENSICAL_TOML, True, docs, configured or PREFIXES[0], site_dir, text, None,
                         str(exc))
    return SiteSetup("zensical", ZENSICAL_TOML, True, docs, prefix, site_dir, text, additions)


def zensical_prefix_for(docs_folder: Path) -> str:
    """The folder of the team's docs the knowledge base's pages go into: the first of PREFIXES that
    does not exist, or that kb render wrote (its manifest there); `kb/` when the team has none."""
    for prefix in PREFIXES:
        folder = docs_folder / prefix
        if not folder.exists() and not folder.is_symlink() or (folder / MANIFEST).is_file():
            return prefix
    raise CannotMerge(f"the docs folder has folders of its own at {', '.join(f'{p}/' for p in PREFIXES)}, where kb "
                      "render would write the knowledge base's pages")


def toml_string(value: str) -> str:
    """A TOML basic string that reads back as `value`."""
    import json

    return json.dumps(value, ensure_ascii=False)


def zensical_additions(text: str, prefix: str) -> SiteAdditions:
    """What zensical.toml (`text`) must add to show the knowledge base with its pages under `prefix`
    of the docs folder; CannotMerge when it cannot be added line by line."""
    try:
        config = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, RecursionError) as exc:
        raise CannotMerge(f"it cannot be read as TOML ({exc})") from None
    project = config.get("project")
    if not isinstance(project, dict):
        raise CannotMerge("it has no [project] table")
    if zensical_prefix(project) is not None:
        return SiteAdditions(None)
    at = (lambda path: posixpath.join(prefix, path)) if prefix else (lambda path: path)
    needs = SiteNeeds()
    wanted: dict[str, list[Any]] = {
        "extra_css": [at(sheet) for sheet in needs.stylesheets],
        "extra_javascript": [at(script) for script in needs.scripts]}
    nav = project.get("nav")
    section = {"Knowledge base": [at("index.md"), {"Knobs": at(KNOB_INDEX)}, {"Incidents": at(INCIDENT_INDEX)},
                                  {"Tags": at(TAGS_PAGE)}]}
    if isinstance(nav, list) and nav and not _mentions(nav, at(KNOB_INDEX)):
        wanted["nav"] = [section]
    extensions = project.get("markdown_extensions")
    if isinstance(extensions, list):  # the MkDocs style: names, or one-key tables
        named = {next(iter(item)) if isinstance(item, dict) and item else item for item in extensions}
        missing = [name for name in needs.markdown_extensions if name not in named]
        if missing:
            wanted["markdown_extensions"] = missing
    lines = text.splitlines(True)
    eol = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += eol
    starts = _line_depths(lines)
    header, end = _table(lines, starts, _PROJECT)
    if header is None:
        raise CannotMerge("its [project] table is not written as a [project] header")
    expected = copy.deepcopy(config)
    edits: list[tuple[int, int, str]] = []  # (start, end, new text) in character offsets of the joined lines
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    joined = "".join(lines)
    new_keys: list[str] = []
    for key, items in wanted.items():
        expected["project"].setdefault(key, [])
        if not isinstance(expected["project"][key], list):
            raise CannotMerge(f"its {key} is not an array")
        expected["project"][key] += copy.deepcopy(items)
        written = _key_line(lines, starts, header + 1, end, key)
        if written is None:
            if key in project:
                raise CannotMerge(f"its {key} is not written as `{key} = [...]` in [project]")
            new_keys.append(f"{key} = [{', '.join(_toml_value(item) for item in items)}]{eol}")
            continue
        edits.append(_appended(joined, offsets[written], [_toml_value(item) for item in items], eol))
    if new_keys:
        at_end = _end_of_keys(lines, header, end)
        edits.append((offsets[at_end], offsets[at_end], "".join(new_keys)))
    if isinstance(extensions, dict):  # `[project.markdown_extensions]`: it replaces Zensical's defaults
        missing = [name for name in needs.markdown_extensions if name not in extensions]
        table, table_end = _table(lines, starts, _EXTENSIONS)
        if missing and table is None:
            raise CannotMerge("its markdown_extensions are not written as a [project.markdown_extensions] table")
        if missing and table is not None:
            at_end = _end_of_keys(lines, table, table_end)
            edits.append((offsets[at_end], offsets[at_end], "".join(f"{name} = {{}}{eol}" for name in missing)))
            expected["project"]["markdown_extensions"].update({name: {} for name in missing})
    tables = _theme_and_plugins(project, lines, starts, offsets, eol, expected, edits)
    if tables:
        blank = "" if not lines or not lines[-1].strip() else eol
        edits.append((len(joined), len(joined), blank + "".join(tables)))
    if not edits:
        return SiteAdditions(None)
    new_text = joined
    for _, (start, stop, insert) in sorted(enumerate(edits), key=lambda edit: (edit[1][0], edit[0]), reverse=True):
        new_text = new_text[:start] + insert + new_text[stop:]
    try:
        reread = tomllib.loads(new_text)
    except tomllib.TOMLDecodeError as exc:
        raise CannotMerge(f"adding to it line by line would not read as TOML ({exc})") from None
    if reread != expected:
        raise CannotMerge("adding to it line by line would not read as the file plus the knowledge base's settings")
    return SiteAdditions(new_text)


def _theme_and_plugins(project: dict[str, Any], lines: list[str], starts: list[int], offsets: list[int], eol: str,
                       expected: dict[str, Any], edits: list[tuple[int, int, str]]) -> list[str]:
    """The theme folder kb render writes its override into, the search separator and the tags plugin,
    where missing: the edits made in [project.theme], and the tables to add at the end of the file
    (`expected` gains what they read as)."""
    tables: list[str] = []
    theme = project.get("theme")
    if theme is None:  # the theme override that makes a record page's edit button open its YAML
        tables += [f"[project.theme]{eol}", f"custom_dir = {toml_string(ZENSICAL_THEME)}"
                   f"   # kb render writes an override here: record pages' edit buttons open their YAML{eol}"]
        expected["project"]["theme"] = {"custom_dir": ZENSICAL_THEME}
    elif isinstance(theme, dict) and "custom_dir" not in theme:
        table, table_end = _table(lines, starts, _THEME)
        if table is not None:  # a theme written otherwise keeps Zensical's edit buttons (record pages link their YAML)
            at_end = _end_of_keys(lines, table, table_end)
            edits.append((offsets[at_end], offsets[at_end], f"custom_dir = {toml_string(ZENSICAL_THEME)}"
                          f"   # kb render writes an override here: record pages' edit buttons open their YAML{eol}"))
            expected["project"]["theme"]["custom_dir"] = ZENSICAL_THEME
    plugins = project.get("plugins", {})
    if not isinstance(plugins, dict):
        raise CannotMerge("its plugins are not a table")
    search = plugins.get("search")
    if search is None:
        tables += [f"[project.plugins.search]{eol}",
                   f"# Split on '_' too (a setting's short name finds its page), and on '+', '%' and '−'{eol}",
                   f"separator = {_literal(SEARCH_SEPARATOR)}{eol}"]
        expected["project"].setdefault("plugins", {})["search"] = {"separator": SEARCH_SEPARATOR}
    if "tags" not in plugins:
        tables += [f"[project.plugins.tags]{eol}"]
        expected["project"].setdefault("plugins", {})["tags"] = {}
    return tables


def hand_lines(prefix: str) -> list[str]:
    """The settings to add by hand where --merge cannot (TOML, as zensical.toml reads them)."""
    at = (lambda path: posixpath.join(prefix, path)) if prefix else (lambda path: path)
    needs = SiteNeeds()
    return ["[project]   # beside its own settings: these arrays gain these items",
            f"extra_css = [{', '.join(toml_string(at(sheet)) for sheet in needs.stylesheets)}]",
            f"extra_javascript = [{', '.join(toml_string(at(script)) for script in needs.scripts)}]",
            "[project.plugins.search]", f"separator = {_literal(SEARCH_SEPARATOR)}", "[project.plugins.tags]"]


def _literal(value: str) -> str:
    return f"'{value}'" if "'" not in value and "\n" not in value else toml_string(value)


def _toml_value(value: Any) -> str:
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(item) for item in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_string(key)} = {_toml_value(item)}" for key, item in value.items()) + " }"
    raise TypeError(value)  # pragma: no cover - kb adds strings, arrays and tables only


def _mentions(nav: Any, page: str) -> bool:
    if isinstance(nav, str):
        return nav == page
    if isinstance(nav, dict):
        return any(_mentions(value, page) for value in nav.values())
    if isinstance(nav, list):
        return any(_mentions(item, page) for item in nav)
    return False


def _significant(text: str, start: int = 0) -> Iterator[tuple[int, str]]:
    """(offset, character) of each character of `text` from `start` that is TOML syntax: outside
    strings and comments, not white space (a string yields its opening quote only)."""
    index, size = start, len(text)
    while index < size:
        char = text[index]
        if char == "#":
            newline = text.find("\n", index)
            index = size if newline < 0 else newline
            continue
        if char in "\"'":
            yield index, char
            index = _string_end(text, index)
            continue
        if char not in " \t\r\n":
            yield index, char
        index += 1


def _line_depths(lines: list[str]) -> list[int]:
    """How deep inside brackets and braces each line starts (0: a key or a table header may start there)."""
    starts: list[int] = []
    offset = 0
    for text in lines:
        starts.append(offset)
        offset += len(text)
    depths, depth, line = [0] * len(lines), 0, 0
    for index, char in _significant("".join(lines)):
        while line < len(starts) and starts[line] <= index:
            depths[line] = depth
            line += 1
        depth += 1 if char in "[{" else -1 if char in "]}" else 0
    for rest in range(line, len(lines)):
        depths[rest] = depth
    return depths


def _table(lines: list[str], depths: list[int], header: re.Pattern[str]) -> tuple[int | None, int]:
    """The line of the table header `header` matches, and the index of the line after its keys."""
    first = next((index for index, line in enumerate(lines)
                  if depths[index] == 0 and header.match(line.rstrip("\r\n"))), None)
    if first is None:
        return None, len(lines)
    return first, next((index for index in range(first + 1, len(lines))
                        if depths[index] == 0 and _HEADER.match(lines[index])), len(lines))


def _key_line(lines: list[str], depths: list[int], first: int, end: int, key: str) -> int | None:
    pattern = re.compile(rf"^[ \t]*([\"']?){re.escape(key)}\1[ \t]*=")
    return next((index for index in range(first, end) if depths[index] == 0 and pattern.match(lines[index])), None)


def _appended(text: str, line_start: int, items: list[str], eol: str) -> tuple[int, int, str]:
    """The edit that adds `items` at the end of the array whose key starts at `line_start`."""
    opening = None
    depth = 0
    last = None  # the offset after the last significant character inside the array
    for index, char in _significant(text, text.index("=", line_start) + 1):
        if opening is None:
            if char != "[":
                raise CannotMerge("an array kb adds to is not written as an array")
            opening, depth = index, 1
            continue
        if char in "[{":
            depth += 1
        elif char in "]}":
            depth -= 1
            if depth == 0:
                return _insertion(text, opening, index, last, items, eol)
        if char in "\"'":
            last = _string_end(text, index)
        else:
            last = index + 1
    raise CannotMerge("an array kb adds to does not close")


def _string_end(text: str, index: int) -> int:
    """The offset after the string whose opening quote is at `index`."""
    char, size = text[index], len(text)
    quote = char * 3 if text.startswith(char * 3, index) else char
    index += len(quote)
    while index < size and not text.startswith(quote, index):
        index += 2 if char == '"' and text[index] == "\\" else 1
    index += len(quote)
    while len(quote) == 3 and index < size and text[index] == char:  # `""""`: a quote inside, then the close
        index += 1
    return index


def _insertion(text: str, opening: int, closing: int, last: int | None, items: list[str],
               eol: str) -> tuple[int, int, str]:
    """Items added before `closing`: one a line in an array written one item a line, else inline."""
    comma = "" if last is None or text[last - 1] == "," else ","
    if "\n" not in text[opening:closing]:  # `["a.css"]`: inline
        gap = "" if last is None else " "
        return (last or opening + 1, last or opening + 1, comma + gap + ", ".join(items))
    line_start = text.rfind("\n", 0, closing) + 1
    if text[line_start:closing].strip():  # `  "b"]`: the bracket after an item
        indent = re.match(r"[ \t]*", text[line_start:]).group(0)  # type: ignore[union-attr]
        return (last or opening + 1, last or opening + 1,
                comma + "".join(f"{eol}{indent}{item}," for item in items))
    previous = text.rfind("\n", 0, last) + 1 if last is not None else line_start
    indent = re.match(r"[ \t]*", text[previous:]).group(0) if last is not None else "  "  # type: ignore[union-attr]
    added = "".join(f"{indent}{item},{eol}" for item in items)
    if comma:  # the last item has no comma after it: one goes right after it (its comment stays put)
        return (last or 0, line_start, "," + text[last or 0:line_start] + added)
    return (line_start, line_start, added)


def _end_of_keys(lines: list[str], header: int, end: int) -> int:
    """The index of the line after [project]'s last key (trailing comments and blank lines stay
    below what is added: they may be about the next table)."""
    while end > header + 1 and (not lines[end - 1].strip() or lines[end - 1].lstrip().startswith("#")):
        end -= 1
    return end
