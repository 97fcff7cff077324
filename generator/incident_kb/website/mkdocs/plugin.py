"""The MkDocs plugin `incident-kb` (`plugins: [search, tags, incident-kb]` in mkdocs.yml): the record
pages, indexes, tags page, home page and gain charts generated into the build, banners on the
hand-written pages that findings are about, Material's partials it overrides, and the record
folders watched under `mkdocs serve`.

Registered under the `mkdocs.plugins` entry point, so a repository that adopts the knowledge base
holds no Python file of ours. It adds the generated files to the build in memory itself (no
`gen-files` plugin need be listed). Options are declared below and checked
by MkDocs' config schema:

    plugins:
      - incident-kb:
          root: .        # the folder holding knobs/ and incidents/ (default: mkdocs.yml's folder)
          prefix: ''     # the docs folder's subfolder for the generated pages, e.g. kb ('': its top)
          home: true     # the knowledge base's home is the site's (index.md); false: needs-action.md
          tags: true     # generate tags.md for Material's tags plugin
          charts: true   # gain charts on knob pages
          search: pagefind  # the site's search on Pagefind's index; `material` for Material's own

A hand-written page is never replaced: where the docs folder has a page at a generated page's path,
that page is kept and the build warns (see core.placement). The site's search is the plugin's, on
Pagefind's index (site_search: it splits `_`, `.` and signs itself). Where Material's search answers
instead (`search: material`, or Pagefind missing), it gets a separator that splits `_` (so a short
name finds a setting's page) when the site sets none, and a warning when the site's own cannot.

MkDocs glue only: the work of a build is in `glue` (and, under `mkdocs serve --dirty`, `preview`),
imported afresh for each build so that `mkdocs serve` picks up edits to the generator itself in a
development checkout (see `live_reload`).
"""

from __future__ import annotations

# Upstream's notices (Material's end of life, ProperDocs') are let through: the plugin silences
# none of them (only MkDocs' warning about dirty builds, under its own live preview). The Makefile
# and the generated workflow silence them, where the user chose to (docs/reference/adopting.md:
# "The incident-kb plugin's options").
import html
import logging
import os
import posixpath
import re
import sysconfig
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from jinja2 import Environment
from mkdocs.config import config_options as opt
from mkdocs.config.base import Config
from mkdocs.config.config_options import ExtraScriptValue
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import Files
from mkdocs.structure.nav import Navigation
from mkdocs.structure.pages import Page
from mkdocs.utils import get_relative_url
from mkdocs.utils.templates import TemplateContext

from ...wording import yaml_quoted
from ..core.bundle import SEARCH_SEPARATOR, site_needs
from ..core.feed import FEED
from . import site_search
from .idle_collection import IdleCollection
from .live_reload import fresh_module

if TYPE_CHECKING:
    from .glue import InputsLooked, SiteOptions
    from .preview import Preview
    from .quick_save import OwnInputs
    from .reloaded import GlueModule, PreviewModule, QuickSaveModule
from .save_watch import SaveWatch

log = logging.getLogger("mkdocs.plugins.incident-kb")
_GLUE = "incident_kb.website.mkdocs.glue"
_PREVIEW = "incident_kb.website.mkdocs.preview"
_QUICK_SAVE = "incident_kb.website.mkdocs.quick_save"
# Material's partials that the pages expect overridden (core.bundle.THEME_OVERRIDES: tags below the
# page, a name for the search dialog).
THEME_OVERRIDES = str(Path(__file__).parent / "theme")
_OWN_EXCLUDE = "incident_kb_excluded"  # in a page's `search` metadata: what its front matter said
# The search plugins whose separator splits a page's words: Material's, and MkDocs' (or ProperDocs')
# own, which Backstage's techdocs-core swaps in.
_SEARCH_PLUGINS = ("material.plugins.search", "mkdocs.contrib.search", "properdocs.contrib.search")
# Where MkDocs and ProperDocs log their warning about dirty builds (their build module's logger).
_BUILD_LOGGERS = ("mkdocs.commands.build", "properdocs.commands.build")
_DIRTY_WARNING = "A 'dirty' build is being performed"


