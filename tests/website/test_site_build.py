"""The real `mkdocs build --strict`: what the generated site shows, that its links resolve, that it
loads nothing from another host, and that findings appear where they belong without failing it."""

from __future__ import annotations

import io
import json
import logging
import re
import shutil
import threading
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from incident_kb.check import pipeline
from incident_kb.findings import finding

from ..conftest import break_seed_story
from ..site_support import Site, build_site, copy_knowledge_base, search_pages

pytestmark = pytest.mark.slow  # real mkdocs builds: left out of `make test-fast`

KNOB = "knobs/sglang-sm120-mma-target-ctas"
INCIDENT = "incidents/multi-round-harness-hang"
DOC = "design/DSV4_PD_DEADLOCK_ISSUE"


def search_index(site: Site) -> list[dict]:
    """Material's own search index (a site built with the plugin's `search: material`)."""
    return json.loads((site.out / "search/search_index.json").read_text())["docs"]


def indexed_text(site: Site, page: str) -> str:
    """The text the site's search (Pagefind) holds of a page; fails when the page is not indexed."""
    pages = search_pages(site.out)
    assert f"/{page}/" in pages, f"/{page}/ is not in the search index: {sorted(pages)}"
    return pages[f"/{page}/"]["content"]


def local_links(site: Site) -> Iterator[tuple[Path, str]]:
    for page in site.out.rglob("*.html"):
        if page.name == "404.html":
            continue  # served from any folder, so it links from the site's root
        for target in re.findall(r'(?:href|src)="([^"]+)"', page.read_text(encoding="utf-8")):
            if not urlsplit(target).scheme and not target.startswith(("#", "//")):
                yield page, target


def test_every_local_link_and_image_resolves(seed_site):
    missing = []
    for page, target in local_links(seed_site):
        path = (page.parent / unquote(urlsplit(target).path)).resolve()
        if path.is_dir():
            path = path / "index.html"
        if not path.exists():
            missing.append(f"{page.relative_to(seed_site.out)} -> {target}")
    assert missing == []


def test_knob_page_shows_what_the_issue_promises(seed_site):
    html = seed_site.html(KNOB)
    assert '<span class="kb-badge kb-status-active">active</span>' in html
    assert "+12.8% output throughput at concurrency 64, +5.7% at 96" in html
    assert "Exonerated: the hypothesis was refuted." in html
    assert 'href="../../incidents/multi-round-harness-hang/#hypothesis-target-ctas-causes-hang"' in html
    assert 'src="../sglang-sm120-mma-target-ctas.gains.svg#only-light"' in html
    assert 'src="../sglang-sm120-mma-target-ctas.gains-dark.svg#only-dark"' in html
    assert (seed_site.out / "knobs/sglang-sm120-mma-target-ctas.gains-dark.svg").is_file()
    assert '<a href="../../tags/#tag:status-active" class="md-tag">status: active</a>' in html
    # The tags follow the page (in the theme override), not a row of chips above the title.
    article = html[html.index('<article class="md-content__inner md-typeset">'):]
    assert article.index("<h1") < article.index("Exonerated") < article.index('class="md-tags"')
    # This repository's mkdocs.yml names no repo_url: no header link to a placeholder, no edit links.
    assert "md-header__source" not in html and 'rel="edit"' not in html and "Edit this record" not in html


