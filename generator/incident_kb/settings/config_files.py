"""The knowledge base's configuration files: which they are (the one list), and each read once,
bounded, through the repository's reader (so a cached check's key sees every byte), and parsed once.

    pyproject.toml                [tool.incident-kb]: severities, rule settings, docs-dir
    zensical.toml                 a Zensical site (its docs_dir)
    properdocs.yml ... mkdocs.yaml  the MkDocs family's configuration, the first that exists
    .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS   who owns a doc (codeowners.py), the first that exists

A file that cannot be read or parsed is kept with its error: each setting that reads it says what
the error means for it (a `bad-config` finding, the default docs folder with the problem said).
The site configuration is read as data: tags such as `!!python/name:` read as nothing. Its
`INHERIT:` parents are read as MkDocs reads them (a path relative to the file that names it, mappings
merged, the child's values winning, lists replaced), each bounded and inside the repository, at most
MAX_INHERIT deep: a parent kb cannot read that way makes the file unreadable (`bad-config`), so the
docs folder kb checks is the one MkDocs builds, or the check says it is not.

Every path a configuration names (a docs folder, Zensical's `docs_dir` and `theme.custom_dir` that
`kb render` writes into) is held to the repository by `repository_path`, decided here once: a
configuration file is changed by pull requests like any other.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..repository.files import UnreadableFile, lexists, read_bounded, real_path
from .codeowners import CODEOWNERS_FILES

SETTINGS_FILE = "pyproject.toml"
ZENSICAL_TOML = "zensical.toml"
# The MkDocs family's configuration files, in the order ProperDocs looks for them (MkDocs: the last two).
MKDOCS_CONFIGS = ("properdocs.yml", "properdocs.yaml", "mkdocs.yml", "mkdocs.yaml")
SITE_CONFIGS = (*MKDOCS_CONFIGS, ZENSICAL_TOML)  # a site's configuration (kb init finds and never replaces it)
CONFIG_FILES = (SETTINGS_FILE, *SITE_CONFIGS, *CODEOWNERS_FILES)  # every file the settings are read from
MAX_CONFIG_BYTES = 1 << 20
MAX_INHERIT = 8  # parents of parents: MkDocs has no bound, kb stops here
INHERIT = "INHERIT"
SITE_GENERATORS = ("mkdocs", "zensical")  # what a knowledge base's site is built with (kb init --site)


@dataclass(frozen=True, slots=True)
class ConfigFile:
    """One configuration file as read: its text and parsed mapping, or why it could not be read."""

    name: str  # relative to the knowledge base's root
    text: str | None = None
    parsed: dict[str, Any] | None = None  # a document that is not a mapping reads as {}
    error: Exception | None = None  # UnreadableFile, UnicodeDecodeError, the parser's ValueError, RecursionError

    @property
    def problem(self) -> str | None:
        """The error in a few words, for a message about a setting read from this file."""
        if self.error is None:
            return None
        if isinstance(self.error, UnicodeDecodeError):
            return f"cannot read {self.name}: it is not UTF-8"
        if isinstance(self.error, RecursionError):
            return f"cannot read {self.name}: it nests too deeply"
        if isinstance(self.error, UnreadableFile):
            return f"cannot read {self.name}: {self.error}"
        words = str(self.error)
        return f"cannot read {self.name}: {words.splitlines()[0] if words else type(self.error).__name__}"


@dataclass(frozen=True, slots=True)
class ConfigFiles:
    """The knowledge base's configuration files that exist (None: missing)."""

    pyproject: ConfigFile | None
    zensical: ConfigFile | None
    site: ConfigFile | None  # the MkDocs family's: the first of MKDOCS_CONFIGS that exists


def read_config_files(root: Path) -> ConfigFiles:
    """Each configuration file of the knowledge base at `root`, read and parsed once."""
    site = site_config_file(root)
    return ConfigFiles(read_config_file(root, SETTINGS_FILE, tomllib.loads),
                       read_config_file(root, ZENSICAL_TOML, tomllib.loads),
                       _with_parents(root, read_config_file(root, site, site_yaml)) if site is not None else None)


def site_config_file(root: Path) -> str | None:
    """The MkDocs-family configuration file of the knowledge base at `root` (its name), if any."""
    for name in MKDOCS_CONFIGS:
        if lexists(root / name):  # a look written down even when missing: creating one changes the docs folder
            return name
    return None


def read_config_file(root: Path, name: str, parse: Callable[[str], Any]) -> ConfigFile | None:
    """`name` read (bounded) and parsed, None when it does not exist."""
    path = root / name
    if not lexists(path):  # an input even when missing: the look is written down (see check/memo.py)
        return None
    text = None
    try:
        text = read_bounded(path, MAX_CONFIG_BYTES, root).decode("utf-8")
        parsed = parse(text)
    except (UnreadableFile, UnicodeDecodeError, ValueError, RecursionError) as exc:  # TOMLDecodeError is one
        return ConfigFile(name, text, None, exc)
    return ConfigFile(name, text, parsed if isinstance(parsed, dict) else {})