def _quiet_dirty_warning(record: logging.LogRecord) -> bool:
    """MkDocs' warning that a dirty build gets the nav and links wrong: under the live preview it does
    not (the preview restores every page MkDocs did not read and rebuilds those that depend on a
    change; tests/website/test_live_preview.py compares it with a full build), so it is left out of the log."""
    return not str(record.msg).startswith(_DIRTY_WARNING)


def _set_by_the_site(plugin: Any, key: str) -> bool:
    """Whether the site's configuration gave the plugin `key` (MkDocs' own search has a default
    separator, '[\\s\\-]+', that is no choice of the site's)."""
    with warnings.catch_warnings():  # MkDocs 1.6 marks user_configs deprecated; without it, the value decides
        warnings.simplefilter("ignore", DeprecationWarning)
        given = getattr(plugin.config, "user_configs", None)
    if not isinstance(given, list):
        return bool(plugin.config.get(key))
    return any(isinstance(options, dict) and key in options for options in given)


def splits_underscore(separator: str) -> bool | None:
    """Whether a search separator (a JavaScript regular expression) splits 'POOL_SIZE' at its '_';
    None when Python cannot read it (then nobody is warned on a guess)."""
    try:  # by where it matches, not by re.split's pieces: a group in it (`([\s_])+`) adds pieces
        return any(match.start() <= 4 < match.end() for match in re.finditer(separator, "POOL_SIZE"))
    except (re.error, TypeError):
        return None


def checked_prefix(prefix: str) -> str:
    """The `prefix` option as a plain relative folder of the docs folder ('' for its top)."""
    cleaned = posixpath.normpath(prefix.strip().strip("/")) if prefix.strip().strip("/") else ""
    if cleaned in ("", "."):
        return ""
    if cleaned == ".." or cleaned.startswith("../") or "\\" in cleaned or posixpath.isabs(prefix.strip()):
        raise PluginError(f"incident-kb: prefix {prefix!r} must be a folder inside the docs folder, e.g. prefix: kb")
    return cleaned


class IncidentKbConfig(Config):
    root = opt.Optional(opt.Dir(exists=True))
    prefix = opt.Type(str, default="")
    home = opt.Type(bool, default=True)
    tags = opt.Type(bool, default=True)
    charts = opt.Type(bool, default=True)
    search = opt.Choice(("pagefind", "material"), default="pagefind")
    # A site for readers outside the team: `mkdocs build` leaves kb check's findings out of the pages
    # (banners on docs, boxes on records, the findings page); `mkdocs serve` still shows them.
    public = opt.Type(bool, default=False)
    # An org site: the organisation's knowledge bases ({name, path} or {name, git, ref}), each
    # rendered under its name, with one home page and one search (read by org.configuration).
    knowledge_bases = opt.Optional(opt.Type(list))