def test_with_a_repo_url_the_header_links_the_repository_and_records_link_their_yaml(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    config = root / "mkdocs.yml"
    config.write_text("repo_url: https://git.example.invalid/team/kb\nedit_uri: edit/main/docs/\n" + config.read_text())
    site = Site(root, tmp_path / "site")
    build_site(root, site.out)
    html = site.html(KNOB)
    assert 'href="https://git.example.invalid/team/kb"' in html  # the header's repository link
    # Material's edit button and the page's own link open the YAML record, not a docs page.
    assert html.count(
        'href="https://git.example.invalid/team/kb/edit/main/knobs/sglang-sm120-mma-target-ctas.yaml"') == 2


def test_incident_page_shows_suspected_vs_actual(seed_site):
    html = seed_site.html(INCIDENT)
    assert 'id="hypothesis-target-ctas-causes-hang"' in html and 'id="hypothesis-client-proxy-fault"' in html
    assert "Refuted: target-ctas-causes-hang" in html and "Confirmed (root cause): client-proxy-fault" in html
    assert "Reverted on correlation alone" in html


def test_record_pages_stay_out_of_the_navigation(seed_site):
    for page in ("", "knobs", "incidents", DOC):
        html = seed_site.html(page)
        navigation = html[:html.index('class="md-content"')]
        assert "sglang-sm120-mma-target-ctas/" not in navigation, page
        assert "multi-round-harness-hang/" not in navigation, page
    nav = seed_site.html("")
    assert 'href="knobs/"' in nav and 'href="incidents/"' in nav


def test_search_index_finds_the_knob_by_name_and_the_incident_by_its_hypotheses(seed_site):
    """The site's search is Pagefind's index: the knob's page, titled by its setting name, holds its
    id; the incident's holds its hypotheses; each page says its kind. The records' names have an
    index of their own, which the search box lists first (test_reading_search ranks them)."""
    pages = search_pages(seed_site.out)
    knob = pages[f"/{KNOB}/"]
    assert knob["meta"]["title"] == "SGLANG_SM120_MMA_TARGET_CTAS" and knob["filters"]["kind"] == ["knob"]
    assert "sglang-sm120-mma-target-ctas" in knob["content"]
    incident = pages[f"/{INCIDENT}/"]
    assert incident["filters"]["kind"] == ["incident"]
    assert "corrupts or drops requests" in incident["content"] and \
        "TARGET_CTAS=512 in the decode service" in incident["content"]
    assert pages[f"/{DOC}/"]["filters"]["kind"] == ["doc"]
    names = search_pages(seed_site.out, "pagefind-names")
    assert "TARGET_CTAS" in names[f"/{KNOB}/"]["content"] and \
        "multi-round-harness-hang" in names[f"/{INCIDENT}/"]["content"]
    # Material's own index is written empty: its search box is not on the pages, and nothing loads it.
    assert search_index(seed_site) == []
    assert 'data-md-component="search"' not in seed_site.html(KNOB)


def test_an_index_page_is_found_by_its_title_and_first_lines_not_by_its_rows(seed_site):
    pages = search_pages(seed_site.out)
    knobs = pages["/knobs/"]["content"]
    assert knobs.startswith("Knobs") and "SGLANG_SM120_MMA_TARGET_CTAS" not in knobs


def test_the_index_made_beside_the_build_is_pagefinds_index_of_the_site_as_written(tmp_path):
    """`mkdocs build` hands each page to Pagefind as it is written (indexed while MkDocs renders the next
    page): the log says so, and the index holds every page as Pagefind's own run over the built folder
    indexes it; the records' names are indexed too."""
    from incident_kb.website.mkdocs import site_search

    root = copy_knowledge_base(tmp_path / "kb")
    site = Site(root, tmp_path / "site")
    logged = build_site(root, site.out)
    assert "(Pagefind indexed them as they were written)" in logged
    streamed = search_pages(site.out)
    assert {"/", f"/{KNOB}/", f"/{INCIDENT}/", f"/{DOC}/"} <= streamed.keys()
    assert "TARGET_CTAS" in search_pages(site.out, "pagefind-names")[f"/{KNOB}/"]["content"]
    shutil.rmtree(site.out / "pagefind")
    site_search.write_index(site.out)  # Pagefind over the folder, as `mkdocs serve` runs it
    assert search_pages(site.out) == streamed
    assert not [path.name for path in site.out.iterdir() if path.name.startswith(".")]  # no fresh folder left


def test_the_names_index_written_early_is_the_one_written_after_the_pages(tmp_path, monkeypatch):
    """The records' names index is written while MkDocs converts the pages, by a Pagefind process of its
    own: the same index as the one the build's Pagefind writes after the pages."""
    from incident_kb.website.mkdocs import site_search

    root = copy_knowledge_base(tmp_path / "kb")
    early = Site(root, tmp_path / "early")
    build_site(root, early.out)
    monkeypatch.setattr(site_search.StreamedIndex, "write_names_early", lambda *_: None)
    late = Site(root, tmp_path / "late")
    build_site(root, late.out)
    names = search_pages(early.out, "pagefind-names")
    assert f"/{KNOB}/" in names and names == search_pages(late.out, "pagefind-names")


def test_under_serve_the_index_waits_until_the_saves_stop(seed_site, tmp_path, caplog):
    """`mkdocs serve` indexes the whole site after a build: not while saves keep coming (each build
    asks again), and once only for the builds that asked meanwhile."""
    from incident_kb.website.mkdocs import site_search

    site = tmp_path / "site"
    shutil.copytree(seed_site.out, site)
    shutil.rmtree(site / "pagefind")
    index = site_search.BackgroundIndex(quiet=1.0)
    caplog.set_level(logging.INFO)
    index.request(site, ())
    time.sleep(0.5)
    index.request(site, ())  # the next save's build: the quiet second starts again
    asked = time.monotonic()
    while not (site / "pagefind").exists() and time.monotonic() - asked < 60:
        time.sleep(0.01)
    assert time.monotonic() - asked >= 1.0
    while index._running and time.monotonic() - asked < 60:
        time.sleep(0.05)
    assert sum("search index updated" in r.getMessage() for r in caplog.records) == 1
    assert search_pages(site)


def test_under_serve_a_site_removed_before_its_index_is_left_alone(tmp_path, caplog):
    """The server stopped (and removed its site folder) while the index waited for the saves to stop:
    no Pagefind run, no warning on the way out."""
    from incident_kb.website.mkdocs import site_search

    site = tmp_path / "site"
    site.mkdir()
    index = site_search.BackgroundIndex(quiet=0.3)
    caplog.set_level(logging.INFO)
    index.request(site, ())
    shutil.rmtree(site)
    started = time.monotonic()
    while index._running and time.monotonic() - started < 30:
        time.sleep(0.05)
    assert not index._running
    assert not [r for r in caplog.records if "incident-kb" in r.getMessage()]


def test_under_serve_stopping_ends_the_index_under_way_and_any_to_come(tmp_path):
    """When the server stops, MkDocs removes the served site's folder: a Pagefind run still writing
    into it made that fail with a traceback. `stop` ends the run under way (nothing put in place, no
    folder of its own left) and starts none after."""
    from incident_kb.website.mkdocs import site_search

    site = tmp_path / "site"
    _many_pages(site)
    stop = threading.Event()
    stop.set()
    run = site_search._Run(site_search._installed_program(), site, site / "pagefind", site_search.EXCLUDED)
    started = time.monotonic()
    with pytest.raises(site_search.Stopped):
        run.wait(stop)
    assert time.monotonic() - started < 5 and run.process.returncode is not None
    assert not [path.name for path in site.iterdir() if not re.fullmatch(r"p\d+", path.name)]  # no index, no fresh one
    index = site_search.BackgroundIndex(quiet=0.3)
    index.request(site, ())
    index.stop()
    index.request(site, ())
    assert not index._running and not (site / "pagefind").exists()


def _many_pages(site: Path, count: int = 3000) -> None:
    """Enough pages that Pagefind is still at work a moment after it starts."""
    for n in range(count):
        (site / f"p{n}").mkdir(parents=True, exist_ok=True)
        (site / f"p{n}/index.html").write_text(f"<html><body><main><h1>Page {n}</h1><p>{n}</p></main></body></html>")


def _when_indexing(site: Path, timeout: float = 60) -> None:
    """Back once Pagefind writes into the site (an index folder not yet put in place)."""
    started = time.monotonic()
    while not any(p.name.startswith(".pagefind") for p in site.iterdir()):
        assert time.monotonic() - started < timeout, "Pagefind never started writing"
        time.sleep(0.005)


def test_a_stopped_index_ends_both_of_its_pagefind_runs(tmp_path):
    """The site's index and the names' index are two Pagefind runs: a stop ends both, and neither is
    left writing into the site (the second ran on, unwaited, when the first was stopped)."""
    from incident_kb.website.core.bundle import SearchKind
    from incident_kb.website.mkdocs import site_search

    site = tmp_path / "site"
    _many_pages(site)
    named = [site_search.NamedPage(f"p{n}/index.html", f"Page {n}", SearchKind.KNOB, (f"KNOB_{n}",))
             for n in range(3000)]
    stop = threading.Event()
    threading.Thread(target=lambda: (_when_indexing(site), stop.set()), daemon=True).start()
    with pytest.raises(site_search.Stopped):
        site_search.write_index(site, named, stop=stop)
    time.sleep(0.5)  # a run left going would write on meanwhile
    assert not [path.name for path in site.iterdir() if not re.fullmatch(r"p\d+", path.name)]


@pytest.mark.parametrize("live", [True, False], ids=["make-serve", "serve"])
def test_under_serve_a_build_from_scratch_ends_the_index_under_way_first(tmp_path, live):
    """A build that starts from an emptied site folder (plain `mkdocs serve`'s every build, or the
    live preview's after mkdocs.yml or kb's code changed) while the last build's index is written
    into it: the run is ended first (removing a folder Pagefind wrote into failed the build with
    'Directory not empty'), and the next build's index is written as before."""
    from incident_kb.website.mkdocs import preview, site_search
    from incident_kb.website.mkdocs.plugin import IncidentKbPlugin

    site = tmp_path / "site"
    _many_pages(site)
    plugin = IncidentKbPlugin()
    plugin.load_config({})
    plugin.on_startup(command="serve", dirty=live)
    plugin._background_index = site_search.BackgroundIndex(quiet=0)
    plugin._background_index.request(site, ())
    _when_indexing(site)
    if live:
        plugin._empty_site(preview, str(site))
    else:
        plugin._configure(_config_of(tmp_path, site))
        shutil.rmtree(site)  # as MkDocs' clean_directory, but failing on what it cannot remove
        site.mkdir()
    assert not list(site.iterdir())
    _many_pages(site, 5)
    plugin._background_index.request(site, ())
    started = time.monotonic()
    while not (site / "pagefind").exists() and time.monotonic() - started < 60:
        time.sleep(0.05)
    assert search_pages(site)  # the index is not closed: the next build's is written
    plugin.on_shutdown()


def _config_of(tmp_path: Path, site: Path) -> object:
    """A loaded mkdocs.yml of a site with no knowledge base of its own, for on_config."""
    from mkdocs.config import load_config

    (tmp_path / "docs").mkdir(exist_ok=True)
    (tmp_path / "mkdocs.yml").write_text(f"site_name: t\nsite_dir: {site}\nplugins: [incident-kb]\n")
    return load_config(str(tmp_path / "mkdocs.yml"))


@pytest.mark.skipif(not Path("/proc/self/stat").exists() or shutil.which("nice") is None,
                    reason="reads a process's priority from Linux's /proc")
def test_under_serve_pagefind_runs_at_the_lowest_priority(seed_site, tmp_path):
    """The background index's Pagefind yields the cores to the rebuild and the browser."""
    from incident_kb.website.mkdocs import site_search

    run = site_search._Run(site_search._installed_program(), seed_site.out, tmp_path / "index",
                           site_search.EXCLUDED, low_priority=True)
    fields: list[str] = []
    started = time.monotonic()
    while time.monotonic() - started < 30:  # until `nice` ran the program (a zombie keeps its name)
        name, _, rest = Path(f"/proc/{run.process.pid}/stat").read_text().rpartition(")")
        fields = rest.split()
        if not name.endswith("(nice"):
            break
        time.sleep(0.001)
    run.wait()
    assert int(fields[16]) == 19  # the nice value, for the program and the threads it starts
    assert (tmp_path / "index" / "pagefind-entry.json").exists()


def test_a_page_changed_after_it_was_written_is_indexed_as_the_site_holds_it(tmp_path):
    """A hook (or another plugin) that rewrites a built page after MkDocs wrote it: what Pagefind was
    handed during the build is not the site, so the index is made from the site's folder."""
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "rewrite.py").write_text(
        "from pathlib import Path\n\n\ndef on_post_build(config):\n"
        f"    page = Path(config.site_dir) / '{DOC}/index.html'\n"
        "    text = page.read_text(encoding='utf-8')\n"
        "    page.write_text(text.replace('data-pagefind-body>', 'data-pagefind-body><p>Rewrittenafterwards</p>', 1),"
        " encoding='utf-8')\n", encoding="utf-8")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text(encoding="utf-8") + "hooks:\n  - rewrite.py\n", encoding="utf-8")
    site = Site(root, tmp_path / "site")
    logged = build_site(root, site.out)
    assert f"the search index is made from the site's folder ({DOC}/index.html changed after it was written)" in logged
    assert "Rewrittenafterwards" in indexed_text(site, DOC)
    assert search_pages(site.out, "pagefind-names")[f"/{KNOB}/"]["meta"]["title"] == "SGLANG_SM120_MMA_TARGET_CTAS"


