"""The live preview of `mkdocs serve --dirty` (`make serve`): a rebuild renders and writes only
what a save touched, and puts right what MkDocs' dirty build would get wrong.

MkDocs' dirty build reads and writes only the pages whose source is newer than their output and
knows nothing of the others: their titles (in every page's nav), tags (the tags page) and search
entries would be lost. So the preview writes a generated file only when its bytes changed (an
unchanged page keeps its old time), restores every page MkDocs did not read from the snapshot of
the build that last read it, makes the pages that depend on what changed build again, deletes
what removed files left in the site, and merges the search index page by page. The result is the
site a full build makes (tests/website/test_live_preview.py compares them). The private state this relies
on is listed in docs/reference/site.md and asserted by tests/website/test_site_adapters.py.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any

from jinja2 import BytecodeCache, Environment
from jinja2.bccache import Bucket
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page
from mkdocs.structure.toc import AnchorLink, TableOfContents
from mkdocs_gen_files.editor import file_sort_key

from ...check.pipeline import KnowledgeBase
from ...records.record_cache import hold_in_memory
from ..core.bundle import Bundle
from ..core.placement import place_bundle, place_settings
from .glue import (
    SERVE,
    Generated,
    SiteOptions,
    apply_page_meta,
    check,
    hand_written_pages,
    log,
    log_docs_folder,
    log_findings,
    log_placement,
    site_settings,
    warn_if_tags_page_empty,
)
from .material_reuse import (
    Listings,
    PageTags,
    give_back_listings,
    hold_unchanged_listings,
    merge_search_index as merge_search_entries,
    order_mappings,
    replay_markdown,
    search_plugin,
    tags_found,
    tags_plugins,
)


@dataclass
class _Snapshot:
    """A page as the build that last read it left it, before on_env."""

    raw: str  # its markdown before any plugin's on_page_markdown (replayed for the tags plugin)
    markdown: str
    meta: dict[str, Any]
    title: str | None  # the first heading, found while rendering
    content: str
    toc: Any
    anchors: set[str] | None
    links_to_anchors: dict[str, dict[str, str]] | None  # by the linked file's src_uri
    tags: PageTags | None  # what Material's tags plugin found on it
    built: tuple[str, str] | None = None  # content and toc once every on_env handler ran


@dataclass
class Preview:
    """What one `mkdocs serve --dirty` keeps between builds. A build that fails drops it, and the
    next starts from an empty site folder, as does one after mkdocs.yml, the theme or the
    generator's code changed."""

    stamp: object  # what every page depends on (see plugin.site_stamp)
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="incident-kb-preview-")))
    render: Any = None  # the last build's incremental.SiteRender
    kb: KnowledgeBase | None = None  # the last build's check, with its ledger (see glue.check_again)
    placed: Bundle | None = None  # its bundle as placed in the docs folder (what was written)
    banners: dict[str, str] = field(default_factory=dict)
    snapshots: dict[str, _Snapshot] = field(default_factory=dict)  # by src_uri
    outputs: set[str] = field(default_factory=set)  # every file the last build put in the site
    pages: frozenset[str] = frozenset()  # the last build's documentation pages
    nav: str | None = None
    templates: _TemplateCache = field(default_factory=lambda: _TemplateCache())
    sort_keys: dict[str, Any] = field(default_factory=dict)
    listings: Listings = field(default_factory=Listings)  # Material's tags listings as last rendered
    search: dict[str, Any] = field(default_factory=dict)  # each page's search entries and their JSON, by url
    # this build's
    raw: dict[str, str] = field(default_factory=dict)
    read: set[str] = field(default_factory=set)  # pages MkDocs read (their source was newer)
    built: set[str] = field(default_factory=set)  # pages MkDocs wrote, by url
    files: Files | None = None
    navigation: Any = None
    env: Environment | None = None  # the theme's environment as the last on_env left it (quick_save)

    def close(self) -> None:
        shutil.rmtree(self.folder, ignore_errors=True)


def empty_folder(folder: str) -> None:
    for entry in Path(folder).iterdir() if os.path.isdir(folder) else ():
        shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()


