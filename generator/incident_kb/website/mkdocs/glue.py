"""The MkDocs glue's work for one build: check the knowledge base, render it, and put the core's
bundle into the build as files held in memory (MkDocs' `File.generated`: nothing lands in docs/ or in a
scratch folder), each page as its metadata says (edit path, in the nav or not).

The plugin calls `generate_files` from its `on_files` event and keeps what it returns for the
build in progress: the banners of hand-written pages. The live preview's builds go through
`preview` instead. Findings never fail the build: the site is where people see them, the PR check
is where they fail.
"""

from __future__ import annotations

import logging
import os
import posixpath
import re
import time
from collections.abc import Collection, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, replace
from pathlib import Path
from types import TracebackType
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.nav import Navigation, Section
from mkdocs.structure.pages import Page
from mkdocs.utils import is_markdown_file
from mkdocs_gen_files.editor import file_sort_key

from ...check.pipeline import SITE, CheckMode, KnowledgeBase, check_knowledge_base, parse_records_ahead
from ...findings import KbError, NotAKnowledgeBase
from ...history.git_view import GitView, read_git_view
from ...records.record_cache import saves_in_background
from ...repository.files import Probes, probes_recorded, resigned
from ...settings.docs_folder import DocsFolder
from ..core.bundle import Bundle, PageMeta
from ..core.feed import render_org_feed
from ..core.links import FEED, TAGS_FIELD, TAGS_LISTING, TAGS_PAGE, SiteSettings
from ..core.org_home import ORG_HOME, render_org_home
from ..core.pages import render_site
from ..core.placement import Placed, kept_pages_message, place_bundle, place_settings
from ..core.site_config import settings_from_config
from .save_watch import Inputs

log = logging.getLogger("mkdocs.plugins.incident-kb")


@dataclass(frozen=True)
class SiteOptions:
    """The plugin's options, as MkDocs validated them (see plugin.IncidentKbConfig)."""

    root: Path  # the knowledge base: knobs/, incidents/, its pyproject.toml
    home: bool = True
    tags: bool = True
    charts: bool = True
    prefix: str = ""  # the folder of the docs folder the generated pages go into ('' its top)
    findings: bool = True  # kb check's findings on the pages (not under `public: true`, but for mkdocs serve)
    # The docs folder as configured, before any plugin moved it: Backstage TechDocs' monorepo plugin
    # builds from a temporary copy, whose pages have the same paths; links, edit paths and the check
    # go by the folder in the repository.
    docs_dir: str | None = None


@dataclass(frozen=True)
class Generated:
    files: Files  # the build's files, the generated ones included
    banners: dict[str, str]  # hand-written page (docs-relative) -> banner HTML for its top
    pages: dict[str, PageMeta]  # what the bundle says of each page it knows (search reads its kind)
    # An org site's knowledge bases' homes (docs-relative): each stands for its knowledge base in the
    # nav, one entry (see `org_navigation`)
    homes: frozenset[str] = frozenset()


def generate_files(files: Files, config: MkDocsConfig, options: SiteOptions) -> Generated:
    """Check the records, render them, and add the pages to `files`."""
    kb = check(options.root)
    hand_written = hand_written_pages(files, config)
    asked = site_settings(config, options)
    settings = place_settings(asked, hand_written)
    placed = place_bundle(render_site(kb, settings), settings, hand_written, asked)
    site = placed.bundle
    built = with_generated(files, config, site.files)
    apply_page_meta(built, site)
    log_placement(placed, settings, config)
    log_docs_folder(kb.settings.docs, settings)
    log_findings(kb, options.findings)
    warn_if_tags_page_empty(config, site)
    return Generated(built, site.banners, site.pages)


