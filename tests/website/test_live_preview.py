"""`make serve`'s live preview (`mkdocs serve --dirty`, which rebuilds only what a save touched)
serves, after every edit, the site a fresh server of the same knowledge base serves: the saved
record's page, the indexes and home page, added and deleted records, the tags page and the
search index (no entry lost, none twice)."""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ..conftest import REPO, SEED_INCIDENT, SEED_KNOB, edit, interruptible
from ..gitrepo import GitRepo
from ..site_support import MKDOCS_ENV, copy_knowledge_base

pytestmark = pytest.mark.slow  # real `mkdocs serve` processes: left out of `make test-fast`

FINDINGS = "findings/"  # every finding, where the home page summarises them by code
KNOB_URL = "knobs/sglang-sm120-mma-target-ctas/"
NEW_KNOB = """\
id: fresh-knob
name: FRESH_BATCH_SIZE
summary: A knob recorded while the preview runs.
value: 32
status: active
tags: [freshly-tagged]
history:
  - date: 2026-11-08
    status: active
"""
NEW_INCIDENT = """\
id: fresh-incident
title: Fresh stall under load
status: open
started: 2026-11-08
hypotheses:
  - id: fresh-batch
    statement: FRESH_BATCH_SIZE is too large.
    status: open
    suspect: {knob: fresh-knob}
"""
_LIVERELOAD = re.compile(r"<script>\s*var livereload = function.*?</script>", re.DOTALL)


def serve_arguments(port: int) -> list[str]:
    """`mkdocs serve`'s arguments as the Makefile's `serve` recipe gives them."""
    recipe = re.search(r"^serve:.*\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(), re.MULTILINE)
    assert recipe, "no serve recipe in the Makefile"
    line = re.search(r"\$\(BIN\)/mkdocs (serve.*)", recipe.group(1))
    assert line, "the Makefile's serve recipe does not run $(BIN)/mkdocs serve"
    return line.group(1).replace("$(ADDR)", f"127.0.0.1:{port}").split()


class Server:
    def __init__(self, root: Path, log: Path) -> None:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        self.base = f"http://127.0.0.1:{self.port}/"
        self.log = log
        with log.open("w") as out:
            self.process = subprocess.Popen([sys.executable, "-m", "mkdocs", *serve_arguments(self.port)], cwd=root,
                                            env=MKDOCS_ENV, stdout=out, stderr=subprocess.STDOUT,
                                            preexec_fn=interruptible)

    def get(self, path: str) -> tuple[int, str]:
        try:
            with urllib.request.urlopen(self.base + path, timeout=60) as response:
                return response.status, response.read().decode("utf-8")
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode("utf-8", errors="replace")

    def wait_for(self, path: str, ready: Callable[[int, str], bool], what: str, timeout: float = 90) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                status, text = self.get(path)
                if ready(status, text):
                    return text
            except OSError:  # not answering yet, or slow to (a read timed out under load): ask again
                pass
            assert self.process.poll() is None, f"mkdocs serve stopped:\n{self.log.read_text()}"
            time.sleep(0.3)
        raise AssertionError(f"{path}: {what} within {timeout} s\n{self.log.read_text()[-3000:]}")

    def shows(self, path: str, text: str) -> str:
        return self.wait_for(path, lambda status, page: status == 200 and text in page, f"{text!r} not shown")

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)  # as Ctrl-C stops `make serve`: the plugin cleans up
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def site(self) -> dict[str, object]:
        """Every page the sitemap lists, the charts they show, the 404 page, the sitemap, the search
        index (also as the bytes served) and the tags plugin's export; with this server's address
        and live-reload script taken out."""
        sitemap = self.get("sitemap.xml")[1]
        pages = sorted(url.removeprefix(self.base) for url in re.findall(r"<loc>([^<]*)</loc>", sitemap))
        site: dict[str, object] = {"sitemap.xml": self._normalized(sitemap),
                                   "404": self._normalized(self.get("nowhere/")[1])}
        for page in pages:
            status, html = self.get(page)
            site[page] = (status, self._normalized(html))
            for image in re.findall(r'<img[^>]* src="([^"]+\.svg)"', html):
                target = urllib.parse.urljoin(self.base + page, image).removeprefix(self.base)
                site[target] = self.get(target)
        site["search"] = json.loads(self.get("search/search_index.json")[1])
        site["search/search_index.json"] = self.get("search/search_index.json")
        site["tags.json"] = self.get("tags.json")
        return site

    def _normalized(self, html: str) -> str:
        return _LIVERELOAD.sub("", html).replace(self.base, "http://preview/")