def preview_files(preview: Preview, files: Files, config: MkDocsConfig, options: SiteOptions) -> Generated:
    """`generate_files` for the live preview: only pages whose inputs changed are rendered, only
    files whose bytes changed are written (into a folder kept between builds), and the pages that
    depend on what changed are marked to be read again."""
    from ..core.incremental import render_site_again

    hold_in_memory()  # the check's record cache stays in this process between the serve's builds
    kb = preview.kb = check(options.root, SERVE)
    hand_written = hand_written_pages(files, config)
    asked = site_settings(config, options)
    settings = place_settings(asked, hand_written)
    render = render_site_again(kb, settings, preview.render)
    placed = place_bundle(render.site, settings, hand_written, asked)
    site = placed.bundle
    write_changed_files(preview, site.files, preview.placed.files if preview.placed is not None else {})
    preview.render, preview.placed = render, site
    generated = {}
    for path in site.files:
        generated[path] = File(path, str(preview.folder), config.site_dir, config.use_directory_urls)
        generated[path].generated_by = "mkdocs-gen-files"  # type: ignore[attr-defined]
    built = Files(sorted({**{file.src_uri: file for file in files}, **generated}.values(),
                         key=lambda file: _sort_key(preview, file)))
    apply_page_meta(built, site)
    _mark_changed_pages(preview, built, site.banners, config.site_dir)
    preview.banners = site.banners
    preview.raw, preview.read, preview.built = {}, set(), set()
    log.info("incident-kb: %d of %d generated pages rendered again", len(render.rendered), len(render.pages))
    log_placement(placed, settings, config)
    log_docs_folder(kb.settings.docs, settings)
    log_findings(kb, options.findings)
    warn_if_tags_page_empty(config, site)
    return Generated(built, site.banners, site.pages)


def write_changed_files(preview: Preview, files: dict[str, str], old: dict[str, str]) -> None:
    """The generated files into the preview's folder: only those whose bytes changed (an unchanged
    page keeps its old time, so MkDocs' dirty build does not read it again)."""
    for path in old.keys() - files.keys():
        (preview.folder / path).unlink(missing_ok=True)
    for path, text in files.items():
        if old.get(path) != text:
            (preview.folder / path).parent.mkdir(parents=True, exist_ok=True)
            (preview.folder / path).write_text(text, encoding="utf-8")


def _sort_key(preview: Preview, file: File) -> Any:
    """mkdocs-gen-files' order of files (its editor's), each file's key worked out once."""
    key = preview.sort_keys.get(file.src_uri)
    if key is None:
        key = preview.sort_keys[file.src_uri] = file_sort_key(file)
    return key


def _mark_changed_pages(preview: Preview, files: Files, banners: dict[str, str], site_dir: str) -> None:
    """Before MkDocs reads the pages: delete what removed files left in the site, and make MkDocs
    read again the hand-written pages whose banner changed or that may link to a page that came or
    went (their source did not change, but what MkDocs makes of it did)."""
    outputs = {file.abs_dest_path for file in files}
    for gone in sorted(preview.outputs - outputs):
        Path(gone).unlink(missing_ok=True)
        folder = Path(gone).parent
        while folder != Path(site_dir) and Path(site_dir) in folder.parents and not any(folder.iterdir()):
            folder.rmdir()
            folder = folder.parent
    preview.outputs = outputs
    serve = InclusionLevel.is_in_serve
    pages = frozenset(file.src_uri for file in files.documentation_pages(inclusion=serve))
    names = {_link_name(uri) for uri in pages.symmetric_difference(preview.pages)}
    for file in files.documentation_pages(inclusion=serve):
        uri = file.src_uri
        if uri not in preview.snapshots or (getattr(file, "generated_by", None) is None and (
                banners.get(uri) != preview.banners.get(uri) or (names and _mentions(file, names)))):
            make_stale(file)
    preview.pages = pages


def _link_name(src_uri: str) -> str:
    """What any link to the page contains: its file name, or its folder's for an index page."""
    path = PurePosixPath(src_uri)
    return path.parent.name if path.stem in ("index", "README") and path.parent.name else path.stem


def _mentions(file: File, names: set[str]) -> bool:
    try:
        text = Path(file.abs_src_path or "").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True
    return any(name in text for name in names)


def make_stale(file: File) -> None:
    """Make MkDocs' dirty build read and write the page: its output older than any source."""
    if os.path.isfile(file.abs_dest_path):
        os.utime(file.abs_dest_path, (0, 0))


def note_read(preview: Preview, page: Page) -> None:
    """on_pre_page: MkDocs reads this page in this build (its source is newer than its output)."""
    preview.read.add(page.file.src_uri)


def note_markdown(preview: Preview, page: Page, markdown: str) -> None:
    """on_page_markdown, before any other plugin's: the page's markdown as read."""
    if page.file.src_uri in preview.read:
        preview.raw.setdefault(page.file.src_uri, markdown)


