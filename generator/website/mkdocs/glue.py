"""The MkDocs glue's work for one build: check the knowledge base, render it, and put the core's
bundle into the build through mkdocs-gen-files' editor (virtual files: nothing lands in docs/),
each page as its metadata says (edit path, in the nav or not).

The plugin calls `generate_files` from its `on_files` event and keeps what it returns for the
build in progress: the banners of hand-written pages. The live preview's builds go through
`preview` instead. Findings never fail the build: the site is where people see them, the PR check
is where they fail.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files, InclusionLevel
from mkdocs_gen_files.editor import FilesEditor

from ...findings import KbError, NotAKnowledgeBase
from ...pipeline import KnowledgeBase, check_knowledge_base
from ...records.docs_folder import docs_folder
from ..core.site_config import settings_from_config
from ..core.bundle import Bundle, PageMeta
from ..core.links import SiteSettings
from ..core.pages import render_site
from ..core.placement import Placed, kept_pages_message, place_bundle, place_settings

log = logging.getLogger("mkdocs.plugins.incident-kb")


@dataclass(frozen=True)
class SiteOptions:
    """The plugin's options, as MkDocs validated them (see plugin.IncidentKbConfig)."""

    root: Path  # the knowledge base: knobs/, incidents/, its pyproject.toml
    home: bool = True
    tags: bool = True
    charts: bool = True
    prefix: str = ""  # the folder of the docs folder the generated pages go into ('' its top)
    # The docs folder as configured, before any plugin moved it: Backstage TechDocs' monorepo plugin
    # builds from a temporary copy, whose pages have the same paths; links, edit paths and the check
    # go by the folder in the repository.
    docs_dir: str | None = None


@dataclass(frozen=True)
class Generated:
    files: Files  # the build's files, the generated ones included
    banners: dict[str, str]  # hand-written page (docs-relative) -> banner HTML for its top
    pages: dict[str, PageMeta]  # what the bundle says of each page it knows (search reads its kind)


def generate_files(files: Files, config: MkDocsConfig, options: SiteOptions, scratch: str) -> Generated:
    """Check the records, render them, and add the pages to `files` (written under `scratch`)."""
    kb = check(options.root)
    hand_written = hand_written_pages(files, config)
    asked = site_settings(config, options)
    settings = place_settings(asked, hand_written)
    placed = place_bundle(render_site(kb, settings), settings, hand_written, asked)
    site = placed.bundle
    with FilesEditor(files, config, scratch) as editor:
        for path, text in site.files.items():
            with editor.open(path, "w") as handle:
                handle.write(text)
        built = editor.files
    apply_page_meta(built, site)
    log_placement(placed, settings, config)
    log_docs_folder(options.root, settings)
    log_findings(kb)
    return Generated(built, site.banners, site.pages)


def hand_written_pages(files: Files, config: MkDocsConfig) -> frozenset[str]:
    """The files of the site's docs folder that the build will use (docs-relative): the places a
    generated file must not take."""
    docs_dir = os.path.normpath(config.docs_dir)
    return frozenset(file.src_uri for file in files
                     if file.abs_src_path is not None and os.path.normpath(file.src_dir or "") == docs_dir
                     and file.inclusion is not InclusionLevel.EXCLUDED)


def log_docs_folder(root: Path, settings: SiteSettings) -> None:
    """A warning when kb check reads another docs folder than this site renders: stale-doc would
    never look at this site's pages (records/docs_folder.py decides what the check reads)."""
    checked = docs_folder(root)
    if checked.rel_path == settings.docs_dir:
        return
    renders = "a folder outside the knowledge base" if settings.docs_dir == ".." else f"{settings.docs_dir}/"
    log.warning("incident-kb: this site renders the docs in %s, but kb check reads %s/ (%s), so stale-doc never looks "
                "at this site's pages; say docs-dir = \"%s\" under [tool.incident-kb] in the knowledge base's "
                "pyproject.toml%s", renders, checked.rel_path, checked.source,
                settings.docs_dir if settings.docs_dir != ".." else "FOLDER",
                "" if settings.docs_dir != ".." else " (a folder inside the knowledge base: move the docs there)")


def log_placement(placed: Placed, settings: SiteSettings, config: MkDocsConfig) -> None:
    """Once a build: the hand-written pages kept in generated pages' places, as a warning (`--strict`
    fails on it: a team's page must not silently hide the knowledge base's), and how to place it."""
    config_file = os.path.basename(config.config_file_path or "mkdocs.yml")
    how = (f"To put the knowledge base in a folder of its own, give the incident-kb plugin the option `prefix: kb` "
           f"in {config_file} (its pages then go under kb/); or keep your pages in those places and turn the "
           "generated ones off (`home: false`, `tags: false`).")
    message = kept_pages_message(placed, settings.docs_dir, how)
    if message is not None:
        log.warning("incident-kb: %s", message)
    elif not settings.home:
        log.info("incident-kb: the knowledge base's home, with what needs action, is at %s", placed.home_path)


def check(root: Path) -> KnowledgeBase:
    try:
        # The site builds in shallow clones too: what history there is still dates the changes.
        kb = check_knowledge_base(root, timelines=True, allow_shallow=True)
    except NotAKnowledgeBase as exc:  # worded for mkdocs.yml: mkdocs has no --root
        raise PluginError(f"incident-kb: {exc.problem}; set the incident-kb plugin's `root` option in mkdocs.yml "
                          "to the folder that holds knobs/ and incidents/ (relative to mkdocs.yml)") from None
    except KbError as exc:
        raise PluginError(f"incident-kb: {exc}") from None
    for note in kb.notes:  # e.g. a shallow clone: information, since --strict fails on warnings
        log.info("incident-kb: %s", note)
    return kb


def site_settings(config: MkDocsConfig, options: SiteOptions) -> SiteSettings:
    site = {"site_name": config.site_name, "repo_url": config.repo_url, "edit_uri": config.edit_uri,
            "docs_dir": options.docs_dir or config.docs_dir}
    return replace(settings_from_config(site, options.root), home=options.home, tags=options.tags,
                   charts=options.charts, prefix=options.prefix)


def apply_page_meta(files: Files, site: Bundle) -> None:
    """What the bundle says of each generated page, in MkDocs' terms (title, tags and search
    exclusion are in the page's front matter, which MkDocs and Material read themselves)."""
    for path, meta in site.pages.items():
        if not meta.generated or (meta.edit_path is None and meta.in_nav):
            continue
        page = files.get_file_from_path(path)
        if page is not None:
            if meta.edit_path is not None:
                page.edit_uri = meta.edit_path  # "Edit this page" opens the record's YAML
            if not meta.in_nav:
                page.inclusion = InclusionLevel.NOT_IN_NAV


def log_findings(kb: KnowledgeBase) -> None:
    if kb.findings:
        # Information, not a warning: a warning would fail `mkdocs build --strict`.
        log.info("kb check: %d finding(s); they are shown on the site's pages", len(kb.findings))
