"""The MkDocs glue: writes the rendered site into the build through mkdocs-gen-files, and puts the
banners of hand-written pages on top of their HTML.

The only module that imports `mkdocs_gen_files`. Runs the pipeline once per build (check, then
render) and keeps the banners for `inject_banner`, which the hook calls for every page. Findings
never fail the build: the site is where people see them, the PR check is where they fail.
"""

from __future__ import annotations

import logging
from pathlib import Path

import mkdocs_gen_files
from mkdocs.exceptions import PluginError

from ..findings import KbError
from ..pipeline import check_knowledge_base
from .pages import CHART_CACHE, RenderedSite, render_site
from .mkdocs_config import settings_from_config

log = logging.getLogger("mkdocs.plugins.incident-kb")

_banners: dict[str, str] = {}  # docs-relative page -> banner HTML, for the build in progress


def generate_site() -> RenderedSite:
    """The gen-files script's work: check the records, render, write the files into the build."""
    config = mkdocs_gen_files.config
    root = Path(config["config_file_path"]).resolve().parent
    try:
        # The site builds in shallow clones too: what history there is still dates the changes.
        kb = check_knowledge_base(root, timelines=True, allow_shallow=True)
    except KbError as exc:
        raise PluginError(f"incident-kb: {exc}") from None
    for note in kb.notes:  # e.g. a shallow clone: information, since --strict fails on warnings
        log.info("incident-kb: %s", note)
    site = render_site(kb, settings_from_config(config, root), chart_cache=root / CHART_CACHE)
    for path, text in site.files.items():
        with mkdocs_gen_files.open(path, "w") as handle:
            handle.write(text)
    for path, edit_path in site.edit_paths.items():
        mkdocs_gen_files.set_edit_path(path, edit_path)
    _banners.clear()
    _banners.update(site.banners)
    if kb.findings:
        # Information, not a warning: a warning would fail `mkdocs build --strict`.
        log.info("kb check: %d finding(s); they are shown on the site's pages", len(kb.findings))
    return site


def inject_banner(html: str, src_uri: str) -> str:
    """A hand-written page's HTML with its findings' banner on top (kept out of the search index)."""
    banner = _banners.get(src_uri)
    return banner + html if banner else html