def generate_org_files(files: Files, config: MkDocsConfig, options: SiteOptions) -> Generated:
    """An org site (the plugin's `knowledge_bases:`): every knowledge base read and checked together
    (`org.organisation`), each rendered under its name (`NAME/knobs/ID/`...), and one home page with
    the organisation's ledger and findings. A knowledge base that cannot be read is logged, and left out."""
    from ...org.configuration import read_org_config
    from ...org.organisation import check_organisation

    try:
        org_config = read_org_config(Path(str(config.config_file_path)))
        assert org_config is not None  # required: KbError when it lists none
        organisation = check_organisation(org_config, timelines=True, allow_shallow=True)
    except KbError as exc:
        raise PluginError(f"incident-kb: {exc}") from None
    hand_written = hand_written_pages(files, config)
    generated: dict[str, str] = {}
    pages: dict[str, PageMeta] = {}
    homes: set[str] = set()
    min_gains = tuple((member.name, member.kb.config.min_gain_pct) for member in organisation.members
                      if member.kb is not None)
    for member in organisation.members:
        if member.kb is None or member.root is None:
            continue
        # Each knowledge base's own docs stay in its own site; its pages here edit nothing in this repository.
        asked = replace(settings_from_config({"site_name": member.name, "docs_dir": config.docs_dir,
                                              "use_directory_urls": config.use_directory_urls}, member.root),
                        tags=False, charts=options.charts, prefix=member.name, findings=options.findings,
                        neighbour_min_gains=tuple(item for item in min_gains if item[0] != member.name))
        settings = place_settings(asked, hand_written)
        placed = place_bundle(render_site(member.kb, settings), settings, hand_written, asked)
        generated.update(placed.bundle.files)
        for shared in (*placed.bundle.needs.stylesheets, *placed.bundle.needs.scripts):  # linked from every page
            if posixpath.join(member.name, shared) in placed.bundle.files:
                generated[shared] = placed.bundle.files[posixpath.join(member.name, shared)]
        # In the nav, the knowledge base is its home (which leads to its indexes): every page renders the
        # whole nav, so an entry per index of every knowledge base would grow every page with their number.
        homes.add(placed.home_path)
        pages.update({path: replace(meta, banner=None, in_nav=meta.in_nav and path == placed.home_path)
                      for path, meta in placed.bundle.pages.items() if meta.generated})
    if ORG_HOME not in hand_written:
        generated[ORG_HOME] = render_org_home(organisation, config.site_name, options.findings)
        pages[ORG_HOME] = PageMeta(title=config.site_name)
    if files.get_file_from_path(FEED) is None:  # one feed over every knowledge base (each keeps its own too)
        generated[FEED] = render_org_feed(((member.name, member.kb.catalog.knobs.values(),
                                            member.kb.catalog.incidents.values())
                                           for member in organisation.members if member.kb is not None),
                                          config.site_name, config.site_url, config.use_directory_urls)
    built = with_generated(files, config, generated)
    apply_page_meta(built, Bundle(generated, pages))
    for item in organisation.findings:
        if item.code in ("unreadable-kb", "bad-config"):  # the rest are on the pages, as for one knowledge base
            log.warning("incident-kb: %s:%d: %s", item.path, item.line, item.message)
    log.info("kb org check: %d finding(s) in %d knowledge base(s)", len(organisation.findings),
             len(organisation.members))
    return Generated(built, {}, pages, frozenset(homes))


def with_generated(files: Files, config: MkDocsConfig, generated: dict[str, str]) -> Files:
    """`files` with the generated ones added, in memory: each file's bytes as written to disk would
    have been, a page's text as MkDocs would read it back (newlines as universal newlines leave them);
    a generated file takes the place of a file of the same path, in mkdocs-gen-files' order."""
    made = {path: File.generated(config, path, content=_as_read(path, text)) for path, text in generated.items()}
    return Files(sorted({**{file.src_uri: file for file in files}, **made}.values(), key=file_sort_key))


def _as_read(path: str, text: str) -> str | bytes:
    """A page as MkDocs reads a file (UTF-8 with or without a byte order mark, universal newlines);
    any other file's bytes, which MkDocs copies."""
    if not is_markdown_file(path):
        return text.encode("utf-8")
    text = text.removeprefix("\ufeff")
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def org_navigation(nav: Navigation, homes: Collection[str]) -> Navigation:
    """An org site's nav with each knowledge base's section, which holds only its home (`homes`,
    docs-relative), as that one page: one entry a knowledge base, under the section's title (its name,
    "Payments"), which the page's title in the browser's tab then says too."""
    for index, item in enumerate(nav.items):
        if isinstance(item, Section) and len(item.children) == 1 and isinstance(item.children[0], Page) \
                and item.children[0].file.src_uri in homes:
            page = item.children[0]
            page.parent = None
            page.title = item.title
            nav.items[index] = page
    return nav


