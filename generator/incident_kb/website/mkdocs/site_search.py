"""The site's search: Pagefind's index of the built pages, and the header's search box that asks it.

Pagefind (its binary ships in the `pagefind-bin` wheel) reads the built site's HTML and writes
`pagefind/` into it: an index in chunks that the browser fetches as a query needs them. Search is
then ready as soon as a page opens and a tab holds little at any number of records, where
Material's own search downloads one index of every page's text and builds it again in the browser
on every page (bench/reading.py measures both in one run: README, "Reading at scale").

What is indexed is marked in each page's HTML here (`mark_page`): its body (an overview page: its
title and first lines only, not its tables, whose rows are record pages of their own) and its kind
(knob, incident, doc: the results' filter); the views weight the words that name a record and an
incident's root cause. `kb check`'s boxes and banners stay out, as they did of Material's index.
Weights alone cannot put a record's page first for its id when a long doc repeats the id forty
times (Pagefind ranks by BM25, which counts mentions), so the records' names get a small index of
their own (`pagefind-names/`, one stand-in page per record): the box lists the pages whose names
match first, then the pages that match. The box is this package's
`search_theme/partials/search.html` with `kb-search.js`; it replaces Material's search box, whose
index Material's plugin then writes empty (every page excluded from it), at no cost.

Knows no MkDocs class; runs one program, which reads and writes only the built site.
"""

from __future__ import annotations

import html
import logging
import os
import re
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..core.bundle import PageMeta, SearchKind

log = logging.getLogger("mkdocs.plugins.incident-kb")

INDEX_FOLDER = "pagefind"  # inside the built site
NAMES_FOLDER = "pagefind-names"  # the records' names, searched beside the pages (see NamedPage)
THEME = Path(__file__).parent / "search_theme"  # the search box (partials/search.html) and its script and styles
STYLESHEET = "assets/incident-kb/kb-search.css"  # site-relative, copied from THEME with the theme's files
SCRIPT = "assets/incident-kb/kb-search.js"
# Never indexed: permalink signs, kb check's boxes and banners, the index tables' controls.
EXCLUDED = ".headerlink, [data-search-exclude], .kb-table-tools"
# Pagefind's own search interfaces, written beside the index; the site's box is kb-search.js.
_UNUSED = ("pagefind-ui.js", "pagefind-ui.css", "pagefind-modular-ui.js", "pagefind-modular-ui.css",
           "pagefind-component-ui.js", "pagefind-component-ui.css", "pagefind-highlight.js")
# An overview page (home, indexes, tags) is indexed up to its first section or table.
_OVERVIEW_END = re.compile(r"<h2[\s>]|<table[\s>]|<div class=\"kb-table-tools\"")


class SearchUnavailable(Exception):
    """Pagefind is missing or failed; the message says which and what to do."""


def pagefind_program() -> Path | None:
    """The Pagefind binary of the installed `pagefind-bin` wheel, if there is one."""
    try:
        from pagefind_bin import get_executable  # type: ignore[import-untyped]
    except ImportError:
        return None
    try:
        found = Path(get_executable())
    except (FileNotFoundError, OSError):
        return None
    return found if os.access(found, os.X_OK) else None


def answers_search(option: str, theme: str | None, plugins: Iterable[str]) -> bool:
    """Whether a build's search is the plugin's: asked for (`search: pagefind`, the default), with
    Material's theme, and Pagefind installed (if not, Material's own search, with a warning that says
    why). `plugins`: the names mkdocs.yml lists."""
    if option != "pagefind" or theme != "material":
        return False
    if pagefind_program() is None:
        log.warning("incident-kb: Pagefind (the pagefind-bin package) is not installed: the site falls back to "
                    "Material's own search; install incident-kb's dependencies again, or set the plugin's "
                    "`search: material` to choose it")
        return False
    if not {"material/search", "search"} & set(plugins):
        log.info("incident-kb: Material's search plugin is not in mkdocs.yml, so the header has no search "
                 "box: add `- search` to plugins (incident-kb's search answers it)")
    return True


def mark_page(html: str, meta: PageMeta | None, excluded: bool) -> str:
    """A page's content HTML with what Pagefind reads: the part it indexes and the page's kind.
    `meta`: the bundle's word on a generated page (None: a hand-written doc); `excluded`: the page
    is kept out of search (too long, or its front matter says `search: exclude: true`)."""
    if excluded:
        return html
    kind = meta.search_kind if meta is not None else SearchKind.DOC
    if kind is SearchKind.OVERVIEW:
        end = _OVERVIEW_END.search(html)
        cut = end.start() if end else len(html)
        return f"<div data-pagefind-body>{html[:cut]}</div>{html[cut:]}"
    return f'<div data-pagefind-body><span data-pagefind-filter="kind:{kind.value}" hidden></span>{html}</div>'


