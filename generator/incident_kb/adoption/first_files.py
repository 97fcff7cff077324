"""The first files of a knowledge base: the starter files of `kb init` (in `starter/`), filled in
with the folder's names, each value written for the place it goes: a YAML value in quotes that
both YAML 1.1 (MkDocs, pre-commit) and YAML 1.2 (GitHub) read back as exactly that text, a shell
word quoted so the command runs as meant (`kb check --staged --root 'team kb'`), a path in a
comment URL-encoded so no line break can leave the comment. What is filled in is read back before
anything is written: a value that would not read back as given is a bug, never a file that breaks
a later build. Writes nothing.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path

from ..check.formats import displayable
from ..findings import KbError

STARTER = Path(__file__).parent / "starter"
# MkDocs and Material print site_name without escaping in places (the header, the title): the
# characters that could open markup are replaced by look-alikes, as record page titles are.
_LOOK_ALIKES = str.maketrans({"<": "‹", ">": "›", "&": "＆", '"': "”"})


def site_name(folder_name: str) -> str:
    """The site's name, from the folder's: what a terminal or a page would not show written as an
    escape (a newline as \\n), markup characters as look-alikes, runs of spaces as one."""
    return " ".join(displayable(folder_name).translate(_LOOK_ALIKES).split())


def shell_quoted(word: str) -> str:
    """One word of a command written into a file (`shlex.split` and bash read it back as `word`)."""
    return shlex.quote(word)


def fill(name: str, values: dict[str, str]) -> str:
    """The starter file `name` with each `"@key@"` (a YAML value, or a TOML one in a .toml file) replaced
    by the value in quotes,
    and each bare `@key@` (inside a comment) by the value as it is."""
    # ruamel.yaml: imported by `kb init` alone (the CLI mounts it)
    from ..authoring.yaml_emit import Quoted, render_scalar

    text = (STARTER / name).read_text(encoding="utf-8")
    quoted = toml_quoted if name.endswith(".toml") else (lambda value: render_scalar(Quoted(value)))
    for key, value in values.items():
        text = text.replace(f'"@{key}@"', quoted(value)).replace(f"@{key}@", value)
    return text


def toml_quoted(value: str) -> str:
    """A TOML basic string that reads back as `value` (a literal string '...' cannot hold a `'`)."""
    import json

    return json.dumps(value, ensure_ascii=False)  # JSON's escapes (\\, \", \n, \uXXXX) are TOML's too


def check_reads_back(texts: Mapping[Path, str | bytes],
                     expected: list[tuple[Path, tuple[str | int, ...], str]]) -> None:
    """Raise unless each filled-in file parses, in YAML 1.1 and 1.2, with the value at each path of
    keys as given."""
    parsed: dict[Path, list[tuple[str, object]]] = {}  # a file with several values is parsed once
    for path, keys, value in expected:
        text = texts[path]
        assert isinstance(text, str), f"{path.name} is not a text kb init fills in"
        if path not in parsed:
            parsed[path] = _parsed(text)
        for dialect, found in parsed[path]:
            for key in keys:
                found = found[key]  # type: ignore[index]
            if found != value:  # pragma: no cover - a quoting bug; never write a file that says something else
                raise KbError(f"kb init: {path.name} would read back ({dialect}) as {found!r}, not {value!r}; this "
                              "is a bug in kb; nothing was written")


def _parsed(text: str) -> list[tuple[str, object]]:
    import yaml  # type: ignore[import-untyped]  # PyYAML, installed with MkDocs: what MkDocs and pre-commit read with
    from ruamel.yaml import YAML

    return [("YAML 1.1", yaml.safe_load(text)), ("YAML 1.2", YAML(typ="safe").load(text))]


def check_toml_reads_back(text: str, keys: tuple[str, ...], value: str) -> None:
    """Raise unless the filled-in TOML file (zensical.toml) parses with `value` at `keys`."""
    import tomllib

    found: object = tomllib.loads(text)
    for key in keys:
        found = found[key]  # type: ignore[index]
    if found != value:  # pragma: no cover - a quoting bug; never write a file that says something else
        raise KbError(f"kb init: zensical.toml would read back as {found!r}, not {value!r}; this is a bug in kb; "
                      "nothing was written")