@contextmanager
def serving(root: Path, log: Path) -> Iterator[Server]:
    server = Server(root, log)
    try:
        yield server
    finally:
        server.stop()


def _search_entries(site: dict[str, object]) -> list[dict[str, object]]:
    search = site["search"]
    assert isinstance(search, dict)
    return search["docs"]


def _assert_same_site(live: Server, root: Path, tmp_path: Path, step: str) -> None:
    seen = live.site()
    locations = [entry["location"] for entry in _search_entries(seen)]
    assert len(locations) == len(set(locations)), f"{step}: search entries twice: {sorted(locations)}"
    with serving(root, tmp_path / "fresh.log") as fresh:
        fresh.wait_for("", lambda status, _: status == 200, "the fresh server's first build")
        expected = fresh.site()
    assert seen.keys() == expected.keys(), f"{step}: pages {sorted(seen.keys() ^ expected.keys())}"
    for key in expected:
        assert seen[key] == expected[key], f"{step}: {key} differs from a fresh server's"


def test_the_live_preview_serves_what_a_fresh_server_serves_after_every_edit(tmp_path, git_env):
    root = copy_knowledge_base(tmp_path / "kb")
    repo = GitRepo(root)
    repo.commit("the seed story", when="2026-11-08T12:00:00Z")
    with serving(root, tmp_path / "live.log") as live:
        live.shows(KNOB_URL, "Target thread-block (CTA) count")

        edit(root / SEED_KNOB, "summary: Target thread-block", "summary: Freshly edited target thread-block")
        live.shows(KNOB_URL, "Freshly edited target thread-block")
        _assert_same_site(live, root, tmp_path, "a record's summary saved")

        # A tag added: the tags page lists the knob under it, beside its other tags' listings.
        edit(root / SEED_KNOB, "tags: [blackwell,", "tags: [freshly-added-tag, blackwell,")
        live.shows("tags/", "freshly-added-tag")
        live.shows(KNOB_URL, "freshly-added-tag")
        _assert_same_site(live, root, tmp_path, "a tag added")
        edit(root / SEED_KNOB, "tags: [freshly-added-tag, blackwell,", "tags: [blackwell,")
        live.wait_for("tags/", lambda status, page: status == 200 and "freshly-added-tag" not in page,
                      "the removed tag still listed")
        _assert_same_site(live, root, tmp_path, "a tag removed")

        edit(root / SEED_KNOB, "value: 512\n", "value: 384\n")  # a material change: indexes and home
        live.shows("knobs/", "<code>384</code>")
        live.shows(KNOB_URL, "not committed yet: value 512 -&gt; 384")  # git's word, after the record's own date

        (root / "knobs/fresh-knob.yaml").write_text(NEW_KNOB)
        (root / "incidents/fresh-incident.yaml").write_text(NEW_INCIDENT)
        live.shows("knobs/fresh-knob/", "A knob recorded while the preview runs.")
        live.shows("knobs/fresh-knob/", "Fresh stall under load")
        live.shows("knobs/", "FRESH")
        live.shows("tags/", "freshly-tagged")
        _assert_same_site(live, root, tmp_path, "records added")

        (root / "knobs/fresh-knob.yaml").unlink()
        live.wait_for("knobs/fresh-knob/", lambda status, _: status == 404, "the deleted record's page still served")
        page = live.wait_for("incidents/fresh-incident/", lambda status, page: "fresh-knob.md" not in page
                             and "fresh-knob/" not in page, "a link to the deleted record")
        assert "fresh-knob" in page  # named, no longer linked
        _assert_same_site(live, root, tmp_path, "a record deleted")

        edit(root / "docs/design/DSV4_DECODE_PERF_PLAN.md", "\n\n", "\n\nA paragraph saved while serving.\n\n")
        live.shows("design/DSV4_DECODE_PERF_PLAN/", "A paragraph saved while serving.")
        edit(root / SEED_INCIDENT, "title: Multi-round agent harness hangs", "title: Multi-round agent harness stalls")
        live.shows(KNOB_URL, "Multi-round agent harness stalls")
        repo.commit("edits while serving", when="2026-11-09T12:00:00Z")
        # A commit alone is seen: git's view (HEAD, the branch, the index) is an input of the check.
        live.shows(KNOB_URL, "committed")
        live.wait_for(KNOB_URL, lambda status, page: "not committed yet" not in page, "the commit not shown")
        _assert_same_site(live, root, tmp_path, "a doc saved, an incident retitled, a commit")


