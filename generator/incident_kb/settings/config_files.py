"""The knowledge base's configuration files: which they are (the one list), and each read once,
bounded, through the repository's reader (so a cached check's key sees every byte), and parsed once.

    pyproject.toml                [tool.incident-kb]: severities, rule settings, docs-dir
    zensical.toml                 a Zensical site (its docs_dir)
    properdocs.yml ... mkdocs.yaml  the MkDocs family's configuration, the first that exists
    .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS   who owns a doc (codeowners.py), the first that exists

A file that cannot be read or parsed is kept with its error: each setting that reads it says what
the error means for it (a `bad-config` finding, the default docs folder with the problem said).
The site configuration is read as data: tags such as `!!python/name:` read as nothing.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..repository.files import UnreadableFile, lexists, read_bounded
from .codeowners import CODEOWNERS_FILES

SETTINGS_FILE = "pyproject.toml"
ZENSICAL_TOML = "zensical.toml"
# The MkDocs family's configuration files, in the order ProperDocs looks for them (MkDocs: the last two).
MKDOCS_CONFIGS = ("properdocs.yml", "properdocs.yaml", "mkdocs.yml", "mkdocs.yaml")
SITE_CONFIGS = (*MKDOCS_CONFIGS, ZENSICAL_TOML)  # a site's configuration (kb init finds and never replaces it)
CONFIG_FILES = (SETTINGS_FILE, *SITE_CONFIGS, *CODEOWNERS_FILES)  # every file the settings are read from
MAX_CONFIG_BYTES = 1 << 20
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
                       read_config_file(root, site, site_yaml) if site is not None else None)


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
        return yaml.load(text, Loader=_lenient_loader())  # noqa: S506 - a safe loader, tags read as nothing
    except yaml.YAMLError as exc:
        raise ValueError(f"it is not valid YAML ({' '.join(str(exc).split())[:200]})") from None


@lru_cache(maxsize=1)
def _lenient_loader() -> Any:
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
