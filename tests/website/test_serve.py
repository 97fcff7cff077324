"""`mkdocs serve` rebuilds the generated pages when a record changes (knobs/ and incidents/ are
watched, and the gen script sees fresh records on every build)."""

from __future__ import annotations

import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from ..conftest import SEED_KNOB, edit, interruptible
from ..org_support import write_org, write_payments, write_platform
from ..site_support import MKDOCS_ENV, copy_knowledge_base

pytestmark = pytest.mark.slow  # a real `mkdocs serve`: left out of `make test-fast`


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _serve(arguments: list[str], cwd: Path, env: dict[str, str], temp: Path) -> subprocess.Popen[str]:
    """`mkdocs serve ARGUMENTS`, its temporary site in `temp` (an empty folder)."""
    temp.mkdir()
    return subprocess.Popen([sys.executable, "-m", "mkdocs", "serve", *arguments], cwd=cwd,
                            env={**env, "TMPDIR": str(temp)}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            text=True, preexec_fn=interruptible)


def _stop(server: subprocess.Popen[str], temp: Path) -> str:
    """Stop the server as Ctrl-C stops `make serve`; its log. It leaves no temporary site behind
    (a plugin still writing into it kept MkDocs from removing it)."""
    server.send_signal(signal.SIGINT)
    try:
        _, log = server.communicate(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
        _, log = server.communicate()
        raise AssertionError(f"mkdocs serve did not stop on Ctrl-C within 20 s:\n{log}") from None
    assert not list(temp.iterdir()), f"mkdocs serve left {sorted(p.name for p in temp.iterdir())}:\n{log}"
    return log


def _wait_for(url: str, text: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    page = ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                page = response.read().decode("utf-8")
            if text in page:
                return page
        except OSError:  # not answering yet, or slow to (a read timed out under load): ask again
            pass
        time.sleep(0.3)
    raise AssertionError(f"{text!r} did not appear at {url} within {timeout} s")


@pytest.mark.parametrize("options", [[], ["--dirty", "--no-strict"]], ids=["serve", "make-serve"])
def test_serve_shows_an_edited_record_without_a_restart(tmp_path, options):
    root = copy_knowledge_base(tmp_path / "kb")
    port = _free_port()
    server = _serve([*options, "-f", str(root / "mkdocs.yml"), "--dev-addr", f"127.0.0.1:{port}"], root,
                    MKDOCS_ENV, tmp_path / "temp")
    try:
        url = f"http://127.0.0.1:{port}/knobs/sglang-sm120-mma-target-ctas/"
        _wait_for(url, "Target thread-block (CTA) count", timeout=90)
        edit(root / SEED_KNOB, "summary: Target thread-block", "summary: Freshly edited target thread-block")
        _wait_for(url, "Freshly edited target thread-block", timeout=60)
    finally:
        log = _stop(server, tmp_path / "temp")
    # make serve's options: no warning the README calls inapplicable (MkDocs' about dirty builds), none at all.
    assert "WARNING" not in log, log


def test_serve_watches_a_records_folder_made_anew_and_files_outside_the_record_folders(tmp_path):
    """Plain `mkdocs serve` (a full rebuild each time) watches what the check read too."""
    import shutil

    root = copy_knowledge_base(tmp_path / "kb")
    port = _free_port()
    server = _serve(["-f", str(root / "mkdocs.yml"), "--dev-addr", f"127.0.0.1:{port}"], root, MKDOCS_ENV,
                    tmp_path / "temp")
    try:
        base = f"http://127.0.0.1:{port}/"
        url = base + "knobs/sglang-sm120-mma-target-ctas/"
        _wait_for(url, "Target thread-block (CTA) count", timeout=90)
        shutil.move(root / "knobs", tmp_path / "knobs-away")
        (root / "knobs").mkdir()  # made anew: its first folder's watch ended with it
        text = (tmp_path / "knobs-away" / SEED_KNOB.removeprefix("knobs/")).read_text()
        (root / SEED_KNOB).write_text(text.replace("summary: Target thread-block", "summary: Recreated thread-block"))
        _wait_for(url, "Recreated thread-block", timeout=60)
        (root / SEED_KNOB).write_text(text.replace("summary: Target thread-block",
                                                   "summary: Edited again thread-block"))
        _wait_for(url, "Edited again thread-block", timeout=60)
        edit(root / "deploy/decode.sh", "TARGET_CTAS=512", "TARGET_CTAS=384")  # a deploy file: drift now
        _wait_for(base, "deploy/decode.sh:8", timeout=60)
    finally:
        log = _stop(server, tmp_path / "temp")
    assert "Traceback" not in log, log


@pytest.mark.parametrize("options", [[], ["--dirty", "--no-strict"]], ids=["serve", "make-serve"])
def test_serve_an_org_site_and_a_knowledge_base_edited(tmp_path, options, cache_home):
    """`mkdocs serve` of an org site (and `make serve`'s `--dirty`, which builds it whole: the live
    preview is one knowledge base's) serves the home page with the organisation's ledger, and a record
    edited in a team's knowledge base shows without a restart."""
    payments = write_payments(tmp_path / "payments")
    write_platform(tmp_path / "platform")
    config = write_org(tmp_path / "org", [{"name": "payments", "path": "../payments"},
                                          {"name": "platform", "path": "../platform"}])
    port = _free_port()
    server = _serve([*options, "-f", str(config), "--dev-addr", f"127.0.0.1:{port}"], config.parent,
                    {**MKDOCS_ENV, "XDG_CACHE_HOME": str(cache_home)}, tmp_path / "temp")
    try:
        _wait_for(f"http://127.0.0.1:{port}/", "1 knob reclaimable in total", timeout=90)
        url = f"http://127.0.0.1:{port}/payments/knobs/db-pool-size/"
        _wait_for(url, "Connections in the database pool", timeout=30)
        edit(payments / "knobs/db-pool-size.yaml", "summary: Connections", "summary: Freshly edited connections")
        _wait_for(url, "Freshly edited connections", timeout=60)
    finally:
        log = _stop(server, tmp_path / "temp")
    assert "Traceback" not in log and "Aborted" not in log, log
