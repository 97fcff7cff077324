"""The site's settings (name, docs folder, where records are edited), from the site generator's
configuration: MkDocs' mkdocs.yml, or Zensical's zensical.toml.

Inside a build the MkDocs adapter passes MkDocs' own parsed config; `kb render` reads the file
itself, leniently: tags such as `!!python/name:` are ignored, and a missing or unreadable file (a
link out of the repository, a FIFO, /dev/zero) gives the defaults. Reads at most that one file.

A Zensical set-up (`kb init --site zensical`) builds from ZENSICAL_DOCS, which `kb render` fills
with the generated pages and copies of the hand-written docs under `docs/`, and takes its theme
overrides from ZENSICAL_THEME, which `kb render` writes too.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import YAMLError

from ...repository.files import UnreadableFile, read_bounded
from ...settings.docs_folder import ZENSICAL_TOML, docs_folder, site_config_file
from .links import SiteSettings

ZENSICAL_THEME = "kb-site/theme"  # the theme overrides kb render writes for Zensical
_MAX_BYTES = 1 << 20  # a regular file inside the repository, of a sane size: never /dev/zero


class _LenientConstructor(SafeConstructor):
    """Safe loading that turns any unknown tag into None instead of failing."""


_LenientConstructor.add_constructor(None, lambda constructor, node: None)  # type: ignore[no-untyped-call]


def settings_from_config(config: Mapping[str, Any], root: Path) -> SiteSettings:
    """SiteSettings from a mkdocs.yml mapping (docs_dir may be absolute or relative to root)."""
    docs_dir = (root / str(config.get("docs_dir") or "docs")).resolve()
    try:
        docs_rel = docs_dir.relative_to(root.resolve()).as_posix()
    except ValueError:
        docs_rel = ".."  # docs outside the repository: no record file is under it
    repo_url, edit_uri = config.get("repo_url"), config.get("edit_uri")
    edit_base = None
    if isinstance(repo_url, str) and repo_url and isinstance(edit_uri, str) and edit_uri:
        edit_base = urljoin(repo_url if repo_url.endswith("/") else repo_url + "/", edit_uri)
        edit_base = edit_base if edit_base.endswith("/") else edit_base + "/"
    site_name = config.get("site_name")
    return SiteSettings(site_name=site_name if isinstance(site_name, str) and site_name else "incident-kb",
                        docs_dir=docs_rel, edit_base=edit_base)


@dataclass(frozen=True, slots=True)
class ZensicalSetup:
    """What zensical.toml says about where the site's files go."""

    docs_folder: Path  # its docs_dir: the folder kb render writes when given no --out
    theme_folder: Path | None  # its theme.custom_dir: where kb render writes the theme overrides


def read_zensical_setup(root: Path) -> ZensicalSetup | None:
    """The Zensical set-up of root/zensical.toml; None when there is none (or it cannot be read)."""
    project = _zensical_project(root)
    if project is None:
        return None
    docs_dir = project.get("docs_dir")
    docs_dir = docs_dir if isinstance(docs_dir, str) and docs_dir else "docs"
    theme = project.get("theme")
    custom_dir = theme.get("custom_dir") if isinstance(theme, dict) else None
    return ZensicalSetup(root / docs_dir, root / custom_dir if isinstance(custom_dir, str) and custom_dir else None)


def _zensical_project(root: Path) -> dict[str, Any] | None:
    try:
        config = tomllib.loads(read_bounded(root / ZENSICAL_TOML, _MAX_BYTES, root).decode("utf-8"))
    except (UnreadableFile, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    project = config.get("project", config)
    return project if isinstance(project, dict) else None


def read_site_settings(root: Path) -> SiteSettings:
    """SiteSettings from root/zensical.toml if there is one, else the MkDocs configuration
    (properdocs.yml or mkdocs.yml), else the defaults; the docs folder as the check reads it
    (settings/docs_folder.py: in a Zensical set-up whose docs_dir is ZENSICAL_DOCS, docs/)."""
    docs = docs_folder(root).rel_path
    project = _zensical_project(root)
    if project is not None:
        return settings_from_config({**project, "docs_dir": docs}, root)
    config_file = site_config_file(root)
    config = None
    if config_file is not None:
        yaml = YAML(typ="safe", pure=True)
        yaml.Constructor = _LenientConstructor
        try:
            config = yaml.load(read_bounded(root / config_file, _MAX_BYTES, root).decode("utf-8"))
        except (UnreadableFile, UnicodeDecodeError, YAMLError, RecursionError):
            config = None
    return settings_from_config({**(config if isinstance(config, dict) else {}), "docs_dir": docs}, root)
