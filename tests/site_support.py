"""Building and serving real sites for the tests: the repository's mkdocs.yml pointed at a copied
knowledge base, a real `mkdocs build --strict`, and a local HTTP server on 127.0.0.1."""

from __future__ import annotations

import contextlib
import functools
import gzip
import http.server
import io
import json
import logging
import os
import re
import shutil
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from .conftest import SEED, SEED_INCIDENT, SEED_KNOB, copy_seed, edit

MKDOCS_ENV = {**os.environ, "DISABLE_MKDOCS_2_WARNING": "true", "NO_MKDOCS_2_WARNING": "1"}


@dataclass(frozen=True)
class Site:
    root: Path  # the knowledge base
    out: Path  # the built site

    def html(self, page: str) -> str:
        return (self.out / page / "index.html").read_text(encoding="utf-8") if page else \
            (self.out / "index.html").read_text(encoding="utf-8")


def search_pages(site_dir: Path, index: str = "pagefind") -> dict[str, dict[str, Any]]:
    """What the site's Pagefind index holds of each page, by its address ('/knobs/x/'): its indexed
    text ('content'), its title and its kind (Pagefind's fragments: gzip'd JSON after a marker)."""
    pages: dict[str, dict[str, Any]] = {}
    fragments = sorted((site_dir / index / "fragment").glob("*.pf_fragment"))
    assert fragments, f"no Pagefind index in {site_dir / index}"
    for fragment in fragments:
        data = gzip.decompress(fragment.read_bytes())
        assert data.startswith(b"pagefind_dcd"), f"{fragment} is not in the format this helper knows"
        page = json.loads(data[len(b"pagefind_dcd"):])
        pages[page["url"]] = page
    return pages


def copy_knowledge_base(root: Path) -> Path:
    copy_seed(root)
    write_site_config(root)
    return root


def write_site_config(root: Path) -> None:
    """The seed's mkdocs.yml (this repository's, as it was copied): it names the installed plugin,
    as an adopter's does."""
    text = (SEED / "mkdocs.yml").read_text(encoding="utf-8")
    assert "\n  - incident-kb\n" in text, "mkdocs.yml no longer uses the incident-kb plugin"
    (root / "mkdocs.yml").write_text(text, encoding="utf-8")


def build_site(root: Path, out: Path) -> str:
    """A real `mkdocs build --strict`, in this process: MkDocs' own build on the loaded config, as
    its command runs it (a subprocess would prove nothing more; the command itself is run by
    test_site_build's option test, test_adoption and test_properdocs). Fails the test with MkDocs'
    log when the build fails; returns the log."""
    failure, logged = try_build_site(root, out)
    if failure is not None:
        pytest.fail(f"mkdocs build failed: {failure}\n{logged}")
    return logged


