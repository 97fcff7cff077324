"""Benchmark: reading the site at 2,000 and 10,000 records in headless Chromium (issue 24's goals),
with the search options measured side by side in one run.

    .venv/bin/python bench/reading.py [--sizes 2000,10000] [--work /tmp/kb-reading] [--rebuild]
                                      [--variants NAME,...] [--skip-pages] [--no-material]

For each size (3/5 knobs, 2/5 incidents, bench/site_build.py's generator; one knob, the probe, gets
a short name and a gain no other has) the knowledge base is generated under --work and its site is
built twice, as configured (the plugin's search, on Pagefind) and with `search: material` (Material's
own search, for the comparison); later runs reuse them (--rebuild builds again after a change to the
generator: the sites print the commit they were built from). Each site is served on 127.0.0.1 and
opened in Debian's Chromium; a request that leaves 127.0.0.1 fails the run (search works offline).

Search, one row per option, each in a fresh browser (cold cache):
  ready      after a click on a result, until the search on the new page answers (a new page's time
             origin is the navigation's start; with instant navigation the click's time is used)
  first      a query typed right after the home page's load: from the last key until the first
             result shows; (load) the same from the page's load event
  later      another query once search is ready, from the last key until its results show
  kept       the query is still in the search box on the page the click opened
  tab MB     PSS of the browser's renderer processes after the searches (the tab and its workers)
  dl MB      bytes of search files (Material's index, Pagefind's chunks) the two pages downloaded
  ranks      where the right page is listed for the probe knob's id, setting name, short name and
             gain number, and an incident's id and root-cause words ("-": not in the first 10)
Options: the site as built; Material's own search, with what Material offers without code of ours
(instant navigation, which keeps one index for the session; an index slimmed to titles and each
page's first text; one shard per record kind, measured as the knobs' shard).

Pages (the site as built): the home page's size and height; the knobs index's rows, its HTML's size
(and the JSON of every row that a long index's script reads), first paint,
the time its controls are ready (from the navigation's start), sort and filter times (from the
click or change until the next frame), heights at 1280 and 390 px, and the tab's memory at 390 px.
Goals at 10,000 records are printed beside each figure; only same-run figures compare.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import site_build  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                "--disable-background-networking", "--disable-component-update", "--disable-sync"]


# -- the knowledge bases and their sites ------------------------------------------------------------

def split(size: int) -> tuple[int, int, int]:
    """Knobs, incidents and docs for a size: 6,000 knobs and 4,000 incidents at 10,000."""
    return size * 3 // 5, size - size * 3 // 5, 60 if size <= 2000 else 150


MATERIAL_CONFIG = "mkdocs-material-search.yml"  # the same site with Material's own search, to compare


def prepare(work: Path, size: int, rebuild: bool, search: str) -> tuple[Path, float | None]:
    """The built site for a size (built now if missing or --rebuild) with the plugin's search as
    configured ("kb") or with Material's ("material"), and the build's seconds (None: reused)."""
    root = work / f"kb-{size}"
    site = work / (f"site-{size}" if search == "kb" else f"site-{size}-material")
    if rebuild:  # a link left by hand (to another build) goes, not what it points to
        site.unlink() if site.is_symlink() else shutil.rmtree(site, ignore_errors=True)
    if (site / "index.html").is_file():
        return site, None
    if not root.is_dir():
        site_build.generate(root, *split(size))
        mark_probe(root)
    config = root / "mkdocs.yml"
    if search == "material":
        text = config.read_text()
        assert "\n  - incident-kb\n" in text, "the generated mkdocs.yml no longer names the incident-kb plugin"
        config = root / MATERIAL_CONFIG
        config.write_text(text.replace("\n  - incident-kb\n", "\n  - incident-kb:\n      search: material\n"))
    shutil.rmtree(root / ".cache", ignore_errors=True)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(config), "-d", str(site)],
                   check=True, cwd=root, env=site_build.ENV)
    seconds = time.perf_counter() - started
    (site / ".bench-built-from").write_text(_code_stamp())
    return site, seconds


def _code_stamp() -> str:
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True,
                          text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "generator"], cwd=REPO, capture_output=True,
                           text=True).stdout
    return head + (" (with uncommitted changes)" if dirty.strip() else "")


PROBE_GAIN = "27.3"  # outside the generator's range (-3 to 15): only the probe knob has it
PROBE_ALIAS = "PROBE_SHORT_NAME"  # the probe knob's short name (an alias: short names come from aliases)


def probe_knob(root: Path) -> Path:
    knobs = sorted((root / "knobs").glob("*.yaml"))
    return knobs[len(knobs) // 3]


def mark_probe(root: Path) -> None:
    """The probe knob gets a gain and a short name no other knob has, so that searching for either
    has one right answer."""
    path = probe_knob(root)
    path.write_text(path.read_text().replace(
        "measurements:\n", "measurements:\n  - metric: output throughput\n    conditions: {concurrency: 200}\n"
        f"    delta_pct: {PROBE_GAIN}\n    date: 2026-10-02\n", 1)
        .replace("\ntags: ", f"\naliases: [{PROBE_ALIAS}]\ntags: ", 1))


# -- serving, with the variants' rewrites -----------------------------------------------------------

@dataclass
class Variant:
    name: str
    site: Path
    rewrite_html: Callable[[str], str] | None = None  # applied to every page served
    files: dict[str, bytes | Path] = field(default_factory=dict)  # URL path -> replacement body or folder
    search: str = "material"  # which search the pages carry: "material" or "kb" (the plugin's)
    sitemap: bool = False  # serve a sitemap of every page, as a site with site_url has (instant navigation needs it)


def _handler(variant: Variant) -> type[http.server.SimpleHTTPRequestHandler]:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, directory=str(variant.site), **kwargs)

        def log_message(self, *args) -> None:  # noqa: ANN002
            pass

        def do_GET(self) -> None:  # noqa: N802
            path = self.path.split("?", 1)[0].split("#", 1)[0]
            if variant.sitemap and path == "/sitemap.xml":
                return self._send(_sitemap(variant.site, f"http://{self.headers['Host']}/"), "application/xml")
            for prefix, body in variant.files.items():
                if isinstance(body, bytes) and path == prefix:
                    return self._send(body, self.guess_type(path))
                if isinstance(body, Path) and path.startswith(prefix):
                    file = body / path[len(prefix):]
                    if file.is_file():
                        return self._send(file.read_bytes(), self.guess_type(str(file)))
            if variant.rewrite_html and (path.endswith("/") or path.endswith(".html")):
                file = variant.site / path.lstrip("/") / ("index.html" if path.endswith("/") else "")
                if file.is_file():
                    return self._send(variant.rewrite_html(file.read_text(encoding="utf-8")).encode(), "text/html")
            return super().do_GET()

        def _send(self, body: bytes, kind: str) -> None:
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

    return Handler


@functools.cache
def _pages(site: Path) -> tuple[str, ...]:
    return tuple(sorted(str(p.parent.relative_to(site)) + "/" for p in site.rglob("index.html")))


def _sitemap(site: Path, base: str) -> bytes:
    urls = "".join(f"<url><loc>{base}{'' if page == './' else page}</loc></url>" for page in _pages(site))
    return (f'<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">'
            f"{urls}</urlset>").encode()


@contextlib.contextmanager
def serve(variant: Variant) -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _handler(variant))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# -- the variants -----------------------------------------------------------------------------------

def with_feature(feature: str) -> Callable[[str], str]:
    def rewrite(html: str) -> str:
        return html.replace('"features": [', f'"features": ["{feature}", ', 1)
    return rewrite


def slim_index(index: dict) -> dict:
    """Material's index cut to what people search for: each page's title and its first section's
    text (its summary), with boilerplate sentences and tables left out."""
    slim, seen = [], set()
    for doc in index["docs"]:
        page = doc["location"].split("#", 1)[0]
        if page in seen:
            continue
        seen.add(page)
        text = re.sub(r"<table>.*?</table>", " ", doc.get("text", ""), flags=re.S)
        slim.append({**doc, "location": page, "text": text[:400]})
    return {**index, "docs": slim}


def kind_shard(index: dict, prefix: str) -> dict:
    return {**index, "docs": [d for d in index["docs"] if d["location"].startswith(prefix)]}


def variants(site: Path, material_site: Path | None) -> list[Variant]:
    """The site as built, and Material's options on the same site built with Material's search."""
    found = [Variant("as built (kb search, Pagefind)", site, search="kb")]
    if material_site is None:
        return found
    index = json.loads((material_site / "search" / "search_index.json").read_text(encoding="utf-8"))
    instant = with_feature("navigation.instant")
    return found + [
        Variant("Material", material_site),
        Variant("Material + instant navigation", material_site, instant, sitemap=True),
        Variant("Material + instant + slim index", material_site, instant,
                {"/search/search_index.json": json.dumps(slim_index(index)).encode()}, sitemap=True),
        Variant("Material + instant, knobs' shard", material_site, instant,
                {"/search/search_index.json": json.dumps(kind_shard(index, "knobs/")).encode()}, sitemap=True),
    ]


# -- the browser ------------------------------------------------------------------------------------

class Browser:
    """One Chromium per measurement (a cold cache, and its tab's processes found by a marker)."""

    def __init__(self, playwright) -> None:
        self.marker = f"--kb-bench-{uuid.uuid4().hex}"
        self.browser = playwright.chromium.launch(executable_path=CHROMIUM, args=[*BROWSER_ARGS, self.marker],
                                                  headless=True)
        self.foreign: list[str] = []

    def page(self, width: int = 1280, height: int = 900):
        context = self.browser.new_context(viewport={"width": width, "height": height})
        context.route(re.compile(r"^(?!http://127\.0\.0\.1[:/]).*"), self._block)
        return context.new_page()

    def _block(self, route) -> None:
        self.foreign.append(route.request.url)
        route.abort()

    def tab_megabytes(self) -> float:
        """PSS of the browser's renderer processes (the tab, its workers run in it)."""
        root = next(pid for pid in _pids() if self.marker in _cmdline(pid))
        total = 0
        for pid in _descendants(root):
            if "--type=renderer" in _cmdline(pid):
                with contextlib.suppress(OSError):
                    rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
                    total += int(re.search(r"^Pss:\s+(\d+) kB", rollup, re.M).group(1))
        return total / 1024

    def close(self) -> None:
        self.browser.close()


def _pids() -> list[int]:
    return [int(p.name) for p in Path("/proc").iterdir() if p.name.isdigit()]


def _cmdline(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for pid in _pids():
        with contextlib.suppress(OSError, IndexError, ValueError):
            stat = Path(f"/proc/{pid}/stat").read_text()
            children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


# What each search UI looks like to the bench: how to open it, its results, whether it is ready.
UI = {
    "material": {"open": "/", "box": ".md-search__input", "results": ".md-search-result__item > a",
                 "ready": "(() => { const m = document.querySelector('.md-search-result__meta');"
                          " return !!m && !/Initializing/.test(m.textContent); })()"},
    "kb": {"open": "/", "box": ".kb-search__input", "results": ".kb-search__result > a",
           "ready": "(() => { const b = document.querySelector('.kb-search');"
                    " return !!b && b.dataset.state === 'ready'; })()"},
}

RECORD_TIME = """() => { window.__kbKeys = []; document.addEventListener('keydown',
  () => window.__kbKeys.push(performance.now()), {capture: true}); }"""


def _until(page, condition: str, timeout: float = 120_000) -> float:
    """performance.now() when `condition` (a JS expression) first held, polled every 10 ms."""
    page.wait_for_function(f"() => {{ if ({condition}) {{ window.__kbAt = window.__kbAt || performance.now();"
                           " return true; } return false; }", polling=10, timeout=timeout)
    at = page.evaluate("window.__kbAt")
    page.evaluate("window.__kbAt = undefined")
    return at


def _clear(page, ui: dict) -> None:
    """Opens the search box (as a reader would) and empties it with the keyboard."""
    box = page.locator(ui["box"]).first
    if ui["open"] and not box.is_visible():
        page.keyboard.press(ui["open"])
    box.click() if box.is_visible() else box.focus()
    page.keyboard.press("Control+A")
    page.keyboard.press("Backspace")


def _type(page, ui: dict, query: str) -> float:
    """Types a query into the emptied search box, key by key; the last key's time."""
    _clear(page, ui)
    page.evaluate(RECORD_TIME)
    page.keyboard.type(query)
    return page.evaluate("window.__kbKeys[window.__kbKeys.length - 1]")


def _first_result(ui: dict) -> str:
    return f"document.querySelector({json.dumps(ui['results'])})"


def _fresh_result(page, ui: dict, query: str) -> float:
    """Types a query whose results differ from its prefix's: all keys but the last, then (once the
    prefix's results have settled) the last; the time from that key until new results show."""
    _type(page, ui, query[:-1])
    _settled(page, ui)
    page.evaluate(f"window.__kbOld = {_first_result(ui)}")
    page.evaluate(RECORD_TIME)
    page.keyboard.type(query[-1])
    last_key = page.evaluate("window.__kbKeys[window.__kbKeys.length - 1]")
    return _until(page, f"{_first_result(ui)} && {_first_result(ui)} !== window.__kbOld") - last_key


def _result_paths(page, ui: dict) -> list[str]:
    return page.evaluate(f"Array.from(document.querySelectorAll({json.dumps(ui['results'])}))"
                         ".map(a => new URL(a.href, location.href).pathname)")


def _settled(page, ui: dict, quiet: float = 1.5, limit: float = 60) -> list[str]:
    """The results once they have not changed for `quiet` seconds (searches answer in steps)."""
    start, last, since = time.monotonic(), None, time.monotonic()
    while time.monotonic() - start < limit:
        now = (_result_paths(page, ui), page.evaluate(f"({_first_result(ui)} || {{}}).outerHTML || ''"))
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet:
            break
        page.wait_for_timeout(50)
    return last[0] if last else []


def _ranks(page, ui: dict, queries: list[tuple[str, str]]) -> list[str]:
    ranks = []
    for query, path in queries:
        _type(page, ui, query)
        paths = _settled(page, ui)
        ranks.append(str(paths.index(path) + 1) if path in paths[:10] else "-")
    return ranks


def _search_bytes(page) -> int:
    return page.evaluate("performance.getEntriesByType('resource').filter(e => /\\/(search|pagefind)\\//.test(e.name))"
                         ".reduce((n, e) => n + (e.encodedBodySize || 0), 0)")


@dataclass
class SearchFigures:
    ready_ms: float
    first_ms: float
    first_from_load_ms: float
    later_ms: float
    kept: bool
    tab_mb: float
    search_mb: float
    ranks: list[str]


def measure_search(playwright, variant: Variant, probes: dict[str, str],
                   queries: list[tuple[str, str]]) -> SearchFigures:
    ui = UI[variant.search]
    browser = Browser(playwright)
    try:
        with serve(variant) as base:
            page = browser.page()
            page.goto(base, wait_until="load")
            loaded = page.evaluate("performance.getEntriesByType('navigation')[0].loadEventEnd")
            last_key = _type(page, ui, probes["first query"])
            found = _until(page, _first_result(ui))
            first, first_from_load = found - last_key, found - loaded
            _until(page, ui["ready"])
            later = _fresh_result(page, ui, probes["later query"])
            _settled(page, ui)
            downloaded = _search_bytes(page)
            # To the result by a click, as a reader goes: the search there, ready and still holding
            # the query?
            page.evaluate("window.__kbClick = performance.now()")
            target = page.locator(ui["results"]).evaluate_all(
                f"""links => {{ const a = links.find(a => new URL(a.href, location.href).pathname ===
                   {json.dumps(probes["later path"])}) || links[0]; a.click(); return new URL(a.href).pathname; }}""")
            page.wait_for_url(lambda url: urlsplit(url).path == target, wait_until="commit")
            page.wait_for_load_state("domcontentloaded")
            same_document = page.evaluate("window.__kbClick !== undefined")
            ready_at = _until(page, ui["ready"])
            ready = ready_at - page.evaluate("window.__kbClick") if same_document else ready_at
            box = page.locator(ui["box"]).first
            kept = (box.input_value() if box.count() else "") == probes["later query"]
            downloaded += _search_bytes(page)
            ranks = _ranks(page, ui, queries)
            tab = browser.tab_megabytes()
            page.context.close()
    finally:
        browser.close()
    if browser.foreign:
        raise SystemExit(f"{variant.name}: requests left 127.0.0.1: {browser.foreign[:3]}")
    return SearchFigures(ready, first, first_from_load, later, kept, tab, downloaded / 2**20, ranks)


@dataclass
class PageFigures:
    home_kb: float
    home_height: int
    home_height_phone: int
    rows: int
    index_kb: float  # the knobs index's HTML
    rows_file_kb: float  # the JSON of every row kb.js reads beside a long index (0: none, the page holds them all)
    first_paint_ms: float
    tools_ms: float
    sort_ms: float
    filter_ms: float
    height: int
    height_phone: int
    tab_phone_mb: float


TIME_NEXT_FRAME = """kind => { window.__kbTook = undefined; document.addEventListener(kind, () => {
  const start = performance.now();
  requestAnimationFrame(() => setTimeout(() => { window.__kbTook = performance.now() - start; }, 0));
}, {capture: true, once: true}); }"""


def _timed(page, kind: str, act: Callable[[], None]) -> float:
    page.evaluate(TIME_NEXT_FRAME, kind)
    act()
    page.wait_for_function("() => window.__kbTook !== undefined", polling=10)
    return page.evaluate("window.__kbTook")


def measure_pages(playwright, variant: Variant) -> PageFigures:
    with serve(variant) as base:
        browser = Browser(playwright)
        try:
            page = browser.page()
            page.goto(base, wait_until="load")
            home_bytes = page.evaluate("performance.getEntriesByType('navigation')[0].decodedBodySize")
            home_height = page.evaluate("document.documentElement.scrollHeight")
            page.goto(base + "knobs/", wait_until="load")
            paint = page.evaluate("(performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || -1")
            tools = _until(page, "!!document.querySelector('.kb-table-tools[data-ready]')")
            index_bytes = page.evaluate("performance.getEntriesByType('navigation')[0].decodedBodySize")
            rows_bytes = page.evaluate("performance.getEntriesByType('resource').filter(e => /\\/knobs\\/index\\.json$/"
                                       ".test(e.name)).reduce((n, e) => n + e.decodedBodySize, 0)")
            rows = page.evaluate("document.querySelectorAll('article table tbody tr').length")
            total = page.evaluate("(() => { const c = document.querySelector('.kb-count');"
                                  " const m = c && /of ([\\d,]+)/.exec(c.textContent);"
                                  " return m ? parseInt(m[1].replace(/,/g, '')) : null; })()")
            sort = _timed(page, "click",
                          lambda: page.locator("article table th button", has_text="Best gain").first.click())
            status = page.locator('select[data-column="Status"]').first
            filter_ = _timed(page, "change", lambda: status.select_option("reverted"))
            height = page.evaluate("document.documentElement.scrollHeight")
            page.context.close()
        finally:
            browser.close()
        browser = Browser(playwright)
        try:
            page = browser.page(390, 844)
            page.goto(base, wait_until="load")
            home_phone = page.evaluate("document.documentElement.scrollHeight")
            page.goto(base + "knobs/", wait_until="load")
            _until(page, "!!document.querySelector('.kb-table-tools[data-ready]')")
            phone = page.evaluate("document.documentElement.scrollHeight")
            phone_mb = browser.tab_megabytes()
            page.context.close()
        finally:
            browser.close()
    return PageFigures(home_bytes / 1024, home_height, home_phone, total or rows, index_bytes / 1024, rows_bytes / 1024,
                       paint, tools, sort, filter_,
                       height, phone, phone_mb)


# -- the probes: records of the generated knowledge base and what a reader would type -----------------

def probes_for(root: Path) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Queries whose right answer is known: a knob found by its id, setting name, short name and a
    gain's number, an incident by its id and its root cause's words."""
    incidents = sorted((root / "incidents").glob("*.yaml"))
    text = probe_knob(root).read_text()
    knob_id = re.search(r"^id: (\S+)", text, re.M).group(1)
    name = re.search(r"^name: (\S+)", text, re.M).group(1)
    short = re.search(r"^aliases: \[(\S+)\]", text, re.M)
    gain = re.search(rf"delta_pct: ({re.escape(PROBE_GAIN)})", text)
    incident = incidents[len(incidents) // 2]
    itext = incident.read_text()
    incident_id = re.search(r"^id: (\S+)", itext, re.M).group(1)
    cause = re.search(r"^root_cause:\n  hypothesis: \S+\n  summary: (.+)$", itext, re.M).group(1)
    cause_words = " ".join(cause.rstrip(".").split()[:4])
    knob_path, incident_path = f"/knobs/{knob_id}/", f"/incidents/{incident_id}/"
    queries = [(knob_id, knob_path), (name, knob_path)]
    if short:
        queries.append((short.group(1), knob_path))
    if gain:
        queries.append((gain.group(1).lstrip("-"), knob_path))
    queries += [(incident_id, incident_path), (cause_words, incident_path)]
    probes = {"first query": name, "first path": knob_path, "later query": incident_id, "later path": incident_path}
    return probes, queries


# -- the run ------------------------------------------------------------------------------------------

def _megabytes(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 2**20 if folder.is_dir() else 0.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", default="2000,10000")
    parser.add_argument("--work", type=Path, default=Path("/tmp/kb-reading"))
    parser.add_argument("--rebuild", action="store_true", help="generate and build the sites again")
    parser.add_argument("--variants", default="", help="only the search options whose names contain one of these")
    parser.add_argument("--skip-pages", action="store_true")
    parser.add_argument("--no-material", action="store_true", help="measure the site as built only (one build a size)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    args.work.mkdir(parents=True, exist_ok=True)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start", flush=True)
    with sync_playwright() as playwright:
        for size in map(int, args.sizes.split(",")):
            site, seconds = prepare(args.work, size, args.rebuild, "kb")
            material_site, material_seconds = (None, None) if args.no_material else \
                prepare(args.work, size, args.rebuild, "material")
            knobs, incidents, docs = split(size)
            built = (site / ".bench-built-from").read_text()
            print(f"\n== {size} records ({knobs} knobs, {incidents} incidents, {docs} docs): site {site}, built from "
                  f"{built}" + (f" in {seconds:.0f} s" if seconds else " (reused)")
                  + (f"; with Material's search in {material_seconds:.0f} s" if material_seconds else ""), flush=True)
            for folder in filter(None, (site, material_site)):
                print(f"  {folder.name}: search files {_megabytes(folder / 'search'):.1f} MB (Material), "
                      f"{_megabytes(folder / 'pagefind'):.1f} MB (Pagefind)")
            probes, queries = probes_for(args.work / f"kb-{size}")
            print(f"queries: {'; '.join(q for q, _ in queries)}")
            print(f"{'search':<36} {'ready':>7} {'first':>7} {'(load)':>7} {'later':>7} {'kept':>5} "
                  f"{'tab MB':>7} {'dl MB':>6}  ranks")
            wanted = [w for w in args.variants.split(",") if w]
            for variant in variants(site, material_site):
                if wanted and not any(w.lower() in variant.name.lower() for w in wanted):
                    continue
                f = measure_search(playwright, variant, probes, queries)
                print(f"{variant.name:<36} {f.ready_ms:>5.0f}ms {f.first_ms:>5.0f}ms {f.first_from_load_ms:>5.0f}ms "
                      f"{f.later_ms:>5.0f}ms {'yes' if f.kept else 'no':>5} {f.tab_mb:>7.0f} {f.search_mb:>6.1f}  "
                      f"{' '.join(f.ranks)}", flush=True)
            if size >= 10000:
                print("goals: ready < 1000 ms, first < 300 ms, kept, tab < 300 MB, not the whole index on every page, "
                      "every rank 1")
            if not args.skip_pages:
                p = measure_pages(playwright, Variant("as built", site))
                print(f"home page: {p.home_kb:.0f} KB, {p.home_height:,} px tall at 1280, "
                      f"{p.home_height_phone:,} px at 390   (goal: < 150 KB)")
                print(f"knobs index: {p.rows:,} rows, {p.index_kb:,.0f} KB of HTML"
                      + (f" + {p.rows_file_kb:,.0f} KB of rows as JSON" if p.rows_file_kb else "")
                      + f"; first paint {p.first_paint_ms:.0f} ms, tools ready "
                      f"{p.tools_ms:.0f} ms; sort {p.sort_ms:.0f} ms, filter {p.filter_ms:.0f} ms; "
                      f"{p.height:,} px at 1280, {p.height_phone:,} px at 390 with {p.tab_phone_mb:.0f} MB"
                      "   (goals: HTML < 500 KB, paint < 1000 ms, sort and filter < 100 ms)", flush=True)
    print(f"\nload average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