@dataclass(frozen=True, slots=True)
class NamedPage:
    """A record's page as the names index holds it: where it is built, its title and kind, and the
    words that name it."""

    dest_uri: str  # the built file, site-relative ('knobs/x/index.html'): the index's URL is the page's
    title: str
    kind: SearchKind
    names: tuple[str, ...]


def names_page(page: NamedPage) -> str:
    """The names index's stand-in for a record's page: its title and names, nothing else, so that a
    name typed whole or in part finds the page by its name, not by how often other pages mention it."""
    names = " ".join(html.escape(name) for name in page.names)
    return (f'<!doctype html><html lang="en"><head><title>{html.escape(page.title)}</title></head><body>'
            f'<main data-pagefind-body><h1>{html.escape(page.title)}</h1><p>{names}</p>'
            f'<span data-pagefind-filter="kind:{page.kind.value}" hidden></span></main></body></html>')


def write_index(site_dir: Path, named: Iterable[NamedPage] = ()) -> float:
    """Indexes the built site into `site_dir/pagefind/`, and the records' names into
    `site_dir/pagefind-names/` (both at once: two programs, two cores); the seconds it took."""
    program = pagefind_program()
    if program is None:
        raise SearchUnavailable("Pagefind is not installed (the pagefind-bin package), so the site has no search "
                                "index: install incident-kb again with its dependencies, or set the incident-kb "
                                "plugin's `search: material` in mkdocs.yml for Material's own search")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="incident-kb-names-") as scratch:
        names_site = Path(scratch)
        for page in named:
            target = names_site / page.dest_uri
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(names_page(page), encoding="utf-8")
        runs = [_Run(program, site_dir, site_dir / INDEX_FOLDER, EXCLUDED)]
        if any(names_site.iterdir()):
            runs.append(_Run(program, names_site, site_dir / NAMES_FOLDER, EXCLUDED))
        else:  # no record yet: Pagefind refuses an empty folder, and the search answers from the pages alone
            shutil.rmtree(site_dir / NAMES_FOLDER, ignore_errors=True)
        failed = []
        for run in runs:
            try:
                run.wait()
            except SearchUnavailable as exc:
                failed.append(exc)
        if failed:
            raise failed[0]
    return time.perf_counter() - started


class _Run:
    """One Pagefind run into a fresh folder, put in place when it succeeds: a reader of the site
    being served never sees half an index."""

    def __init__(self, program: Path, site: Path, target: Path, excluded: str) -> None:
        self.target = target
        self.fresh = target.parent / f".{target.name}-{os.getpid()}-{threading.get_ident()}"
        shutil.rmtree(self.fresh, ignore_errors=True)
        self.site = site
        self.process = subprocess.Popen(
            [str(program), "--site", str(site), "--output-path", str(self.fresh), "--exclude-selectors", excluded,
             "--silent"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def wait(self) -> None:
        try:
            output, _ = self.process.communicate()
            if self.process.returncode != 0:
                lines = output.decode("utf-8", "replace").strip().splitlines()
                raise SearchUnavailable(f"Pagefind could not index {self.site} (exit {self.process.returncode})"
                                        + (f": {lines[-1]}" if lines else ""))
            for name in _UNUSED:
                (self.fresh / name).unlink(missing_ok=True)
            old = self.target.parent / f".{self.target.name}-old-{os.getpid()}-{threading.get_ident()}"
            if self.target.exists():
                self.target.rename(old)
            self.fresh.rename(self.target)
            shutil.rmtree(old, ignore_errors=True)
        finally:
            shutil.rmtree(self.fresh, ignore_errors=True)


class BackgroundIndex:
    """Under `mkdocs serve`, the index is written after each build without holding up the page the
    save reloads: one run at a time, and one more after it when a build finished meanwhile."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._wanted: tuple[Path, tuple[NamedPage, ...]] | None = None
        self._running = False

    def request(self, site_dir: Path, named: Iterable[NamedPage]) -> None:
        with self._lock:
            self._wanted = (site_dir, tuple(named))
            if self._running:
                return
            self._running = True
        threading.Thread(target=self._run, name="incident-kb search index", daemon=True).start()

    def _run(self) -> None:
        while True:
            with self._lock:
                wanted, self._wanted = self._wanted, None
                if wanted is None:
                    self._running = False
                    return
            try:
                seconds = write_index(*wanted)
            except (SearchUnavailable, OSError) as exc:
                log.warning("incident-kb: %s", exc)
            else:
                log.info("incident-kb: search index updated in %.1f s", seconds)