def site_yaml(text: str) -> Any:
    """A site configuration's data (ValueError when it is not YAML); unknown tags read as nothing."""
    import yaml  # type: ignore[import-untyped]  # PyYAML, installed with MkDocs: what reads mkdocs.yml

    try:
        return yaml.load(text, Loader=lenient_loader())  # noqa: S506 - a safe loader, tags read as nothing
    except yaml.YAMLError as exc:
        raise ValueError(f"it is not valid YAML ({' '.join(str(exc).split())[:200]})") from None


@lru_cache(maxsize=1)
def lenient_loader() -> Any:
    import yaml

    class Lenient(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
        """Safe loading where a tag the safe loader does not know reads as nothing (`!!python/name:`)
        or, a local one (MkDocs' `!ENV`), as a `Tagged` value."""

    def tagged(loader: Any, suffix: str, node: Any) -> Tagged:
        value = loader.construct_sequence(node) if isinstance(node, yaml.SequenceNode) else \
            loader.construct_scalar(node) if isinstance(node, yaml.ScalarNode) else None
        return Tagged(node.tag, value if isinstance(value, str) else repr(value))

    Lenient.add_multi_constructor("!", tagged)
    Lenient.add_multi_constructor("tag:", lambda loader, suffix, node: None)
    return Lenient


@dataclass(frozen=True, slots=True)
class Tagged:
    """A value written with a local tag (`!ENV [DOCS, docs]`), which MkDocs resolves at build time."""

    tag: str
    text: str


def repository_path(root: Path, value: object, source: str, through_links: bool = True
                    ) -> tuple[str, None] | tuple[None, str]:
    """(the root-relative '/'-separated path, None) for a path a configuration names (`source`, for
    the message: "docs_dir in zensical.toml"), or (None, why it cannot be used): not a path, or
    outside the knowledge base at `root`, by `..`, as an absolute path, or (`through_links`: a
    folder kb writes into) through a symbolic link that leads out. A folder kb only reads is walked
    by the repository's reader, which reports a link out itself (`unreadable-file`)."""
    if not isinstance(value, str) or not value.strip() or "\0" in value:
        return None, f"{source} is {value!r}, not a folder's name"
    real_root = Path(real_path(root))
    path = Path(os.path.normpath(value if os.path.isabs(value) else root / value))
    rel = next((path.relative_to(top) for top in (Path(os.path.normpath(root.absolute())), real_root)
                if path.is_relative_to(top)), None)
    if rel is None:
        return None, f"{source} is {value}, outside the knowledge base ({root})"
    if through_links and not Path(real_path(root / rel)).is_relative_to(real_root):
        return None, f"{source} is {value}, which leads out of the knowledge base through a symbolic link"
    return rel.as_posix(), None


def line_of(config: ConfigFile, key: str) -> int:
    """The line (1-based) where `key` is first set in a configuration file's text, else 1."""
    match = re.search(rf"^[ \t]*[\"']?{re.escape(key)}[\"']?[ \t]*[:=]", config.text or "", re.MULTILINE)
    return (config.text or "").count("\n", 0, match.start()) + 1 if match else 1


def _with_parents(root: Path, config: ConfigFile | None) -> ConfigFile | None:
    """The site configuration with its `INHERIT:` parents merged in as MkDocs merges them; one kb
    cannot read (outside the repository, missing, unreadable, in a loop, too deep) is the file's error."""
    if config is None or config.parsed is None or INHERIT not in config.parsed:
        return config
    merged, seen, name = dict(config.parsed), [config.name], config.name
    while INHERIT in merged:
        value = merged.pop(INHERIT)
        where = f"{INHERIT}: {value} in {name}"
        if not isinstance(value, str) or not value.strip():
            return _failed(config, f"{INHERIT} in {name} is {value!r}, not a file's name")
        folder = os.path.dirname(name)
        rel, problem = repository_path(root, os.path.join(folder, value) if folder else value, f"{INHERIT} in {name}")
        if rel is None:
            return _failed(config, problem or "")
        if rel in seen:
            return _failed(config, f"{where} inherits from a file already read ({' -> '.join([*seen, rel])})")
        if len(seen) > MAX_INHERIT:
            return _failed(config, f"{where} is more than {MAX_INHERIT} parents deep")
        parent = read_config_file(root, rel, site_yaml)
        if parent is None or parent.parsed is None:
            why = parent.problem if parent is not None else f"{rel} does not exist"
            return _failed(config, f"{where}: {why}")
        seen.append(rel)
        name = rel
        merged = _merged(parent.parsed, merged)
    return ConfigFile(config.name, config.text, merged)


def _merged(parent: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    """`child` over `parent` as MkDocs merges an INHERIT (mergedeep: mappings merged, anything else
    replaced)."""
    merged = dict(parent)
    for key, value in child.items():
        below = merged.get(key)
        merged[key] = _merged(below, value) if isinstance(below, dict) and isinstance(value, dict) else value
    return merged


def _failed(config: ConfigFile, why: str) -> ConfigFile:
    return ConfigFile(config.name, config.text, None, ValueError(why))
