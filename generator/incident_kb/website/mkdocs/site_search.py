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

Under `mkdocs build`, Pagefind indexes beside MkDocs (`StreamedIndex`): each page is handed to one
Pagefind process (its `--service` mode) as MkDocs writes it, so the indexing runs on another core
while MkDocs renders the next pages, and after the build only the index is written. It is checked
against the site as written: a page another plugin changed after it was handed over, or anything
Pagefind refused, and the site is indexed from its folder instead, as `mkdocs serve` always does.
Under `mkdocs serve` that indexing (the whole site, two processes, many seconds at 2,000 records)
waits until the saves stopped and runs at the lowest CPU priority (`BackgroundIndex`): a save's
rebuild and the browser's reload are not slowed by the last save's indexing.

Knows no MkDocs class; runs one program, which reads and writes only the built site.
"""

from __future__ import annotations

import base64
import hashlib
import html
import itertools
import json
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
    # By value: the live preview imports the core's modules again when their source changes, so a
    # page's kind may be a member of the reloaded class, never `is` this module's.
    if kind == SearchKind.OVERVIEW.value:
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


def _installed_program() -> Path:
    program = pagefind_program()
    if program is None:
        raise SearchUnavailable("Pagefind is not installed (the pagefind-bin package), so the site has no search "
                                "index: install incident-kb again with its dependencies, or set the incident-kb "
                                "plugin's `search: material` in mkdocs.yml for Material's own search")
    return program


def write_index(site_dir: Path, named: Iterable[NamedPage] = (), low_priority: bool = False,
                stop: threading.Event | None = None) -> float:
    """Indexes the built site into `site_dir/pagefind/`, and the records' names into
    `site_dir/pagefind-names/` (both at once: two programs, two cores); the seconds it took.
    `low_priority`: the programs run at the lowest CPU priority (see `_Run`). `stop`, once set: the
    programs still running are ended and what they wrote is not put in place (`Stopped`)."""
    program = _installed_program()
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="incident-kb-names-") as scratch:
        names_site = Path(scratch)
        for page in named:
            target = names_site / page.dest_uri
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(names_page(page), encoding="utf-8")
        runs = [_Run(program, site_dir, site_dir / INDEX_FOLDER, EXCLUDED, low_priority)]
        if any(names_site.iterdir()):
            runs.append(_Run(program, names_site, site_dir / NAMES_FOLDER, EXCLUDED, low_priority))
        else:  # no record yet: Pagefind refuses an empty folder, and the search answers from the pages alone
            shutil.rmtree(site_dir / NAMES_FOLDER, ignore_errors=True)
        failed: list[Exception] = []
        for run in runs:  # each waited for: a stop ends every run (none left writing into the site)
            try:
                run.wait(stop)
            except (SearchUnavailable, Stopped) as exc:
                failed.append(exc)
        if failed:  # a stop is told before a failure: the caller ends quietly
            raise ([exc for exc in failed if isinstance(exc, Stopped)] or failed)[0]
    return time.perf_counter() - started


_FRESH = itertools.count()  # `_fresh_folder`'s calls in this process


def _fresh_folder(target: Path) -> Path:
    """Where an index is written before it is put in place at `target`: a folder of this call's own.
    Two Pagefind runs of one thread can be under way for one target (the names index written early,
    and again after the pages when the names changed since): in one folder, the early run's files
    went in with the other's. The process and the call's number name it: the number is shared by the
    process' threads."""
    fresh = target.parent / f".{target.name}-{os.getpid()}-{next(_FRESH)}"
    shutil.rmtree(fresh, ignore_errors=True)
    return fresh


def _put_in_place(fresh: Path, target: Path) -> None:
    """A written index in place of the old one at once: a reader of the site being served never
    sees half an index. Pagefind's own search interfaces are left out (the site's box is kb-search.js)."""
    for name in _UNUSED:
        (fresh / name).unlink(missing_ok=True)
    old = target.parent / f".{target.name}-old-{os.getpid()}-{threading.get_ident()}"
    if target.exists():
        target.rename(old)
    fresh.rename(target)
    shutil.rmtree(old, ignore_errors=True)