class IncidentKbPlugin(BasePlugin[IncidentKbConfig]):
    supports_multiple_instances = False

    def __init__(self) -> None:
        self._banners: dict[str, str] = {}
        self._live = False  # `mkdocs serve --dirty`: a live preview that rebuilds only what changed
        self._preview: Preview | None = None  # kept between the builds of one serve
        self._previewer: PreviewModule | None = None  # the preview module as this build imported it
        self._built_once = False  # the live preview's first build is done
        self._collection = IdleCollection()  # the collector, paused while the live preview rebuilds
        self._saving_quickly = False  # a save built without MkDocs' build is ending (quick_save)
        # `mkdocs serve`: every input of a build is watched until the next, and the search index is
        # written beside the preview, not before it
        self._serving = False
        self._cleaned = True  # MkDocs empties the site folder before each build (not --dirty)
        self._looked: InputsLooked | None = None  # what this build looked at
        self._last_config: MkDocsConfig | None = None
        self._save_watch: SaveWatch | None = None  # watches what the last build looked at
        self._theme_names: dict[object, list[str]] = {}  # the theme's files, listed once for the live preview
        self._pagefind = False  # this build's search is the plugin's (site_search), on Pagefind's index
        self._pages: dict[str, Any] = {}  # docs-relative page -> core.bundle.PageMeta, this build's
        self._files: Files | None = None  # this build's files
        self._homes: frozenset[str] = frozenset()  # an org site's knowledge bases' homes (glue.Generated.homes)
        self._glue: GlueModule | None = None  # the glue module as this build imported it
        self._background_index = site_search.BackgroundIndex()
        self._streamed_index: site_search.StreamedIndex | None = None  # `mkdocs build`: Pagefind beside MkDocs
        self._prefix = ""  # the option, checked
        self._docs_dir: str | None = None  # the docs folder as configured (see glue.SiteOptions.docs_dir)
        self._separators_seen: set[int] = set()  # the search plugins given a separator (or warned about)
        self._own_inputs: OwnInputs | None = None  # MkDocs' own inputs as the live preview's last build began

    def on_startup(self, *, command: str, dirty: bool) -> None:
        # An org site has no live preview (it keeps one knowledge base's pages): `make serve` builds it
        # whole each time, as `mkdocs serve` does.
        self._live = command == "serve" and dirty and self.config.get("knowledge_bases") is None
        self._serving = command == "serve"
        self._cleaned = not dirty  # each build starts from an emptied site folder
        if command == "serve" and dirty and not self._live:
            log.info("incident-kb: an org site is built whole on each change (the live preview is for one "
                     "knowledge base)")
        if self._live:  # the preview keeps a dirty build whole: MkDocs' warning about it does not apply
            for logger in _BUILD_LOGGERS:
                logging.getLogger(logger).addFilter(_quiet_dirty_warning)

    @property
    def root(self) -> Path:
        return Path(self.config.root or os.path.dirname(self._config_file)).resolve()

    @event_priority(100)  # before other plugins' on_config: Material's search settles its separator there,
    def _before_others(self, config: MkDocsConfig) -> None:  # and TechDocs' monorepo plugin moves docs_dir
        self._docs_dir = config.docs_dir
        self._pagefind = site_search.answers_search(self.config.search, config.theme.name, list(config.plugins))
        self._separators_seen = set()
        self._settle_separators(config)

    @event_priority(-100)  # after other plugins' on_config: techdocs-core swaps in MkDocs' own search there
    def _after_others(self, config: MkDocsConfig) -> None:
        self._settle_separators(config)

    def _settle_separators(self, config: MkDocsConfig) -> None:
        """Give each search plugin (Material's, MkDocs' or ProperDocs' own) a separator that splits '_'
        when the site sets none; warn once when the site's own cannot split it."""
        for plugin in config.plugins.values():
            if not type(plugin).__module__.startswith(_SEARCH_PLUGINS) or not plugin.config.get("enabled", True) \
                    or id(plugin) in self._separators_seen:
                continue
            self._separators_seen.add(id(plugin))
            separator = plugin.config.get("separator")
            if not _set_by_the_site(plugin, "separator") or not separator:
                plugin.config["separator"] = SEARCH_SEPARATOR
            # Under the plugin's search, Material's index holds no page: its separator finds nothing
            # either way, and a warning about it would be a false alarm.
            elif splits_underscore(separator) is False and not self._pagefind:
                # Both regexes as mkdocs.yml writes them (YAML single quotes), not as Python's repr.
                log.warning("incident-kb: the search plugin's separator %s does not split '_': a short name "
                            "such as POOL_SIZE finds nothing in a page that says PAYMENTS_DB_POOL_SIZE; add _ to "
                            "it, or remove the separator and incident-kb sets one that splits '_' (%s)",
                            yaml_quoted(separator), yaml_quoted(SEARCH_SEPARATOR))

    def _configure(self, config: MkDocsConfig) -> MkDocsConfig:
        if self._live and self._built_once:
            self._collection.rebuild_started()
        if self._serving and self._cleaned:  # MkDocs empties the site folder next: no index written into it
            self._background_index.interrupt()
        self._config_file = config.config_file_path
        self._last_config = config
        self._prefix = checked_prefix(self.config.prefix)
        if not self._serving and self.config.knowledge_bases is None:  # serve: every look is recorded in this process
            cast("GlueModule", fresh_module(_GLUE)).start_check(self.root)
        needs = site_needs(self.root)
        # The pages' one style sheet and script, served from the site itself.
        for sheet in (posixpath.join(self._prefix, sheet) for sheet in needs.stylesheets):
            if sheet not in config.extra_css:
                config.extra_css.append(sheet)
        for script in (posixpath.join(self._prefix, script) for script in needs.scripts):
            if script not in [str(known) for known in config.extra_javascript]:
                config.extra_javascript.append(ExtraScriptValue(script))
        # After the site's own custom_dir, if it has one, so that its overrides win.
        if config.theme.name == "material" and THEME_OVERRIDES not in config.theme.dirs:
            config.theme.dirs.insert(1 if config.theme.custom_dir else 0, THEME_OVERRIDES)
        search_theme = str(site_search.THEME)
        if self._pagefind and search_theme not in config.theme.dirs:
            config.theme.dirs.insert(config.theme.dirs.index(THEME_OVERRIDES), search_theme)
            config.extra_css.append(site_search.STYLESHEET)
            config.extra_javascript.append(ExtraScriptValue(site_search.SCRIPT))
        for extension in needs.markdown_extensions:
            if extension not in config.markdown_extensions:
                config.markdown_extensions.append(extension)
        if self._live:
            list_theme_once(config, self._theme_names)
            quick = cast("QuickSaveModule", fresh_module(_QUICK_SAVE))
            self._own_inputs = quick.OwnInputs.of(config)  # before MkDocs lists and reads them
        return config

    on_config = CombinedEvent(_before_others, _configure, _after_others)

    def on_files(self, files: Files, config: MkDocsConfig) -> Files:
        glue = cast("GlueModule", fresh_module(_GLUE))
        options = self._site_options(glue)
        if self._serving:  # what the check and the pages look at is watched until the next build
            self._looked = glue.InputsLooked(self.root)
            with self._looked:
                return self._generate(glue, files, config, options)
        return self._generate(glue, files, config, options)

    def _site_options(self, glue: GlueModule) -> SiteOptions:
        return glue.SiteOptions(root=self.root, home=self.config.home, tags=self.config.tags,
                                charts=self.config.charts, prefix=self._prefix, docs_dir=self._docs_dir,
                                findings=self._serving or not self.config.public)

    def _generate(self, glue: GlueModule, files: Files, config: MkDocsConfig, options: SiteOptions) -> Files:
        if self._live:
            previewer = cast("PreviewModule", fresh_module(_PREVIEW))
            self._previewer = previewer
            stamp = site_stamp(config, previewer)
            if self._preview is None or self._preview.stamp != stamp:
                self._drop_preview()
                self._empty_site(previewer, config.site_dir)  # what depends on all of it: everything again
                self._preview = previewer.Preview(stamp)
            generated = previewer.preview_files(self._preview, files, config, options)
        else:
            generate = glue.generate_org_files if self.config.knowledge_bases is not None else glue.generate_files
            generated = generate(files, config, options)
        self._banners = generated.banners
        self._pages = generated.pages
        self._files = generated.files
        self._homes = generated.homes
        self._glue = glue
        if self._pagefind and not self._serving:  # the names index made while MkDocs converts the pages
            self._close_streamed_index()
            self._streamed_index = site_search.StreamedIndex()
            self._streamed_index.write_names_early(Path(config.site_dir), self._named_pages())
        files_out: Files = generated.files
        return files_out

    def _empty_site(self, previewer: PreviewModule, site_dir: str) -> None:
        """The live preview's site emptied for a build from scratch; the search index being written
        into it is ended first."""
        self._background_index.interrupt()
        previewer.empty_folder(site_dir)

    def on_nav(self, nav: Navigation, config: MkDocsConfig, files: Files) -> Navigation:
        if self._homes and self._glue is not None:  # an org site: one entry a knowledge base
            nav = self._glue.org_navigation(nav, self._homes)
        if self._preview is not None:
            self._preview.navigation = nav
        return nav

    def on_pre_page(self, page: Page, config: MkDocsConfig, files: Files) -> None:
        if self._preview is not None and self._previewer is not None:
            self._previewer.note_read(self._preview, page)

    @event_priority(100)  # the markdown as read, before other plugins change it
    def on_page_markdown(self, markdown: str, page: Page, config: MkDocsConfig, files: Files) -> None:
        if self._preview is not None and self._previewer is not None:
            self._previewer.note_markdown(self._preview, page, markdown)

    def on_page_content(self, html: str, page: Page, config: MkDocsConfig, files: Files) -> str:
        """A hand-written page's HTML with its findings' banner on top (HTML marked to stay out of the
        search index: as markdown it would be indexed), and what the site's search reads of the page.
        Material's search then leaves the page out of its own index: the plugin's search answers."""
        banner = self._banners.get(page.file.src_uri)
        html = banner + html if banner else html
        if not self._pagefind:
            return html
        found = page.meta.get("search")
        search: dict[str, Any] = found if isinstance(found, dict) else {}
        # The page's own word (its front matter's `search: exclude`), kept beside ours: a page whose
        # metadata a live preview carries into the next build is judged the same way again.
        excluded = bool(search.get(_OWN_EXCLUDE, search.get("exclude")))
        page.meta["search"] = {**search, "exclude": True, _OWN_EXCLUDE: excluded}
        return site_search.mark_page(html, self._pages.get(page.file.src_uri), excluded)

    @event_priority(200)  # before the tags plugin (100) reads the pages' tags
    def _restore_pages(self, env: Environment, config: MkDocsConfig, files: Files) -> None:
        if self._preview is not None and self._previewer is not None:
            self._previewer.restore_pages(self._preview, env, config, files)

    @event_priority(99)  # right after the tags plugin (100) rendered its listings
    def _give_back_pages(self, env: Environment, config: MkDocsConfig, files: Files) -> None:
        if self._preview is not None and self._previewer is not None:
            self._previewer.give_back_pages(self._preview, config)

    @event_priority(-200)  # after every other plugin changed the pages
    def _mark_changed_outputs(self, env: Environment, config: MkDocsConfig, files: Files) -> None:
        if self._preview is not None and self._previewer is not None:
            self._previewer.mark_changed_outputs(self._preview, env, files)

    on_env = CombinedEvent(_restore_pages, _give_back_pages, _mark_changed_outputs)

    def _link_feed(self, output: str, page: Page, config: MkDocsConfig) -> str:
        """Every page's head names the knowledge base's feed, so a feed reader finds it from any page."""
        feed = self._files.get_file_from_path(posixpath.join(self._prefix, FEED)) if self._files else None
        head = output.find("</head>")
        if feed is None or head < 0 or 'type="application/atom+xml"' in output[:head]:
            return output
        href = html.escape(get_relative_url(feed.url, page.url), quote=True)
        title = html.escape(f"{config.site_name}: record changes", quote=True)
        return (output[:head] + f'<link rel="alternate" type="application/atom+xml" title="{title}" href="{href}">\n'
                + output[head:])

    @event_priority(-1000)  # the page as MkDocs writes it, after every other plugin's on_post_page
    def _hand_to_search(self, output: str, page: Page, config: MkDocsConfig) -> str:
        """`mkdocs build`: the page handed to Pagefind as it is written, indexed while MkDocs renders the
        next (see site_search.StreamedIndex); `mkdocs serve` indexes the site's folder after each build."""
        if self._pagefind and not self._serving:
            if self._streamed_index is None:
                self._streamed_index = site_search.StreamedIndex()
            self._streamed_index.add(page.file.dest_uri, output)
        return output

    on_post_page = CombinedEvent(_link_feed, _hand_to_search)

    def on_page_context(self, context: TemplateContext, page: Page, config: MkDocsConfig,
                        nav: Navigation) -> None:
        if self._preview is not None and self._previewer is not None:
            self._previewer.note_built(self._preview, page)

    @event_priority(50)  # before Material's search plugin (0) writes its index
    def _merge_search_index(self, config: MkDocsConfig) -> None:
        if self._preview is not None and self._previewer is not None:
            self._previewer.merge_search_index(self._preview, config)

    @event_priority(-100)  # after every other plugin has read the generated files
    def _finish_build(self, config: MkDocsConfig) -> None:
        self._watch_inputs(config)
        # No gc.freeze(): it would keep every object of the process out of the collector's reach,
        # other plugins' included. The collector only waits for the preview to be idle (see
        # idle_collection), after each rebuild.
        if self._preview is not None and not self._built_once:
            self._built_once = True
        elif self._live and self._built_once:
            self._collection.rebuild_ended(drops_older=not self._saving_quickly)

    @event_priority(-150)  # once every page is written
    def _write_search_index(self, config: MkDocsConfig) -> None:
        if not self._pagefind:
            return
        named = list(self._named_pages())
        if self._serving:
            self._background_index.request(Path(config.site_dir), named)
            return
        streamed, self._streamed_index = self._streamed_index or site_search.StreamedIndex(), None
        try:
            seconds, beside = streamed.finish(Path(config.site_dir), named)
        except (site_search.SearchUnavailable, OSError) as exc:
            raise PluginError(f"incident-kb: {exc}") from None
        log.info("incident-kb: search index written in %.1f s after the pages%s", seconds,
                 " (Pagefind indexed them as they were written)" if beside else "")

    on_post_build = CombinedEvent(_merge_search_index, _finish_build, _write_search_index)

    def _named_pages(self) -> Any:
        """The records' pages with the words that name them, where this build wrote them."""
        for path, meta in self._pages.items():
            file = self._files.get_file_from_path(path) if self._files is not None else None
            if meta.search_names and not meta.search_excluded and file is not None:
                yield site_search.NamedPage(file.dest_uri, meta.title or meta.search_names[0], meta.search_kind,
                                            meta.search_names)

    def on_serve(self, server: Any, config: MkDocsConfig, builder: Any) -> Any:
        """Every input of the last build is watched, and a save is seen at once, from the operating
        system's notifications, besides MkDocs' polling (see save_watch)."""
        if self._save_watch is None:
            self._save_watch = SaveWatch(server, [config.docs_dir, config.config_file_path or "", *config.watch])
            self._save_watch.start()
            self._watch_inputs(config)
            if self._live and callable(getattr(server, "builder", None)):
                server.builder = self._quick_or_whole(server.builder)
        return server

    def _adopt(self, banners: dict[str, str], pages: dict[str, Any]) -> None:
        """A save built without MkDocs' build: the banners and pages' metadata its pages are built with."""
        self._banners, self._pages = banners, pages

    def _quick_or_whole(self, whole: Any) -> Any:
        """The server's builder: a save that changed only generated pages' content is built without
        MkDocs' build (see quick_save), anything else by MkDocs' build as before. Either way the
        server then reloads the browsers."""
        def builder(*args: Any, **kwargs: Any) -> None:
            if args or kwargs or not self._built_quickly():
                whole(*args, **kwargs)
        return builder

    def _built_quickly(self) -> bool:
        """Whether the save was built without MkDocs' build (quick_save); if not, the log says why and
        MkDocs' build follows (and reports any error itself)."""
        try:
            why = self._build_quickly()
        except Exception as exc:  # noqa: BLE001 - the whole build follows
            why = f"{type(exc).__name__}: {exc}"
        if why is not None:
            log.info("incident-kb: the save takes MkDocs' whole build (%s)", why)
        return why is None

    def _build_quickly(self) -> str | None:
        preview, config, previewer = self._preview, self._last_config, self._previewer
        if preview is None or config is None or previewer is None or not self._built_once:
            return "no whole build to start from"
        if fresh_module(_PREVIEW) is not previewer or site_stamp(config, previewer) != preview.stamp:
            return "mkdocs.yml, the theme or the generator's code changed"
        glue = cast("GlueModule", fresh_module(_GLUE))
        quick = cast("QuickSaveModule", fresh_module(_QUICK_SAVE))
        self._collection.rebuild_started()
        earlier = self._looked
        edited = earlier.edited_files if earlier is not None else lambda: None
        looked = glue.InputsLooked(self.root)
        with looked:
            why = quick.save_quickly(preview, config, self._site_options(glue), self._own_inputs, edited, self._adopt)
        if why is None:
            if earlier is not None:
                looked.carry(earlier)
            self._looked = looked
            self._saving_quickly = True  # its garbage is its own (see idle_collection)
            try:
                config.plugins.on_post_build(config=config)  # as MkDocs ends a build; the server then reloads
            finally:
                self._saving_quickly = False
        return why

    def _watch_inputs(self, config: MkDocsConfig | None) -> None:
        """After a build, failed or not: watch what it looked at."""
        config = config or self._last_config
        if self._save_watch is not None and self._looked is not None and config is not None:
            self._save_watch.watch_inputs(self._looked.inputs(config), self._looked.changed)

    def on_build_error(self, error: Exception) -> None:
        self._close_streamed_index()
        self._watch_inputs(None)  # what it looked at before it failed: fixing any of it rebuilds
        self._drop_preview()  # the next build starts afresh: what this one left is unknown
        self._collection.stop()

    def on_shutdown(self) -> None:
        for logger in _BUILD_LOGGERS:
            logging.getLogger(logger).removeFilter(_quiet_dirty_warning)
        if self._save_watch is not None:
            self._save_watch.stop()
            self._save_watch = None
        self._collection.stop()
        self._background_index.stop()
        self._close_streamed_index()
        self._drop_preview()

    def _close_streamed_index(self) -> None:
        if self._streamed_index is not None:
            self._streamed_index.close()
            self._streamed_index = None

    def _drop_preview(self) -> None:
        if self._preview is not None:
            self._preview.close()
            self._preview = None