class InputsLooked:
    """Every look a build's check and pages took at the repository (each path, each folder listed:
    `repository.files` writes them down), and git's own files whose change changes its view: what
    `mkdocs serve` watches until the next build (see save_watch)."""

    def __init__(self, root: Path) -> None:
        self._root = root
        self._recording: AbstractContextManager[Probes] | None = None
        self._probes = Probes(time.time_ns())
        self._git: GitView | None = None

    def __enter__(self) -> InputsLooked:
        self._recording = probes_recorded(time.time_ns())  # a file changed while the build reads is signed by its bytes
        self._probes = self._recording.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 traceback: TracebackType | None) -> None:
        if self._recording is not None:
            self._recording.__exit__(kind, error, traceback)
            self._recording = None
        self._git = _git_view(self._root, self._probes.changed_after)

    def inputs(self, config: MkDocsConfig) -> Inputs:
        """What the build read: these looks, and MkDocs' own inputs (the docs folder, `watch:`, the
        configuration file)."""
        paths = {*self._probes.files, *(self._git.watched if self._git is not None else ())}
        if config.config_file_path:
            paths.add(config.config_file_path)
        return Inputs(paths=frozenset(paths), listed=frozenset(self._probes.listings),
                      trees=frozenset([config.docs_dir, *map(str, config.watch)]))

    def edited_files(self) -> list[str] | None:
        """The files under the root changed since the build looked (root-relative); None when a folder's
        listing changed, a changed file lies outside the root, or git's view moved."""
        files, folders = self._probes.changed()
        root = str(self._root)
        if folders or any(not path.startswith(root + os.sep) for path in files):
            return None
        now = _git_view(self._root, self._probes.changed_after)
        if now is None or self._git is None or now.as_key() != self._git.as_key():
            return None
        return sorted(Path(path).relative_to(self._root).as_posix() for path in files)

    def carry(self, earlier: InputsLooked) -> None:
        """Keep watching what `earlier` (the last build's) looked at and this one did not: a re-check
        looks only at what an edit reaches."""
        for path, seen in earlier._probes.files.items():
            self._probes.files.setdefault(path, resigned(seen, self._probes.changed_after))
        for folder, seen in earlier._probes.listings.items():
            self._probes.listings.setdefault(folder, seen)

    def changed(self) -> bool:
        """Whether anything the build looked at is no longer as it saw it."""
        files, folders = self._probes.changed()
        if files or folders:
            return True
        now = _git_view(self._root, self._probes.changed_after)
        return (now is None) != (self._git is None) or (now is not None and self._git is not None
                                                          and now.as_key() != self._git.as_key())


def _git_view(root: Path, changed_after: int) -> GitView | None:
    try:
        return read_git_view(root, changed_after)
    except KbError:
        return None


def hand_written_pages(files: Files, config: MkDocsConfig) -> frozenset[str]:
    """The files of the site's docs folder that the build will use (docs-relative): the places a
    generated file must not take."""
    docs_dir = os.path.normpath(config.docs_dir)
    return frozenset(file.src_uri for file in files
                     if file.abs_src_path is not None and os.path.normpath(file.src_dir or "") == docs_dir
                     and file.inclusion is not InclusionLevel.EXCLUDED)


def log_docs_folder(checked: DocsFolder, settings: SiteSettings) -> None:
    """A warning when kb check reads another docs folder (`checked`) than this site renders: stale-doc
    would never look at this site's pages (settings/docs_folder.py decides what the check reads)."""
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
    folder = next(name for name in ("kb", "knowledge-base") if name != settings.prefix)  # not the one that clashed
    how = ("To put the knowledge base in a folder of its own, give the incident-kb plugin the option "
           f"`prefix: {folder}` in {config_file} (its pages then go under {folder}/); or keep your pages in those "
           "places and turn the generated ones off (`home: false`, `tags: false`).")
    message = kept_pages_message(placed, settings.docs_dir, how)
    if message is not None:
        log.warning("incident-kb: %s", message)
    elif not settings.home:
        log.info("incident-kb: the knowledge base's home, with what needs action, is at %s", placed.home_path)


# `mkdocs serve`'s check: the site's, with where each finding came from, for the next save's re-check.
SERVE = replace(SITE, ledger=True)


def check_again(root: Path, previous: KnowledgeBase | None, edited: list[str] | None) -> KnowledgeBase:
    """`check(root, SERVE)` after only the record files `edited` (root-relative) changed since `previous`
    was checked (None: anything may have changed), re-checked in memory where a re-check can follow."""
    if previous is not None and edited:
        from ...check.recheck import rechecked_knowledge_base

        try:
            kb = rechecked_knowledge_base(previous, edited, SERVE)
        except KbError:
            kb = None  # the whole check says why
        if kb is not None:
            log.info("incident-kb: %s re-checked with what they reach", ", ".join(edited))
            return kb
    return check(root, SERVE)


def start_check(root: Path) -> None:
    """On MkDocs' `on_config`, before it cleans the site's folder and lists the docs: a cold check's
    record files parsed from then on by a forked child (the other core idles until the pages are written)."""
    parse_records_ahead(root)