def try_build_site(root: Path, out: Path, strict: bool = True,
                   config_file: str = "mkdocs.yml") -> tuple[str | None, str]:
    """`build_site` that returns (why the build failed or None, MkDocs' log)."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import MkDocsException

    logged = io.StringIO()
    handler = logging.StreamHandler(logged)
    handler.setLevel(logging.INFO)
    logger = logging.getLogger("mkdocs")
    logger.addHandler(handler)
    level = logger.level
    # As the mkdocs command sets it; through setLevel, which also forgets what each logger below
    # was found to let through (assigning .level kept kb's INFO lines out of the log for good once
    # kb had logged at the default WARNING level, say from a background index's thread).
    logger.setLevel(logging.INFO)
    try:
        config = load_config(str(root / config_file), site_dir=str(out), strict=strict)
        config.plugins.on_startup(command="build", dirty=False)
        try:
            build(config)
        finally:
            config.plugins.on_shutdown()
    except MkDocsException as exc:
        return str(exc) or type(exc).__name__, logged.getvalue()
    finally:
        logger.removeHandler(handler)
        logger.setLevel(level)
    return None, logged.getvalue()


def add_hostile_records(root: Path) -> None:
    """Records whose text tries to run script in a reader's browser."""
    (root / "incidents/injected.yaml").write_text('''\
id: injected
title: "Injected </title><script>alert('title')</script> <img src=x onerror=alert('title-img')>"
status: open
started: 2026-11-08
severity: "<b>sev</b><script>alert('severity')</script>"
summary: |
  Injectedsummary <script>alert('summary')</script> and <img src=x onerror=alert('summary-img')>
  and [click](javascript:alert('link')) <iframe src="https://evil.example/"></iframe>
  ![remote](https://evil.example/pixel.png)
symptoms: ["<svg onload=alert('symptom')>", "a | b `c|d` *e*"]
hypotheses:
  - id: injected-hypothesis
    statement: "<script>alert('hypothesis')</script> the TARGET_CTAS knob again"
    status: open
    suspect: {knob: injected-knob}
    evidence:
      - kind: correlation
        stance: for
        text: "<img src=x onerror=alert('evidence')>"
timeline:
  - at: 2026-11-08
    event: "</td></tr></table><script>alert('timeline')</script>"
''')
    (root / "knobs/injected-knob.yaml").write_text('''\
id: injected-knob
name: "INJECTED_<script>alert('name')</script>"
summary: "<img src=x onerror=alert('knob-summary')> Injectedknob"
value: "<script>alert('value')</script>"
status: proposed
component: "<script>alert('component')</script>"
tags: ["<img src=x onerror=alert('tag')>"]
scope: {hardware: "<script>alert('hardware')</script>"}
description: "<script>alert('description')</script>"
measurements:
  - metric: "<script>alert('metric')</script>"
    conditions: {"<b>c</b>": "<script>alert('condition')</script>"}
    delta_pct: 3
history:
  - date: 2026-11-08
    status: proposed
    note: "<script>alert('note')</script>"
''')
    # A poisoned chart cache (issue 11, item 5): the site must never publish what is found there.
    cache = root / ".cache/incident-kb/charts"
    cache.mkdir(parents=True, exist_ok=True)
    for name in ("injected-knob.gains.svg", "sglang-sm120-mma-target-ctas.gains.svg", "0" * 32 + ".svg"):
        (cache / name).write_text('<svg xmlns="http://www.w3.org/2000/svg"><script>alert("cache")</script></svg>')


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               add: Callable[[Path], None] = lambda root: None) -> Site:
    """The seed, with what `add` writes into it, built once for the whole run: under xdist the first
    worker that needs the site builds it into the run's shared temporary folder, and the others wait for
    it there (every test only reads these sites; each worker building its own cost a build a worker)."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        base = tmp_path_factory.mktemp(name)
    else:
        base = tmp_path_factory.getbasetemp().parent / name  # the run's folder, above each worker's
    site = Site(base / "kb", base / "site")
    with _locked(base.with_name(name + ".lock")):
        if not (base / ".built").exists():
            shutil.rmtree(base, ignore_errors=True)  # a build that failed in another worker: again here
            add(copy_knowledge_base(site.root))
            build_site(site.root, site.out)
            (base / ".built").touch()
    return site


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    import fcntl

    with open(path, "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)  # released when the file closes
        yield


@pytest.fixture(scope="session")
def seed_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The repository's own knowledge base, built once for the run."""
    return built_once(tmp_path_factory, "seed-site")


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The seed plus records whose text tries to inject script, built once for the run."""
    return built_once(tmp_path_factory, "hostile-site", add_hostile_records)


EXTRA = 129  # with the seed's knob: 130, three pages of rows
RECLAIMABLE = 13  # of them, reverted under the seed incident's refuted hypothesis (more than the home page lists)


def extra_knob(i: int) -> str:
    reverted = i < RECLAIMABLE
    history = "  - date: 2026-11-01\n    status: active\n"
    if reverted:
        history += ("  - date: 2026-11-04\n    status: reverted\n    incident: multi-round-harness-hang\n"
                    "    hypothesis: target-ctas-causes-hang\n")
    return (f"id: extra-{i:03d}\nname: SGLANG_EXTRA_SETTING_{i:03d}\nsummary: Extra setting number {i}.\n"
            f"value: {1000 + i}\ndefault: {i}\nstatus: {'reverted' if reverted else 'active'}\n"
            f"component: {'decode' if i % 2 else 'prefill'}\n"
            f"measurements:\n  - metric: output throughput\n    delta_pct: {i / 10:.1f}\n    date: 2026-10-30\n"
            f"history:\n{history}")


# Past the knobs index's one page of rows (overview_pages.INDEX_FILE_ROWS): with the seed's knob, two
# pages, the second holding the seed's knob (its name sorts after the extra knobs') and the largest gains.
LONG_EXTRA = 540


def add_extra_knobs(root: Path, count: int) -> None:
    for i in range(count):
        (root / f"knobs/extra-{i:03d}.yaml").write_text(extra_knob(i))


def add_extra_incidents(root: Path, count: int, *, findings: bool = False) -> None:
    """`count` incidents, a day apart from 2024-01-01 on (so newest first is the reverse of their
    numbers); `findings`: each resolved without a root cause, one error each, else mitigated (none)."""
    for i in range(count):
        day = date(2024, 1, 1) + timedelta(days=i)
        status = f"resolved\nresolved: {day}" if findings else "mitigated"
        (root / f"incidents/extra-incident-{i:03d}.yaml").write_text(
            f"id: extra-incident-{i:03d}\ntitle: Extra incident number {i}\nstatus: {status}\nstarted: {day}\n"
            f"summary: Extra incident {i}.\n")


_TABLE_ROW = re.compile(r"^\| .* \|$", re.M)


def table_rows(page: str) -> list[str]:
    """The rows of an index page's markdown table, its header left out."""
    return _TABLE_ROW.findall(page)[1:]