def restore_pages(preview: Preview, env: Environment, config: MkDocsConfig, files: Files) -> None:
    """on_env, before other plugins': a page read in this build is kept as a snapshot, any other is
    restored from its snapshot as if read again (its markdown replayed through on_page_markdown,
    where the tags plugin learns the page's tags: see material_reuse). Then the tags listings
    whose inputs did not change are held back from the tags plugin, which renders the others."""
    preview.files = files
    env.bytecode_cache = preview.templates
    by_uri = files.src_uris
    tags = tags_plugins(config.plugins.values())
    urls = []
    for file in files.documentation_pages(inclusion=InclusionLevel.is_in_serve):
        page = file.page
        if page is None:
            continue
        urls.append(page.url)
        if file.src_uri in preview.read:
            snapshot_read_page(preview, page, tags)
            continue
        snapshot = preview.snapshots[file.src_uri]
        page.markdown = snapshot.markdown
        page.meta = _copied(snapshot.meta)  # copies: plugins may change a page's meta or toc in place
        page._title_from_render = snapshot.title
        page.content = snapshot.content
        page.toc = _copied_toc(snapshot.toc)
        page.present_anchor_ids = snapshot.anchors
        if snapshot.links_to_anchors is not None:
            page.links_to_anchors = {target: links for uri, links in snapshot.links_to_anchors.items()
                                     if (target := by_uri.get(uri)) is not None}
        replay_markdown(config.plugins, tags, snapshot.tags, snapshot.raw, page, config=config, files=files)
    if tags:
        order_mappings(tags, urls)
        hold_unchanged_listings(preview.listings, tags, preview.read)


def snapshot_read_page(preview: Preview, page: Page, tags: tuple[Any, ...]) -> _Snapshot:
    """A page MkDocs read in this build, kept as the next builds restore it."""
    snapshot = preview.snapshots[page.file.src_uri] = _Snapshot(
        preview.raw[page.file.src_uri], page.markdown or "", _copied(dict(page.meta)), page._title_from_render,
        page.content or "", _copied_toc(page.toc), page.present_anchor_ids,
        None if page.links_to_anchors is None else
        {target.src_uri: links for target, links in page.links_to_anchors.items()},
        tags_found(tags, page) if tags else None)
    return snapshot


def give_back_pages(preview: Preview, config: MkDocsConfig) -> None:
    """on_env, right after the tags plugin's: the listings it did not render get their page's
    content as last rendered."""
    give_back_listings(preview.listings, tags_plugins(config.plugins.values()), _copied_toc)


def _copied(value: Any) -> Any:
    """Front matter's data (dicts, lists and scalars) copied."""
    if isinstance(value, dict):
        return {key: _copied(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_copied(item) for item in value]
    return value


def _copied_toc(toc: TableOfContents) -> TableOfContents:
    def link(item: AnchorLink) -> AnchorLink:
        new = AnchorLink(item.title, item.id, item.level)
        new.children = [link(child) for child in item.children]
        return new
    return TableOfContents([link(item) for item in toc])


class _TemplateCache(BytecodeCache):
    """Compiled theme templates kept between builds (MkDocs makes a new Jinja environment for each
    build, and compiling Material's templates is a good part of a small rebuild). An entry is used
    only for the very source it was compiled from."""

    def __init__(self) -> None:
        self._compiled: dict[str, bytes] = {}

    def load_bytecode(self, bucket: Bucket) -> None:
        if bucket.key in self._compiled:
            bucket.bytecode_from_string(self._compiled[bucket.key])

    def dump_bytecode(self, bucket: Bucket) -> None:
        self._compiled[bucket.key] = bucket.bytecode_to_string()


def mark_changed_outputs(preview: Preview, env: Environment, files: Files) -> None:
    """on_env, after other plugins': a restored page whose content other plugins changed (the tags
    page's listing) is written again, and every page when the nav changed (each page shows it).
    The environment is kept for a save built without MkDocs' build (quick_save)."""
    preview.env = env
    pages = [file.page for file in files.documentation_pages(inclusion=InclusionLevel.is_in_serve)
             if file.page is not None]
    nav = str(preview.navigation) + "".join(repr(page.meta) for page in getattr(preview.navigation, "pages", ()))
    renew_all, preview.nav = preview.nav is not None and nav != preview.nav, nav
    for page in pages:
        snapshot = preview.snapshots[page.file.src_uri]
        built = (page.content or "", str(page.toc))
        if page.file.src_uri not in preview.read and (renew_all or built != snapshot.built):
            make_stale(page.file)
        snapshot.built = built


def note_built(preview: Preview, page: Page) -> None:
    preview.built.add(page.url)


def merge_search_index(preview: Preview, config: MkDocsConfig) -> None:
    """on_post_build, before Material's search plugin writes its index: every page's entries, this
    build's if it was written, else the last build's (see material_reuse.merge_search_index)."""
    if preview.files is None:
        return
    urls = [file.page.url if file.page is not None else file.url
            for file in preview.files.documentation_pages(inclusion=InclusionLevel.is_in_serve)]
    preview.search = merge_search_entries(search_plugin(config.plugins.values()), preview.search, urls, preview.built)