def _not_shown(live: Server, path: str, text: str) -> None:
    live.wait_for(path, lambda status, page: status == 200 and text not in page, f"{text!r} still shown")


def test_every_input_of_the_check_is_watched(tmp_path, git_env):
    """Not only the record folders as they were when serving started: a doc outside docs/ that a
    record lists, a deploy file, pyproject.toml, a record folder deleted and created again, and a
    commit each start a rebuild by themselves, with no unrelated save. (Each finding is on the
    findings page, which the home page summarises by code since issue 24; git's word on a record,
    "not committed yet", is on its page.)"""
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "notes").mkdir()
    (root / "notes/runbook.md").write_text("# Runbook\n")
    edit(root / SEED_KNOB, "  - docs/design/DSV4_PD_DEADLOCK_ISSUE.md\n",
         "  - docs/design/DSV4_PD_DEADLOCK_ISSUE.md\n  - notes/runbook.md\n")
    repo = GitRepo(root)
    repo.commit("the seed story", when="2026-11-06T12:00:00Z")
    edit(root / SEED_KNOB, "value: 512\n", "value: 384\n")
    repo.commit("384", when="2026-11-07T12:00:00Z")
    with serving(root, tmp_path / "live.log") as live:
        live.shows(FINDINGS, "notes/runbook.md:1")  # stale: the value changed after its last commit
        live.shows(FINDINGS, "deploy/decode.sh:8")  # drift: it still sets 512

        edit(root / "notes/runbook.md", "# Runbook", "# Runbook, reviewed for 384")
        _not_shown(live, FINDINGS, "notes/runbook.md:1")
        (root / "pyproject.toml").write_text('[tool.incident-kb.severity]\nknob-drift = "off"\n')
        _not_shown(live, FINDINGS, "deploy/decode.sh:8")
        (root / "pyproject.toml").write_text("[tool.incident-kb]\n")
        live.shows(FINDINGS, "deploy/decode.sh:8")
        edit(root / "deploy/decode.sh", "TARGET_CTAS=512", "TARGET_CTAS=384")
        _not_shown(live, FINDINGS, "deploy/decode.sh:8")

        (root / "incidents").rename(tmp_path / "incidents-away")
        live.wait_for("incidents/multi-round-harness-hang/", lambda status, _: status == 404,
                      "the incident still served")
        (root / "incidents").mkdir()  # a new folder: the old one's watch ended with it
        shutil.copy(tmp_path / "incidents-away/multi-round-harness-hang.yaml", root / "incidents")
        live.shows("incidents/multi-round-harness-hang/", "Multi-round agent harness hangs")
        edit(root / SEED_INCIDENT, "title: Multi-round agent harness hangs", "title: Multi-round agent harness freezes")
        live.shows("incidents/multi-round-harness-hang/", "Multi-round agent harness freezes")
        (root / "incidents/team").mkdir()  # a subfolder created while serving
        (root / "incidents/team/fresh-incident.yaml").write_text(
            NEW_INCIDENT.replace("suspect: {knob: fresh-knob}", "suspect: {knob: sglang-sm120-mma-target-ctas}"))
        live.shows("incidents/fresh-incident/", "Fresh stall under load")
        _assert_same_site(live, root, tmp_path, "inputs outside the record folders changed")

        live.shows("incidents/fresh-incident/", "not committed yet")  # a record git does not know yet
        repo.commit("reviewed while serving", when="2026-11-08T10:00:00Z")
        _not_shown(live, "incidents/fresh-incident/", "not committed yet")
        _assert_same_site(live, root, tmp_path, "a commit")