def site_stamp(config: MkDocsConfig, glue: object) -> object:
    """What every page of the site depends on: the configuration file, the theme's files outside
    installed packages (a site's custom_dir, this package's overrides when installed editable) and
    the generator's code (this module, imported anew when the package's source changed)."""
    config_file = Path(config.config_file_path or "")
    return (config_file.read_bytes() if config_file.is_file() else b"", _theme_stamp(config.theme.dirs), id(glue))


def _theme_stamp(folders: list[str]) -> tuple[tuple[str, int], ...]:
    """The files of the theme's folders outside installed packages, with their times."""
    installed = Path(sysconfig.get_paths()["purelib"]).resolve()
    return tuple(sorted((str(p), p.stat().st_mtime_ns) for folder in folders
                        if installed not in Path(folder).resolve().parents
                        for p in Path(folder).rglob("*") if p.is_file()))


def list_theme_once(config: MkDocsConfig, known: dict[object, list[str]]) -> None:
    """on_config of the live preview: MkDocs lists every file of the theme on each build and filters
    the names (to find its static files: 14,510 names in Material, a tenth of a second or more);
    here once, and again only when the theme's folders, a file in those outside installed packages
    or the filter (which function, and the theme's static templates it excludes) changed."""
    theme = config.theme
    stamp = (tuple(theme.dirs), _theme_stamp(theme.dirs), tuple(sorted(theme.static_templates)))
    make_env = theme.get_env

    def get_env() -> Environment:
        env = make_env()
        list_templates = env.list_templates

        def listed(extensions: Any = None, filter_func: Any = None) -> list[str]:
            key = (stamp, None if extensions is None else tuple(extensions),
                   getattr(filter_func, "__code__", filter_func))
            if key not in known:
                for old in [old for old in known if old[0] != stamp]:  # type: ignore[index]
                    del known[old]
                known[key] = list_templates(extensions, filter_func)
            return list(known[key])
        env.list_templates = listed  # type: ignore[method-assign]
        return env
    theme.get_env = get_env  # type: ignore[method-assign]
