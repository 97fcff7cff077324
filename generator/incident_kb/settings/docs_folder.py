"""Which folder holds the knowledge base's hand-written docs: the docs folder its site renders.

Decided here, once, for everything that reads docs (the stale-doc check, the pre-commit and PR
modes, `kb init`, `kb render`, the site's settings), in this order:

1. `docs-dir` under `[tool.incident-kb]` in the knowledge base's pyproject.toml (a site whose
   configuration lives elsewhere, say a `root:` option pointing here from a mkdocs.yml above);
2. `docs_dir` of zensical.toml (where `kb init --site zensical` builds `kb-site/docs`, a folder
   `kb render` fills from `docs/`, the hand-written docs are `docs/`);
3. `docs_dir` of the MkDocs configuration: properdocs.yml, properdocs.yaml, mkdocs.yml or
   mkdocs.yaml, the first that exists (the order ProperDocs looks in; MkDocs reads the last two);
4. `docs`.

Files are read through `files.read_bounded` (so a cached check sees them as inputs; a missing one is
noted too). A configured folder that cannot be used (outside the knowledge base, absolute, a file
that cannot be read or parsed) is a `problem` the check reports, never a silent fallback. The site
configuration is read as data: tags such as `!!python/name:` read as nothing; a docs_dir given by
`!ENV` is a problem (it depends on the environment), never the default in silence.
"""

from __future__ import annotations

import os
import posixpath
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..repository.files import UnreadableFile, lexists, read_bounded, real_path

DEFAULT_DOCS = "docs"
SETTINGS_FILE = "pyproject.toml"
SETTING = "docs-dir"  # under [tool.incident-kb]
# The MkDocs family's configuration files, in the order ProperDocs looks for them (MkDocs: the last two).
MKDOCS_CONFIGS = ("properdocs.yml", "properdocs.yaml", "mkdocs.yml", "mkdocs.yaml")
ZENSICAL_TOML = "zensical.toml"
ZENSICAL_DOCS = "kb-site/docs"  # what a `kb init --site zensical` set-up builds: kb render's output
_MAX_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class DocsFolder:
    rel_path: str  # relative to the knowledge base's root, '/'-separated ('docs' by default)
    source: str  # where it was decided, for messages: "docs_dir in mkdocs.yml", "the default"
    config_file: str | None = None  # the file it was read from (root-relative), None for the default
    problem: str | None = None  # why the configured folder could not be used ('docs' is read instead)


def kb_folders(root: Path) -> tuple[str, ...]:
    """What kb reads whole, relative to root: the record folders and the docs folder."""
    from ..records.vocabulary import RecordKind

    return (*(kind.folder for kind in RecordKind), docs_folder(root).rel_path)


def site_config_file(root: Path) -> str | None:
    """The MkDocs-family configuration file of the knowledge base at `root` (its name), if any."""
    for name in MKDOCS_CONFIGS:
        if lexists(root / name):  # a look written down even when missing: creating one changes the docs folder
            return name
    return None


def docs_folder(root: Path) -> DocsFolder:
    """The folder of hand-written docs of the knowledge base at `root` (see the module's docstring)."""
    setting = _read(root, SETTINGS_FILE, _toml)
    if isinstance(setting, str):
        setting = None  # the check reports an unreadable pyproject.toml already (severities.load_config)
    section = (setting or {}).get("tool", {})
    section = section.get("incident-kb", {}) if isinstance(section, dict) else {}
    if isinstance(section, dict) and SETTING in section:
        return _checked(root, section[SETTING], f"{SETTING} under [tool.incident-kb] in {SETTINGS_FILE}",
                        SETTINGS_FILE)
    zensical = _read(root, ZENSICAL_TOML, _toml)
    if zensical is not None:
        if isinstance(zensical, str):
            return _problem(DEFAULT_DOCS, zensical, ZENSICAL_TOML)
        project = zensical.get("project", zensical)
        value = project.get("docs_dir", DEFAULT_DOCS) if isinstance(project, dict) else DEFAULT_DOCS
        if value == ZENSICAL_DOCS:  # kb render's output: the hand-written docs it copies are docs/
            return DocsFolder(DEFAULT_DOCS, f"the docs kb render copies into {ZENSICAL_DOCS} ({ZENSICAL_TOML})",
                              ZENSICAL_TOML)
        return _checked(root, value, f"docs_dir in {ZENSICAL_TOML}", ZENSICAL_TOML)
    name = site_config_file(root)
    if name is not None:
        config = _read(root, name, site_yaml)
        if isinstance(config, str):
            return _problem(DEFAULT_DOCS, config, name)
        value = config.get("docs_dir", DEFAULT_DOCS) if isinstance(config, dict) else DEFAULT_DOCS
        if isinstance(value, Tagged):  # `!ENV [DOCS, site-src]`: the folder depends on the build's environment
            return _problem(DEFAULT_DOCS, f"docs_dir in {name} is {value.tag} {value.text}, which kb does not "
                            "resolve (a check must not depend on the environment it runs in)", name)
        return _checked(root, DEFAULT_DOCS if value is None else value, f"docs_dir in {name}", name)
    return DocsFolder(DEFAULT_DOCS, "the default")


def _checked(root: Path, value: object, source: str, config_file: str) -> DocsFolder:
    """`value` as a folder inside the knowledge base, or the default with the problem said."""
    if not isinstance(value, str) or not value.strip():
        return _problem(DEFAULT_DOCS, f"{source} is {value!r}, not a folder's name", config_file)
    if os.path.isabs(value):
        inside = Path(os.path.normpath(value))
        resolved_root = Path(real_path(root))
        if not (inside == resolved_root or resolved_root in inside.parents):
            return _problem(DEFAULT_DOCS, f"{source} is {value}, outside the knowledge base ({root})", config_file)
        value = inside.relative_to(resolved_root).as_posix()
    rel = posixpath.normpath(value.replace(os.sep, "/"))
    if rel == ".." or rel.startswith("../"):
        return _problem(DEFAULT_DOCS, f"{source} is {value}, outside the knowledge base", config_file)
    return DocsFolder(rel, source, config_file)


def _problem(rel: str, why: str, config_file: str) -> DocsFolder:
    return DocsFolder(rel, "the default", config_file, why)


def _read(root: Path, name: str, parse: Any) -> dict[str, Any] | str | None:
    """The file parsed (a mapping), None when it does not exist, or why it cannot be read (a str)."""
    path = root / name
    if not lexists(path):
        return None
    try:
        parsed = parse(read_bounded(path, _MAX_BYTES, root).decode("utf-8"))
    except UnreadableFile as exc:
        return f"cannot read {name}: {exc}"
    except UnicodeDecodeError:
        return f"cannot read {name}: it is not UTF-8"
    except ValueError as exc:  # the parsers' errors (YAMLError is wrapped below)
        return f"cannot read {name}: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
    except RecursionError:
        return f"cannot read {name}: it nests too deeply"
    return parsed if isinstance(parsed, dict) else {}


def _toml(text: str) -> Any:
    return tomllib.loads(text)


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