def test_one_save_is_one_rebuild(tmp_path, git_env):
    """The save is seen at once (the system's notifications) and by MkDocs' polling, which must not
    start a second rebuild for it."""
    root = copy_knowledge_base(tmp_path / "kb")
    GitRepo(root).commit("the seed story", when="2026-11-08T12:00:00Z")
    with serving(root, tmp_path / "live.log") as live:
        live.shows(KNOB_URL, "Target thread-block (CTA) count")
        time.sleep(1)
        builds = sum(_builds(live))  # MkDocs' whole build, or one without it (a record's summary: without)
        edit(root / SEED_KNOB, "summary: Target thread-block", "summary: Freshly edited target thread-block")
        live.shows(KNOB_URL, "Freshly edited target thread-block")
        time.sleep(2)  # the polling watcher has polled four times since
        assert sum(_builds(live)) == builds + 1, live.log.read_text()[-3000:]


QUICK = "built without MkDocs' whole build"
WHOLE = "the save takes MkDocs' whole build"


def _builds(live: Server) -> tuple[int, int]:
    """MkDocs' whole builds so far, and saves built without one."""
    log = live.log.read_text()
    return log.count("Building documentation"), log.count(QUICK)


def test_a_record_save_is_built_without_mkdocs_whole_build_and_equals_a_fresh_build(tmp_path, git_env):
    """A save that changes only generated pages' content (a knob's value, a status history entry, an
    incident's hypothesis) is built from the last build's pages, nav and theme without MkDocs' build,
    and serves what a fresh server serves; a retitled incident (every page's nav and the tags show
    titles) takes MkDocs' whole build. (The knob's deploy file left out: a finding filed under a file
    other than a record's is one a re-check cannot follow, and the whole check runs.)"""
    root = copy_knowledge_base(tmp_path / "kb")
    edit(root / SEED_KNOB, "applies_to:\n  - path: deploy/decode.sh\n", "")
    GitRepo(root).commit("the seed story", when="2026-11-08T12:00:00Z")
    with serving(root, tmp_path / "live.log") as live:
        live.shows(KNOB_URL, "Target thread-block (CTA) count")
        time.sleep(1)
        quick_edits = [
            (SEED_KNOB, "value: 512\n", "value: 384\n", "knobs/", "<code>384</code>"),
            (SEED_KNOB, "Deployed in the decode service script after benchmarking",
             "Deployed by hand after benchmarking", KNOB_URL, "Deployed by hand after benchmarking"),
            (SEED_INCIDENT, "One of the user's client-side proxies corrupts",
             "One of the user's client-side proxies mangles", "incidents/multi-round-harness-hang/",
             "client-side proxies mangles"),
        ]
        for path, old, new, url, shown in quick_edits:
            whole, quick = _builds(live)
            edit(root / path, old, new)
            live.shows(url, shown)
            live.wait_for(url, lambda *_: _builds(live)[1] > quick, "the quick build's log line")  # noqa: B023
            assert _builds(live) == (whole, quick + 1), live.log.read_text()[-3000:]
            # checked in memory: only the edited record and what it reaches (check.recheck)
            assert live.log.read_text().count("re-checked with what they reach") == quick + 1
            assert f"{path} re-checked with what they reach" in live.log.read_text()
            _assert_same_site(live, root, tmp_path, f"{path}: {new!r}")

        whole, quick = _builds(live)
        edit(root / SEED_INCIDENT, "title: Multi-round agent harness hangs", "title: Multi-round agent harness stalls")
        live.shows(KNOB_URL, "Multi-round agent harness stalls")
        assert _builds(live) == (whole + 1, quick), live.log.read_text()[-3000:]
        assert WHOLE in live.log.read_text()
        _assert_same_site(live, root, tmp_path, "an incident retitled")

        # A doc retitled: the nav every page shows changed, so every page is written again from what the
        # preview kept of it, the pages built without MkDocs' build included.
        edit(root / "docs/design/DSV4_DECODE_PERF_PLAN.md", "# DSV4 decode performance plan",
             "# DSV4 decode performance roadmap")
        live.shows(KNOB_URL, "DSV4 decode performance roadmap")
        _assert_same_site(live, root, tmp_path, "a doc retitled")