def json_rows(text: str) -> list[list[str]]:
    """Every row of an index's rows file (links.index_rows_file), each cell's HTML, shared cells filled in."""
    data = json.loads(text)
    return [[data["shared"][column][cell] if isinstance(cell, int) else cell for column, cell in enumerate(row)]
            for row in data["rows"]]


def markdown_cells(columns: list[str], rows: list[str]) -> list[list[str]]:
    """Each cell's HTML as markdown makes the table of `columns` and the markdown `rows`."""
    import markdown  # type: ignore[import-untyped]

    table = "| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|\n"
    made = markdown.markdown(table + "\n".join(rows), extensions=["tables", "attr_list"])
    return [re.findall(r"<td>(.*?)</td>", row, re.S) for row in re.findall(r"<tr>(.*?)</tr>", made, re.S)[1:]]


@pytest.fixture(scope="session")
def long_index_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The seed plus LONG_EXTRA knobs: a knobs index in pages of rows, with its rows as JSON; built once."""
    return built_once(tmp_path_factory, "long-index-site", lambda root: add_extra_knobs(root, LONG_EXTRA))


@pytest.fixture(scope="session")
def many_knobs_site(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """The seed plus EXTRA knobs (three pages of an index), RECLAIMABLE of them reverted under the
    seed incident's refuted hypothesis, with gains that grow with their number; built once."""
    return built_once(tmp_path_factory, "many-knobs-site", lambda root: add_extra_knobs(root, EXTRA))


SERVE_POLL = 0.01  # seconds


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the base class's name
        pass


class QuietServer(http.server.ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser that leaves a page drops the responses still under way (a broken pipe, a reset): no
        # error of the site's; the base class printed each one's traceback into the run's output.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@contextlib.contextmanager
def serve(folder: Path) -> Iterator[str]:
    """Serve a built site on 127.0.0.1 (a free port) for the duration of the block."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = QuietServer(("127.0.0.1", 0), handler)
    # shutdown() waits for the loop's next look at its flag: every half second by default, which was
    # half a second at the end of each of the hundred-odd served sites of a run.
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": SERVE_POLL}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def zensical_repository(root: Path, kb: Callable[..., Any]) -> Path:
    """A repository set up by `kb init --site zensical` (run through `kb`, the in-process runner),
    with the seed story's records, a doc that went stale (it says TARGET_CTAS=512, and the knob's
    value changed in a later commit) and a repo_url; committed."""
    from .gitrepo import GitRepo

    repo = GitRepo(root)
    assert kb("init", root, "--site", "zensical").code == 0
    for rel in (SEED_KNOB, SEED_INCIDENT):
        (root / rel).write_text((SEED / rel).read_text())
    (root / "docs/runbook.md").write_text("---\ntitle: Decode runbook\n---\n"
                                          "# Decode runbook\n\nWe run TARGET_CTAS=512.\n")
    config = root / "zensical.toml"
    config.write_text(config.read_text().replace('# repo_url = "https://github.com/<owner>/<repository>"',
                                                 'repo_url = "https://git.example.invalid/team/kb"')
                      .replace('# edit_uri = "edit/main/docs/"', 'edit_uri = "edit/main/docs/"'))
    repo.commit("start", "2026-11-01T00:00:00Z")
    edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: 1024\n")
    repo.commit("tune", "2026-11-09T00:00:00Z")
    return root
