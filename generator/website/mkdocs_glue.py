"""The MkDocs glue's work for one build: check the knowledge base, render it, and write the pages
into the build through mkdocs-gen-files' editor (virtual files: nothing lands in docs/).

With `mkdocs_plugin` the only modules that import MkDocs or `mkdocs_gen_files`. The plugin calls
`generate_files` from its `on_files` event and keeps what it returns for the build in progress:
the banners of hand-written pages. Findings never fail the build: the site is
where people see them, the PR check is where they fail.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, replace
from pathlib import Path

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files, InclusionLevel
from mkdocs_gen_files.editor import FilesEditor

from ..findings import KbError
from ..pipeline import check_knowledge_base
from .mkdocs_config import settings_from_config
from .pages import render_site

log = logging.getLogger("mkdocs.plugins.incident-kb")


@dataclass(frozen=True)
class SiteOptions:
    """The plugin's options, as MkDocs validated them (see mkdocs_plugin.IncidentKbConfig)."""

    root: Path  # the knowledge base: knobs/, incidents/, its pyproject.toml
    home: bool = True
    tags: bool = True
    charts: bool = True


@dataclass(frozen=True)
class Generated:
    files: Files  # the build's files, the generated ones included
    banners: dict[str, str]  # hand-written page (docs-relative) -> banner HTML for its top


def generate_files(files: Files, config: MkDocsConfig, options: SiteOptions, scratch: str) -> Generated:
    """Check the records, render them, and add the pages to `files` (written under `scratch`)."""
    root = options.root
    try:
        # The site builds in shallow clones too: what history there is still dates the changes.
        kb = check_knowledge_base(root, timelines=True, allow_shallow=True)
    except KbError as exc:
        raise PluginError(f"incident-kb: {exc}") from None
    for note in kb.notes:  # e.g. a shallow clone: information, since --strict fails on warnings
        log.info("incident-kb: %s", note)
    settings = replace(settings_from_config(config, root), home=options.home, tags=options.tags,
                       charts=options.charts)
    site = render_site(kb, settings)
    with FilesEditor(files, config, scratch) as editor:
        for path, text in site.files.items():
            with editor.open(path, "w") as handle:
                handle.write(text)
        built = editor.files
    for path, edit_path in site.edit_paths.items():
        page = built.get_file_from_path(path)
        if page is not None:
            page.edit_uri = edit_path  # "Edit this page" opens the record's YAML
            # Record pages are reached through the indexes, tags and search: in the nav, every page
            # would embed all of them and the build would grow as the square of the records.
            page.inclusion = InclusionLevel.NOT_IN_NAV
    if kb.findings:
        # Information, not a warning: a warning would fail `mkdocs build --strict`.
        log.info("kb check: %d finding(s); they are shown on the site's pages", len(kb.findings))
    return Generated(built, site.banners)

