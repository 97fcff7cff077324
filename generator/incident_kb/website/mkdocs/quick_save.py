"""A save under `make serve` built without MkDocs' build, when only the content of generated pages
changed (a record's value, summary, history or hypothesis edited).

MkDocs' dirty build reads the configuration again, lists and looks at every page, makes 2,000 page
objects and their nav, writes the sitemap and the 404 page: about half a second a save at 2,000
records, for a save that changes four pages. Here the check and the render run as in
`preview.preview_files`, and the pages whose markdown changed go through MkDocs' own page machinery
of the last build (its `Page` objects, files, nav, configuration and theme environment:
`mkdocs.commands.build._populate_page` and `_build_page`, every plugin's page events included);
the plugin then ends the build as MkDocs would (`on_post_build`), and livereload reloads the
browsers as after any build (the plugin calls this from the server's builder).

It is taken only when it gives the bytes a full build gives; anything else returns why not, and
the full rebuild follows as before: MkDocs' own inputs changed (the docs folder, `watch:` entries,
the configuration file or the theme: see `OwnInputs`), a plugin it does not know is in the build,
a generated page came or went (a gain chart may), a generated page's metadata (title, tags, nav,
search) changed, the tags page changed, or a page's title or front matter came out different once
rendered. A doc whose banner changed is built again with the generated pages.
The private MkDocs and Material state it relies on is listed in docs/reference/site.md and asserted
by tests/website/test_site_adapters.py; tests/website/test_live_preview.py compares its site with a
fresh server's after each kind of edit.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.commands import build as mkdocs_build
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.utils import is_markdown_file

from ..core.bundle import PageMeta
from ..core.links import TAGS_PAGE
from ..core.placement import place_bundle, place_settings
from .glue import SiteOptions, check_again, hand_written_pages, log, log_findings, site_settings
from .material_reuse import search_plugin, tags_plugins
from .preview import Preview, make_stale, snapshot_read_page, write_changed_files

# The plugins whose page events this module knows to be safe to run again for one page: Material's
# search and tags, and this one. Any other plugin in the build: the full rebuild.
KNOWN_PLUGINS = ("material.plugins.search.", "material.plugins.tags.", "incident_kb.")


@dataclass(frozen=True)
class OwnInputs:
    """MkDocs' own inputs as a build began: every file under the docs folder and the `watch:`
    entries, by its inode, size and modification and change times (a file changed since differs in
    one of them, unless it changed within the clock tick of the look: its bytes are not signed)."""

    files: dict[str, tuple[int, int, int, int]]

    @classmethod
    def of(cls, config: MkDocsConfig) -> OwnInputs:
        return cls(dict(_signatures([config.docs_dir, *map(str, config.watch)])))


def _signatures(roots: Iterable[str]) -> Iterable[tuple[str, tuple[int, int, int, int]]]:
    for root in roots:
        if os.path.isfile(root):
            yield root, _signature(root)
        for folder, _, names in os.walk(root):
            for name in names:
                path = os.path.join(folder, name)
                yield path, _signature(path)


def _signature(path: str) -> tuple[int, int, int, int]:
    try:
        found = os.stat(path)
    except OSError:
        return (0, 0, 0, 0)
    return (found.st_ino, found.st_size, found.st_mtime_ns, found.st_ctime_ns)


def save_quickly(preview: Preview, config: MkDocsConfig, options: SiteOptions, own: OwnInputs | None,
                 edited: Callable[[], list[str] | None],
                 adopt: Callable[[dict[str, str], dict[str, PageMeta]], None]) -> str | None:
    """Build what a save changed without MkDocs' build: the generated files whose bytes changed, and
    the hand-written pages whose banner changed. `adopt` gives the plugin the new banners and pages'
    metadata before any page is built. `edited()`: the files changed since the last build looked, when
    nothing else did (glue.check_again re-checks them in memory), asked once the cheaper looks pass.
    None when done; else why not (nothing written that the full rebuild would not put right)."""
    files, nav, env = preview.files, preview.navigation, preview.env
    if files is None or nav is None or env is None or preview.placed is None or own is None:
        return "no whole build to start from"
    unknown = [type(plugin).__module__ for plugin in config.plugins.values()
               if not type(plugin).__module__.startswith(KNOWN_PLUGINS)]
    if unknown:
        return f"a plugin whose page events it does not know ({unknown[0]})"
    if OwnInputs.of(config) != own:
        return "a file of the docs folder or of `watch:` changed"
    kb = preview.kb = check_again(options.root, preview.kb, edited())
    asked = site_settings(config, options)
    hand_written = hand_written_pages(files, config)
    settings = place_settings(asked, hand_written)
    from ..core.incremental import render_site_again

    render = render_site_again(kb, settings, preview.render)
    site = place_bundle(render.site, settings, hand_written, asked).bundle
    old = preview.placed
    came, went = site.files.keys() - old.files.keys(), old.files.keys() - site.files.keys()
    if any(is_markdown_file(path) for path in came | went) or site.needs != old.needs:
        return "a generated page came or went"
    metas, metas_before = _generated(site.pages), _generated(old.pages)
    if metas != metas_before:
        path = min(path for path in metas.keys() | metas_before.keys() if metas.get(path) != metas_before.get(path))
        return f"{path}'s metadata changed (its title, tags, place in the nav or search)"
    changed = [path for path, text in site.files.items() if path in old.files and old.files[path] != text]
    changed += sorted(path for path in site.banners.keys() | old.banners.keys()
                      if site.banners.get(path) != old.banners.get(path))
    pages: list[File] = []
    others: list[File] = []
    for path in changed:
        file = files.get_file_from_path(path)
        snapshot = preview.snapshots.get(path)
        if file is None or path == TAGS_PAGE or file.inclusion.is_excluded() or (file.is_documentation_page() and (
                snapshot is None or (snapshot.tags is not None and snapshot.tags.hosts_listing))):
            return f"{path} is not a page it can build alone"
        (pages if file.is_documentation_page() else others).append(file)
    write_changed_files(preview, site.files, old.files)
    others += _files_came_or_went(preview, config, sorted(came), sorted(went))
    preview.render, preview.placed, preview.banners = render, site, site.banners
    adopt(site.banners, site.pages)
    try:
        why = _build_pages(preview, config, [file.page for file in pages if file.page is not None], len(pages))
    except BaseException:
        why = "failed"
        raise
    finally:
        if why is not None:  # older than their sources: the whole build reads and writes them again
            for file in pages:
                make_stale(file)
    if why is not None:
        return why
    for file in others:
        file.copy_file()
    log.info("incident-kb: %d of %d generated pages rendered again; %d built without MkDocs' whole build",
             len(render.rendered), len(render.pages), len(pages))
    log_findings(kb, options.findings)
    return None


def _files_came_or_went(preview: Preview, config: MkDocsConfig, came: list[str], went: list[str]) -> list[File]:
    """Generated files other than pages (a knob's gain chart) that came or went: into the last
    build's files, or out of them and of the site. Returns those to copy into the site."""
    assert preview.files is not None
    for path in went:
        file = preview.files.get_file_from_path(path)
        if file is not None:
            preview.files.remove(file)
            Path(file.abs_dest_path).unlink(missing_ok=True)
            preview.outputs.discard(file.abs_dest_path)
    made = []
    for path in came:
        file = File(path, str(preview.folder), config.site_dir, config.use_directory_urls)
        file.generated_by = "mkdocs-gen-files"  # type: ignore[attr-defined]  # as preview_files marks them
        preview.files.append(file)
        preview.outputs.add(file.abs_dest_path)
        made.append(file)
    return made


def _generated(pages: dict[str, PageMeta]) -> dict[str, PageMeta]:
    return {path: meta for path, meta in pages.items() if meta.generated}


def _build_pages(preview: Preview, config: MkDocsConfig, pages: list[Page], expected: int) -> str | None:
    """The changed pages read, converted and written as MkDocs' build does, with every plugin's page
    events. Before anything is written, each page must keep its title and front matter (the nav and
    the tags show them); when it does not, the page is left for the full rebuild."""
    assert preview.files is not None and preview.env is not None
    files, nav, env = preview.files, preview.navigation, preview.env
    if len(pages) != expected:
        return "a page without its page object"
    before = {page.file.src_uri: (page.title, repr(page.meta)) for page in pages}
    preview.raw, preview.read, preview.built = {}, set(), set()
    search = search_plugin(config.plugins.values())
    for page in pages:
        mkdocs_build._populate_page(page, config, files)
    for page in pages:
        if (page.title, repr(page.meta)) != before[page.file.src_uri] or page.file.src_uri not in preview.read:
            return f"{page.file.src_uri}'s title or front matter changed"
    tags = tags_plugins(config.plugins.values())
    for page in pages:  # as on_env keeps a page read (no on_env handler changes a record page)
        snapshot_read_page(preview, page, tags).built = (page.content or "", str(page.toc))
    if search is not None and search.config.enabled:  # the index written from each page's entries
        search.search_index = _fresh_index(search)
    doc_files = files.documentation_pages(inclusion=InclusionLevel.is_in_serve)
    for page in pages:
        mkdocs_build._build_page(page, config, doc_files, nav, env)
    for file in doc_files:
        if file.page is not None:
            file.page.validate_anchor_links(files=files, log_level=config.validation.links.anchors)
    return None


def _fresh_index(search: Any) -> Any:
    """An empty index of Material's search plugin's own kind (after a build it holds the index as
    written: see material_reuse.merge_search_index)."""
    from material.plugins.search.plugin import SearchIndex  # type: ignore[import-untyped]

    return SearchIndex(**search.config)
