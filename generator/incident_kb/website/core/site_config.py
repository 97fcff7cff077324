"""The site's settings (name, docs folder, where records are edited), from the site generator's
configuration: MkDocs' mkdocs.yml, or Zensical's zensical.toml.

Inside a build the MkDocs adapter passes MkDocs' own parsed config; `kb render` takes the file as the
knowledge base's settings read it (settings/config_files.py, leniently: tags such as `!!python/name:`
read as nothing, and a missing or unreadable file (a link out of the repository, a FIFO, /dev/zero)
gives the defaults). Reads no file itself.

A Zensical set-up (`kb init --site zensical`) builds from ZENSICAL_DOCS, which `kb render` fills
with the generated pages and copies of the hand-written docs under `docs/`, and takes its theme
overrides from ZENSICAL_THEME, which `kb render` writes too.
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from ...settings.config_files import ConfigFile, ConfigFiles, line_of, repository_path
from ...settings.kb_settings import Settings, read_settings
from .bundle import SiteNeeds
from .links import SiteSettings

ZENSICAL_THEME = "kb-site/theme"  # the theme overrides kb render writes for Zensical
KB_STYLESHEET = SiteNeeds().stylesheets[0]  # docs-relative where the knowledge base's pages start


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
    site_name, site_url = config.get("site_name"), config.get("site_url")
    return SiteSettings(site_name=site_name if isinstance(site_name, str) and site_name else "incident-kb",
                        site_url=site_url if isinstance(site_url, str) and site_url else None,
                        directory_urls=config.get("use_directory_urls") is not False,
                        docs_dir=docs_rel, edit_base=edit_base)


@dataclass(frozen=True, slots=True)
class ZensicalSetup:
    """What zensical.toml says about where the site's files go: folders inside the repository, or
    why one cannot be used (`config_files.repository_path`), said as `zensical.toml:LINE: ...`."""

    docs_folder: Path | str  # its docs_dir: the folder kb render writes when given no --out (str: the problem)
    theme_folder: Path | str | None  # its theme.custom_dir: where kb render writes the theme overrides
    # Where in the docs folder the knowledge base's pages go, as the configuration says by loading
    # their style sheet (extra_css: `kb/assets/incident-kb/kb.css` -> 'kb'; '' at the top); None when
    # it loads none: it does not show the knowledge base.
    prefix: str | None = None


def read_zensical_setup(root: Path, files: ConfigFiles) -> ZensicalSetup | None:
    """The Zensical set-up of root/zensical.toml (as read in `files`); None when there is none (or it
    cannot be read)."""
    project = _zensical_project(files)
    if project is None or files.zensical is None:
        return None
    docs_dir = project.get("docs_dir")
    docs_dir = docs_dir if isinstance(docs_dir, str) and docs_dir else "docs"
    theme = project.get("theme")
    custom_dir = theme.get("custom_dir") if isinstance(theme, dict) else None
    return ZensicalSetup(_folder(root, files.zensical, "docs_dir", docs_dir),
                         _folder(root, files.zensical, "custom_dir", custom_dir) if custom_dir is not None else None,
                         zensical_prefix(project))


def zensical_prefix(project: Mapping[str, Any]) -> str | None:
    """The folder of the docs folder a Zensical [project] loads the knowledge base's style sheet
    from ('' its top), None when it loads none: the one sign that it shows the knowledge base, and
    where (kb render writes there; kb init --merge adds it)."""
    sheets = project.get("extra_css")
    for sheet in sheets if isinstance(sheets, list) else ():
        if isinstance(sheet, str) and posixpath.basename(sheet) == posixpath.basename(KB_STYLESHEET):
            folder = posixpath.normpath(sheet.strip("/"))
            if folder == KB_STYLESHEET:
                return ""
            if folder.endswith("/" + KB_STYLESHEET) and not folder.startswith("../"):
                return folder[:-len(KB_STYLESHEET) - 1]
    return None


def _folder(root: Path, config: ConfigFile, key: str, value: object) -> Path | str:
    rel, problem = repository_path(root, value, f"{key} in {config.name}")
    if rel is None:
        return (f"{config.name}:{line_of(config, key)}: {problem}; kb render writes only inside the repository: "
                f"name a folder inside it, or say where with --out DIR")
    return root / rel


def _zensical_project(files: ConfigFiles) -> dict[str, Any] | None:
    """zensical.toml's [project] table (or its top), None when there is none or it cannot be read."""
    config = files.zensical.parsed if files.zensical is not None else None
    if config is None:
        return None
    project = config.get("project", config)
    return project if isinstance(project, dict) else None


def read_site_settings(root: Path, settings: Settings | None = None) -> SiteSettings:
    """SiteSettings from the knowledge base's zensical.toml if there is one, else its MkDocs
    configuration (properdocs.yml or mkdocs.yml, read as MkDocs reads it), else the defaults; the docs
    folder as the check reads it (settings/docs_folder.py: in a Zensical set-up whose docs_dir is
    ZENSICAL_DOCS, docs/). `settings`: the knowledge base's, read here when not given."""
    settings = settings or read_settings(root)
    docs = settings.docs.rel_path
    project = _zensical_project(settings.files)
    if project is not None:
        return settings_from_config({**project, "docs_dir": docs}, root)
    config = settings.files.site.parsed if settings.files.site is not None else None
    return settings_from_config({**(config or {}), "docs_dir": docs}, root)