def test_with_search_material_the_site_keeps_materials_own_search(tmp_path):
    """`search: material` (the plugin's option): Material's search box and index, as before."""
    root = copy_knowledge_base(tmp_path / "kb")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("\n  - incident-kb\n", "\n  - incident-kb:\n      search: material\n"))
    site = Site(root, tmp_path / "site")
    build_site(root, site.out)
    docs = search_index(site)
    knob = [d for d in docs if d["location"] == f"{KNOB}/"]
    assert knob and "SGLANG_SM120_MMA_TARGET_CTAS" in knob[0]["title"] and knob[0].get("boost") == 2
    assert "sglang-sm120-mma-target-ctas" in " ".join(d["text"] for d in docs if d["location"].startswith(KNOB))
    incident_text = " ".join(d["text"] for d in docs if d["location"].startswith(f"{INCIDENT}/"))
    assert "corrupts or drops requests" in incident_text and "TARGET_CTAS=512 in the decode service" in incident_text
    assert 'data-md-component="search"' in site.html(KNOB) and "kb-search.js" not in site.html(KNOB)
    assert not (site.out / "pagefind").exists()


def test_the_site_loads_nothing_from_another_host(seed_site):
    external = r'(?:https?:)?//'
    for page in seed_site.out.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(rf'<(?:script|img|iframe|source|video|audio)\b[^>]*\ssrc="{external}', html), page
        for tag in re.findall(rf'<link\b[^>]*\shref="{external}[^>]*>', html):
            assert not re.search(r'rel="[^"]*(stylesheet|preconnect|preload|icon|prefetch)', tag), (page, tag)
    for sheet in seed_site.out.rglob("*.css"):
        assert not re.search(rf"url\((['\"]?){external}", sheet.read_text(encoding="utf-8")), sheet
        assert "@import" not in sheet.read_text(encoding="utf-8"), sheet
    assert (seed_site.out / "assets/incident-kb/kb.js").is_file()


