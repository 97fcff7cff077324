"""The site's settings (name, docs folder, where records are edited), from MkDocs' configuration.

Inside a build the glue passes MkDocs' own parsed config; `kb render` reads mkdocs.yml itself,
leniently: tags such as `!!python/name:` are ignored, and a missing or unreadable file (a link out
of the repository, a FIFO, /dev/zero) gives the defaults. Reads at most that one file.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from ruamel.yaml import YAML
from ruamel.yaml.constructor import SafeConstructor
from ruamel.yaml.error import YAMLError

from ...records.files import UnreadableFile, read_bounded
from .links import SiteSettings

MKDOCS_YML = "mkdocs.yml"
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


def read_site_settings(root: Path) -> SiteSettings:
    """SiteSettings from root/mkdocs.yml, or the defaults."""
    yaml = YAML(typ="safe", pure=True)
    yaml.Constructor = _LenientConstructor
    try:
        config = yaml.load(read_bounded(root / MKDOCS_YML, _MAX_BYTES, root).decode("utf-8"))
    except (UnreadableFile, UnicodeDecodeError, YAMLError, RecursionError):
        config = None
    return settings_from_config(config if isinstance(config, dict) else {}, root)
