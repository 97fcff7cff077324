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
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files, InclusionLevel
from mkdocs_gen_files.editor import FilesEditor

from ...findings import KbError, NotAKnowledgeBase
from ...pipeline import KnowledgeBase, check_knowledge_base
from ..core.site_config import settings_from_config
from ..core.bundle import Bundle, PageMeta
from ..core.links import SiteSettings
from ..core.pages import render_site

log = logging.getLogger("mkdocs.plugins.incident-kb")


@dataclass(frozen=True)
class SiteOptions:
    """The plugin's options, as MkDocs validated them (see plugin.IncidentKbConfig)."""

    root: Path  # the knowledge base: knobs/, incidents/, its pyproject.toml
    home: bool = True
    tags: bool = True
    charts: bool = True


@dataclass(frozen=True)
class Generated:
    files: Files  # the build's files, the generated ones included
    banners: dict[str, str]  # hand-written page (docs-relative) -> banner HTML for its top
    pages: dict[str, PageMeta]  # what the bundle says of each page it knows (search reads its kind)


def generate_files(files: Files, config: MkDocsConfig, options: SiteOptions, scratch: str) -> Generated:
    """Check the records, render them, and add the pages to `files` (written under `scratch`)."""
    kb = check(options.root)
    site = render_site(kb, site_settings(config, options))
    with FilesEditor(files, config, scratch) as editor:
        for path, text in site.files.items():
            with editor.open(path, "w") as handle:
                handle.write(text)
        built = editor.files
    apply_page_meta(built, site)
    log_findings(kb)
    return Generated(built, site.banners, site.pages)


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
    return replace(settings_from_config(config, options.root), home=options.home, tags=options.tags,
                   charts=options.charts)


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