def test_findings_do_not_fail_the_build_and_show_on_the_record_page(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    break_seed_story(root)
    (root / "incidents/half-written.yaml").write_text("id: half-written\ntitle: [unclosed\n")
    (root / "pyproject.toml").write_text("[tool.incident-kb]\nreclaimable-knbo = 'error'\n")
    site = Site(root, tmp_path / "site")
    build_site(root, site.out)
    knob = site.html(KNOB)
    assert 'class="admonition danger kb-finding" data-search-exclude' in knob
    assert "is still reverted, but hypothesis" in knob
    home = site.html("")
    assert "kb check reports 3 errors and 0 warnings," in home  # summarised by code; every one on the findings page
    findings = site.html("findings")
    assert "<code>incidents/half-written.yaml:3</code>" in findings and "<code>pyproject.toml:2</code>" in findings
    indexed = indexed_text(site, KNOB)
    # the box is kept out of search
    assert "is still reverted" not in indexed and "Target thread-block (CTA) count" in indexed


def test_a_finding_about_a_hand_written_page_is_a_banner_on_top_of_it(tmp_path, monkeypatch):
    """Any rule's finding whose path is a page under docs/ shows up, by path alone: a rule that a
    later change adds (stale docs) needs no work here. The rule below stands in for it; the build is
    real and runs in this process so it can see the rule."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    def stale_doc(catalog, root, settings):  # a rule: catalog, root, RuleSettings
        yield finding("missing-path", f"docs/{DOC}.md", 12, 1, None, "this page still blames TARGET_CTAS (stale)")

    monkeypatch.setattr(pipeline, "RULES", (*pipeline.RULES, stale_doc))
    monkeypatch.setenv("DISABLE_MKDOCS_2_WARNING", "true")
    root = copy_knowledge_base(tmp_path / "kb")
    site = Site(root, tmp_path / "site")
    build(load_config(str(root / "mkdocs.yml"), site_dir=str(site.out), strict=True))
    html = site.html(DOC)
    article = html[html.index('<article class="md-content__inner md-typeset">'):]
    banner = article.index('<div class="admonition danger kb-finding kb-banner" data-search-exclude>')
    assert banner < article.index("<h1")  # on top of the page
    assert "this page still blames TARGET_CTAS (stale)" in article
    indexed = indexed_text(site, DOC)
    assert "still blames" not in indexed and "That revert was a hypothesis test" in indexed
    assert f"docs/{DOC}.md:12" in site.html("findings") and f"docs/{DOC}.md:12" in site.html("")  # the code's first


def test_raw_html_in_records_is_never_markup_in_the_built_site(hostile_site):
    for path in (*hostile_site.out.rglob("*.html"), *hostile_site.out.rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"<script>alert|<img src=.?x.? onerror|<svg onload|<iframe|javascript:alert", text), path
    assert "evil.example/pixel.png" not in hostile_site.html("incidents/injected")
    assert "&lt;script&gt;alert('summary')&lt;/script&gt;" in hostile_site.html("incidents/injected")


def test_plugin_options_turn_off_the_home_page_tags_and_charts(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    config = root / "mkdocs.yml"
    text = config.read_text().replace("\n  - incident-kb\n", "\n  - incident-kb:\n      home: false\n"
                                                          "      tags: false\n      charts: false\n")
    config.write_text(text.replace("  - Tags: tags.md\n", ""))
    (root / "docs/index.md").write_text("# Our own home page\n")
    build_site(root, tmp_path / "site")
    assert "Our own home page" in (tmp_path / "site/index.html").read_text()
    assert "kb check reports" in (tmp_path / "site/needs-action/index.html").read_text()  # what needs action, still
    assert not (tmp_path / "site/tags").exists()
    assert not list((tmp_path / "site/knobs").glob("*.svg"))
    assert (tmp_path / "site/knobs/sglang-sm120-mma-target-ctas/index.html").is_file()


def test_a_wrong_plugin_option_is_one_clear_configuration_error(tmp_path):
    import subprocess
    import sys

    from ..site_support import MKDOCS_ENV

    root = copy_knowledge_base(tmp_path / "kb")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("\n  - incident-kb\n", "\n  - incident-kb:\n      charts: maybe\n"))
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "-f", str(config), "-d", str(tmp_path / "site")],
                          cwd=root, env=MKDOCS_ENV, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 1
    assert "Plugin 'incident-kb' option 'charts': Expected type: <class 'bool'> but received: <class 'str'>" in \
        proc.stderr
    assert "Traceback" not in proc.stderr


def test_charts_in_the_built_site_are_drawn_not_taken_from_a_cache(hostile_site):
    charts = sorted(hostile_site.out.rglob("*.svg"))
    assert {p.name for p in charts} >= {"injected-knob.gains.svg", "sglang-sm120-mma-target-ctas.gains-dark.svg"}
    for path in charts:
        text = path.read_text(encoding="utf-8")
        assert "alert(\"cache\")" not in text and "<script" not in text, path
        elements = {element.tag.rpartition("}")[2] for element in ElementTree.fromstring(text.encode()).iter()}
        assert elements <= {"svg", "title", "desc", "g", "rect", "text", "line", "circle", "polyline", "path"}, path


def test_without_pagefind_the_site_falls_back_to_materials_search_and_says_so(tmp_path, monkeypatch):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    from incident_kb.website.mkdocs import site_search

    monkeypatch.setattr(site_search, "pagefind_program", lambda: None)
    monkeypatch.setenv("DISABLE_MKDOCS_2_WARNING", "true")
    root = copy_knowledge_base(tmp_path / "kb")
    site = Site(root, tmp_path / "site")
    with pytest.raises(Exception, match="Aborted with 1 warnings in strict mode"):
        build(load_config(str(root / "mkdocs.yml"), site_dir=str(site.out), strict=True))
    logged = io.StringIO()
    handler = logging.StreamHandler(logged)
    logging.getLogger("mkdocs.plugins.incident-kb").addHandler(handler)
    try:
        build(load_config(str(root / "mkdocs.yml"), site_dir=str(site.out), strict=False))
    finally:
        logging.getLogger("mkdocs.plugins.incident-kb").removeHandler(handler)
    assert "Pagefind (the pagefind-bin package) is not installed" in logged.getvalue()
    assert 'data-md-component="search"' in site.html(KNOB)
    assert any(d["location"] == f"{KNOB}/" for d in search_index(site))


_TAGS_EMPTY = "the tags page (tags.md) will list no page"


@pytest.mark.parametrize("plugins, why", [
    ("  - search\n  - incident-kb\n", "Material's tags plugin is not in mkdocs.yml's plugins"),
    ("  - tags:\n      enabled: false\n  - incident-kb\n", "disabled (`enabled: false`)"),
    ("  - tags:\n      listings: false\n  - incident-kb\n", "renders no listings"),
    ("  - tags:\n      export_only: true\n  - incident-kb\n", "renders no listings"),
    ("  - tags:\n      listings_directive: our/tags\n  - incident-kb\n", "marked `<!-- our/tags -->`"),
    ("  - tags:\n      tags_name_property: labels\n  - incident-kb\n", "reads a page's tags from `labels`"),
    ("  - tags:\n      filters:\n        exclude: [tags.md]\n  - incident-kb\n", "`filters` leave out tags.md"),
    ("  - tags:\n      filters:\n        include: ['design/*', tags.md]\n  - incident-kb\n",
     "`filters` leave out every record page"),
    # two instances, neither of which lists the records there
    ("  - tags:\n      enabled: false\n  - material/tags:\n      listings: false\n  - incident-kb\n",
     "disabled (`enabled: false`); Material's tags plugin renders no listings"),
])
def test_a_tags_page_that_would_list_nothing_is_a_warning_strict_counts(tmp_path, plugins, why):
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    root = copy_knowledge_base(tmp_path / "kb")
    config = root / "mkdocs.yml"
    text = config.read_text()
    start, end = text.index("\nplugins:\n") + len("\nplugins:\n"), text.index("\nvalidation:")
    config.write_text(text[:start] + plugins + text[end:])
    logged = io.StringIO()
    handler = logging.StreamHandler(logged)
    logging.getLogger("mkdocs").addHandler(handler)
    try:
        loaded = load_config(str(config), site_dir=str(tmp_path / "site"), strict=True)
        loaded.plugins.on_startup(command="build", dirty=False)
        with pytest.raises(Abort, match="Aborted with 1 warnings in strict mode"):
            build(loaded)
        loaded.plugins.on_shutdown()
    finally:
        logging.getLogger("mkdocs").removeHandler(handler)
    warnings = [line for line in logged.getvalue().splitlines() if _TAGS_EMPTY in line]
    assert len(warnings) == 1, logged.getvalue()
    assert why in warnings[0]
    assert "`tags: false`" in warnings[0]


@pytest.mark.parametrize("plugins, listed", [
    ("  - search\n  - tags\n  - incident-kb\n", True),
    ("  - search\n  - incident-kb\n  - material/tags\n", True),  # after it, by its full name
    ("  - tags:\n      listings_directive: MATERIAL/TAGS\n      tags: false\n  - incident-kb\n", True),  # as it matches
    ("  - tags:\n      enabled: false\n  - material/tags:\n      filters:\n        exclude: ['design/*']\n"
     "  - incident-kb\n", True),  # one of two instances lists them
    ("  - search\n  - incident-kb:\n      tags: false\n", False),  # no tags page: nothing to say
])
def test_a_tags_page_that_lists_the_records_or_none_at_all_is_no_warning(tmp_path, plugins, listed):
    root = copy_knowledge_base(tmp_path / "kb")
    config = root / "mkdocs.yml"
    text = config.read_text()
    start, end = text.index("\nplugins:\n") + len("\nplugins:\n"), text.index("\nvalidation:")
    text = text[:start] + plugins + text[end:]
    config.write_text(text if listed else text.replace("  - Tags: tags.md\n", ""))
    log = build_site(root, tmp_path / "site")  # strict: any warning fails it
    assert _TAGS_EMPTY not in log
    assert (tmp_path / "site/tags/index.html").exists() is listed
    if listed:
        assert 'href="../knobs/sglang-sm120-mma-target-ctas/"' in (tmp_path / "site/tags/index.html").read_text()