class _Run:
    """One Pagefind run over a folder into a fresh folder, put in place when it succeeds."""

    def __init__(self, program: Path, site: Path, target: Path, excluded: str, low_priority: bool = False) -> None:
        self.target = target
        self.fresh = _fresh_folder(target)
        self.site = site
        self.process = subprocess.Popen(
            [*_lowest_priority(low_priority), str(program), "--site", str(site), "--output-path", str(self.fresh),
             "--exclude-selectors", excluded, "--silent"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)

    def wait(self, stop: threading.Event | None = None) -> None:
        try:
            output = self._output(stop)
            if self.process.returncode != 0:
                lines = output.decode("utf-8", "replace").strip().splitlines()
                raise SearchUnavailable(f"Pagefind could not index {self.site} (exit {self.process.returncode})"
                                        + (f": {lines[-1]}" if lines else ""))
            _put_in_place(self.fresh, self.target)
        finally:
            shutil.rmtree(self.fresh, ignore_errors=True)

    def _output(self, stop: threading.Event | None) -> bytes:
        while True:
            try:
                return self.process.communicate(timeout=None if stop is None else 0.1)[0]
            except subprocess.TimeoutExpired:
                if stop is not None and stop.is_set():
                    self.process.kill()
                    self.process.communicate()
                    raise Stopped(self.site) from None


class Stopped(Exception):
    """The index was not written: its run was ended (the server stopped, or the site's folder is about
    to be emptied) while Pagefind ran."""


def _lowest_priority(wanted: bool) -> list[str]:
    """The command that runs a program at the lowest CPU priority (`nice`, for the program and every
    thread it starts), where there is one; else none: the program runs as it is."""
    nice = shutil.which("nice") if wanted else None
    return [nice, "-n", "19"] if nice else []


class StreamedIndex:
    """Pagefind's indexing beside a build: one Pagefind process (its `--service` mode) is handed each
    page as MkDocs writes it (`add`), and writes the index and the names index once the build is done
    (`finish`). What it was handed is checked against the site as written; where they differ, or
    Pagefind refused anything, the site is indexed from its folder (`write_index`), as before."""

    def __init__(self) -> None:
        self._process: subprocess.Popen[bytes] | None = None
        self._reader: threading.Thread | None = None
        self._handed: dict[str, bytes] = {}  # site-relative path -> digest of the bytes handed over
        self._sent = 0  # the last message's id
        self._answers: dict[int, dict[str, object]] = {}  # by message id
        self._ended = False  # Pagefind's output closed
        self._arrived = threading.Condition()
        self._failed: str | None = None  # why what Pagefind was handed cannot make the index
        # The names index, written early by a Pagefind process of its own (`write_names_early`)
        self._names: tuple[StreamedIndex, tuple[NamedPage, ...], Path, int] | None = None

    def write_names_early(self, site_dir: Path, named: Iterable[NamedPage]) -> None:
        """The names index written now, into a fresh folder of `site_dir`, by a second Pagefind process,
        while MkDocs converts the pages (a core idles until pages are written); `finish` puts it in
        place when it is handed the same named pages, and writes it itself otherwise."""
        named = tuple(named)
        if not named or self._names is not None:
            return
        names = StreamedIndex()
        names._start()
        if names._failed is not None:  # `finish` writes it, and says why
            return
        folder = _fresh_folder(site_dir / NAMES_FOLDER)
        self._names = (names, named, folder, names._write_names(named, 0, folder))

    def add(self, dest_uri: str, page_html: str) -> None:
        """A page as MkDocs writes it to `dest_uri` (site-relative), handed to Pagefind."""
        if self._failed is not None:
            return
        if self._process is None:
            self._start()
        if dest_uri in self._handed:
            self._failed = f"{dest_uri} was written twice"
            return
        data = page_html.encode("utf-8", "xmlcharrefreplace")  # as MkDocs writes it
        self._handed[dest_uri] = _digest(data)
        self._send({"type": "AddFile", "index_id": 0, "file_path": dest_uri, "file_contents": data.decode("utf-8")})

    def finish(self, site_dir: Path, named: Iterable[NamedPage] = ()) -> tuple[float, bool]:
        """The index of the site as written in `site_dir`, and the names index, put in place; the
        seconds it took after the build, and whether the pages handed over made it (False: the site
        was indexed from its folder)."""
        started = time.perf_counter()
        named = tuple(named)
        try:
            if self._process is None and self._failed is None:
                self._start()
            reason = self._failed or self._write(site_dir, named)
        finally:
            self.close()
        if reason is None:
            return time.perf_counter() - started, True
        log.info("incident-kb: the search index is made from the site's folder (%s)", reason)
        return write_index(site_dir, named) + (time.perf_counter() - started), False

    def close(self) -> None:
        """Pagefind stopped (it exits when its input closes), the early names index's too."""
        early, self._names = self._names, None
        if early is not None:
            early[0].close()
            shutil.rmtree(early[2], ignore_errors=True)
        process, self._process = self._process, None
        if process is None:
            return
        try:
            if process.stdin is not None:
                process.stdin.close()
        except OSError:
            pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if self._reader is not None:
            self._reader.join(timeout=10)
            self._reader = None

    def _start(self) -> None:
        try:
            self._process = subprocess.Popen([str(_installed_program()), "--service"], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        except (SearchUnavailable, OSError) as exc:
            self._failed = f"Pagefind did not start: {exc}"
            return
        self._reader = threading.Thread(target=self._read_answers, name="incident-kb pagefind", daemon=True)
        self._reader.start()
        self._send({"type": "NewIndex", "config": {"exclude_selectors": [EXCLUDED]}})

    def _send(self, payload: dict[str, object]) -> int:
        """A message to Pagefind (base64 of its JSON, then a comma); its id."""
        self._sent += 1
        message = base64.b64encode(json.dumps({"message_id": self._sent, "payload": payload}).encode("utf-8"))
        try:
            assert self._process is not None and self._process.stdin is not None
            self._process.stdin.write(message + b",")
            self._process.stdin.flush()  # Pagefind indexes the page now, while MkDocs renders the next
        except (OSError, AssertionError):
            self._failed = self._failed or "Pagefind stopped"
        return self._sent

    def _read_answers(self) -> None:
        assert self._process is not None and self._process.stdout is not None
        output, pending = self._process.stdout.fileno(), b""
        while chunk := os.read(output, 65536):  # what has arrived, not a full buffer's worth
            *complete, pending = (pending + chunk).split(b",")
            answers = [json.loads(base64.b64decode(answer)) for answer in complete if answer]
            with self._arrived:
                self._answers.update((answer["message_id"], answer["payload"]) for answer in answers)
                self._arrived.notify_all()
        with self._arrived:
            self._ended = True
            self._arrived.notify_all()

    def _answer(self, message_id: int) -> dict[str, object] | None:
        """Pagefind's answer to a message (it answers in order); None when it stopped first."""
        with self._arrived:
            self._arrived.wait_for(lambda: message_id in self._answers or self._ended)
            return self._answers.get(message_id)

    def _changed_since_handed(self, site_dir: Path) -> str | None:
        for dest_uri, digest in self._handed.items():
            try:
                written = (site_dir / dest_uri).read_bytes()
            except OSError:
                return f"{dest_uri} was not written"
            if _digest(written) != digest:
                return f"{dest_uri} changed after it was written"
        return None

    def _write(self, site_dir: Path, named: tuple[NamedPage, ...]) -> str | None:
        """The rest of the site's pages handed over (those MkDocs did not write as pages: 404.html,
        HTML files of the docs folder), both indexes written into fresh folders and put in place;
        why not, if they could not be."""
        for path in sorted(site_dir.rglob("*.html")):
            dest_uri = path.relative_to(site_dir).as_posix()
            if dest_uri not in self._handed and dest_uri.split("/", 1)[0] not in (INDEX_FOLDER, NAMES_FOLDER):
                self.add(dest_uri, path.read_bytes().decode("utf-8", "replace"))
        index = _fresh_folder(site_dir / INDEX_FOLDER)
        early = self._early_names(site_dir, named)
        names = early if early is not None else _fresh_folder(site_dir / NAMES_FOLDER)
        try:
            written = self._send({"type": "WriteFiles", "index_id": 0, "output_path": str(index)})
            if named and early is None:
                self._send({"type": "NewIndex", "config": {"exclude_selectors": [EXCLUDED]}})
                written = self._write_names(named, 1, names)
            # The pages as written compared with what was handed over while Pagefind writes the index
            changed = self._changed_since_handed(site_dir)
            reason = self._why_not_written(written)  # waited for either way: nothing writes into a folder removed
            if changed is not None:
                return changed
            if reason is not None:
                return reason
            _put_in_place(index, site_dir / INDEX_FOLDER)
            if named:
                _put_in_place(names, site_dir / NAMES_FOLDER)
            else:  # no record yet: the search answers from the pages alone
                shutil.rmtree(site_dir / NAMES_FOLDER, ignore_errors=True)
            return None
        finally:
            shutil.rmtree(index, ignore_errors=True)
            shutil.rmtree(names, ignore_errors=True)

    def _write_names(self, named: tuple[NamedPage, ...], index_id: int, folder: Path) -> int:
        """The records' names handed to Pagefind's index `index_id`, written into `folder`: the id of
        the message that writes them."""
        for page in named:
            self._send({"type": "AddFile", "index_id": index_id, "file_path": page.dest_uri,
                        "file_contents": names_page(page)})
        return self._send({"type": "WriteFiles", "index_id": index_id, "output_path": str(folder)})

    def _why_not_written(self, written: int) -> str | None:
        """Why what message `written` wrote cannot be used (None: Pagefind answered it and every other
        message without an error)."""
        if self._failed is not None:
            return self._failed
        if self._answer(written) is None:
            return "Pagefind stopped"
        refused = next((answer for answer in self._answers.values() if answer.get("type") == "Error"), None)
        if refused is not None or len(self._answers) != self._sent:
            return f"Pagefind answered: {refused.get('message') if refused else 'not every message'}"
        return None

    def _early_names(self, site_dir: Path, named: tuple[NamedPage, ...]) -> Path | None:
        """The folder of the names index written early, once written, if it is the index of `named`."""
        early = self._names
        if early is None or early[1] != named or early[2].parent != site_dir:
            return None
        names, _, folder, written = early
        return folder if names._why_not_written(written) is None else None


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


class BackgroundIndex:
    """Under `mkdocs serve`, the index is written after each build without holding up the page the
    save reloads: one run at a time, and one more after it when a build finished meanwhile. A run
    starts once no build has finished for `quiet` seconds, and Pagefind runs at the lowest CPU
    priority: indexing the whole site takes both cores for many seconds, and without these the next
    save's rebuild and the browser's reload shared the cores with the last save's indexing."""

    def __init__(self, quiet: float = 2.0) -> None:
        self._lock = threading.Lock()
        self._wanted: tuple[Path, tuple[NamedPage, ...]] | None = None
        self._running = False
        self._quiet = quiet
        self._requested = 0.0  # when the last build asked (time.monotonic)
        self._closed = False  # stopped for good
        self._stop = threading.Event()  # the run under way is to end
        self._thread: threading.Thread | None = None

    def request(self, site_dir: Path, named: Iterable[NamedPage]) -> None:
        with self._lock:
            self._wanted = (site_dir, tuple(named))
            self._requested = time.monotonic()
            if self._running or self._closed:
                return
            self._running = True
            self._thread = threading.Thread(target=self._run, args=(self._stop,), name="incident-kb search index",
                                             daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """No run from now on, and the one under way ended: MkDocs removes the served site's folder
        when the server stops, and a Pagefind still writing into it made that removal fail."""
        with self._lock:
            self._closed = True
        self.interrupt()

    def interrupt(self) -> None:
        """The run under way ended and the request waiting dropped; a later request runs as before.
        Before the site's folder is emptied for a build from scratch: removing a folder Pagefind
        still wrote into failed ('Directory not empty'), and the build with it."""
        stop, thread = self._stop, self._thread
        stop.set()
        if thread is not None:
            thread.join(timeout=30)
        with self._lock:
            self._wanted = None
            self._stop = threading.Event()

    def _run(self, stop: threading.Event) -> None:
        while not stop.is_set():
            with self._lock:
                wait = self._requested + self._quiet - time.monotonic()
                wanted, self._wanted = (None, self._wanted) if wait > 0 else (self._wanted, None)
                if wait <= 0 and wanted is None:
                    self._running = False  # with the look above: a request made after it starts a run
                    return
            if wanted is None:
                stop.wait(wait)
                continue
            if not wanted[0].is_dir():  # the server stopped meanwhile and removed its site: nothing to index
                continue
            try:
                seconds = write_index(*wanted, low_priority=True, stop=stop)
            except Stopped:
                break
            except (SearchUnavailable, OSError) as exc:
                log.warning("incident-kb: %s", exc)
            else:
                log.info("incident-kb: search index updated in %.1f s", seconds)
        with self._lock:
            self._running = False