def check(root: Path, mode: CheckMode = SITE) -> KnowledgeBase:
    try:
        # The site builds in shallow clones too: what history there is still dates the changes. kb's
        # record cache is written beside the build, on the core that idles while MkDocs converts the pages.
        with saves_in_background():
            kb = check_knowledge_base(root, mode)
    except NotAKnowledgeBase as exc:  # worded for mkdocs.yml: mkdocs has no --root
        raise PluginError(f"incident-kb: {exc.problem}; set the incident-kb plugin's `root` option in mkdocs.yml "
                          "to the folder that holds knobs/ and incidents/ (relative to mkdocs.yml)") from None
    except KbError as exc:
        raise PluginError(f"incident-kb: {exc}") from None
    for note in kb.notes:  # e.g. a shallow clone: information, since --strict fails on warnings
        log.info("incident-kb: %s", note)
    return kb


def site_settings(config: MkDocsConfig, options: SiteOptions) -> SiteSettings:
    site = {"site_name": config.site_name, "site_url": config.site_url, "repo_url": config.repo_url,
            "edit_uri": config.edit_uri, "use_directory_urls": config.use_directory_urls,
            "docs_dir": options.docs_dir or config.docs_dir}
    return replace(settings_from_config(site, options.root), home=options.home, tags=options.tags,
                   charts=options.charts, prefix=options.prefix, findings=options.findings)


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


def log_findings(kb: KnowledgeBase, shown: bool = True) -> None:
    if kb.findings:
        # Information, not a warning: a warning would fail `mkdocs build --strict`.
        log.info("kb check: %d finding(s); %s", len(kb.findings), "they are shown on the site's pages" if shown
                 else "left out of this site's pages (public: true; kb check and mkdocs serve show them)")


_TAGS_PLUGIN = "material.plugins.tags"


def warn_if_tags_page_empty(config: MkDocsConfig, site: Bundle) -> None:
    """A warning (which `--strict` counts) when the generated tags page would list nothing because of
    how Material's tags plugin is set up, or missing: an empty page would say nothing of why."""
    if TAGS_PAGE not in site.files:
        return
    tagged = [path for path, meta in site.pages.items() if meta.tags]
    problem = tags_page_problem(config.plugins.values(), tagged)
    if problem is not None:
        log.warning("incident-kb: the tags page (%s) will list no page: %s (or set the incident-kb plugin's "
                    "`tags: false` in mkdocs.yml to generate no tags page)", TAGS_PAGE, problem)


def tags_page_problem(plugins: Iterable[Any], tagged: Iterable[str]) -> str | None:
    """Why no instance of Material's tags plugin among `plugins` would list the generated pages
    (`tagged`, docs-relative) on the tags page; None when one would."""
    found = [plugin for plugin in plugins if type(plugin).__module__.startswith(_TAGS_PLUGIN)]
    if not found:
        return ("Material's tags plugin is not in mkdocs.yml's plugins; add `- material/tags` to `plugins:` (`- tags` "
                "resolves only with `theme: material` in mkdocs.yml)")
    tagged = list(tagged)
    reasons = [_why_no_listing(plugin.config, tagged) for plugin in found]
    if any(reason is None for reason in reasons):
        return None
    return "; ".join(dict.fromkeys(reason for reason in reasons if reason is not None))


def _why_no_listing(options: Any, tagged: list[str]) -> str | None:
    """Why one tags plugin, set up with `options` (its documented settings), lists none of `tagged`
    on the tags page."""
    from material.utilities.filter import Filter  # type: ignore[import-untyped]

    if not options.enabled:
        return "Material's tags plugin is disabled (`enabled: false`)"
    if not options.listings:
        return "Material's tags plugin renders no listings (`listings: false`, or `export_only: true`)"
    try:
        marked = re.search(rf"<!--\s*?{options.listings_directive}(.*?)\s*-->",
                           f"<!-- {TAGS_LISTING} -->", flags=re.I | re.M | re.S)
    except re.error:
        marked = None
    if marked is None:
        return (f"Material's tags plugin looks for listings marked `<!-- {options.listings_directive} -->` "
                f"(`listings_directive`), and the tags page is marked `<!-- {TAGS_LISTING} -->`; remove "
                "`listings_directive`")
    if options.tags_name_property != TAGS_FIELD:
        return (f"Material's tags plugin reads a page's tags from `{options.tags_name_property}` "
                f"(`tags_name_property`), and the generated pages give them as `{TAGS_FIELD}`; remove "
                "`tags_name_property`")
    kept = Filter(options.filters)
    if not kept(TAGS_PAGE):
        return f"Material's tags plugin's `filters` leave out {TAGS_PAGE}"
    if tagged and not any(kept(path) for path in tagged):
        return "Material's tags plugin's `filters` leave out every record page"
    return None
