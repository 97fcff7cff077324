"""`mkdocs serve` rebuilds the generated pages when a record changes (knobs/ and incidents/ are
watched, and the gen script sees fresh records on every build)."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from .conftest import SEED_KNOB, edit
from .site_support import MKDOCS_ENV, copy_knowledge_base

pytestmark = pytest.mark.slow  # a real `mkdocs serve`: left out of `make test-fast`


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for(url: str, text: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    page = ""
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                page = response.read().decode("utf-8")
            if text in page:
                return page
        except (urllib.error.URLError, ConnectionError):
            pass
        time.sleep(0.3)
    raise AssertionError(f"{text!r} did not appear at {url} within {timeout} s")


@pytest.mark.parametrize("options", [[], ["--dirty", "--no-strict"]], ids=["serve", "make-serve"])
def test_serve_shows_an_edited_record_without_a_restart(tmp_path, options):
    root = copy_knowledge_base(tmp_path / "kb")
    port = _free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "mkdocs", "serve", *options, "-f", str(root / "mkdocs.yml"),
         "--dev-addr", f"127.0.0.1:{port}"],
        cwd=root, env=MKDOCS_ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        url = f"http://127.0.0.1:{port}/knobs/sglang-sm120-mma-target-ctas/"
        _wait_for(url, "Target thread-block (CTA) count", timeout=90)
        edit(root / SEED_KNOB, "summary: Target thread-block", "summary: Freshly edited target thread-block")
        _wait_for(url, "Freshly edited target thread-block", timeout=60)
    finally:
        server.terminate()
        try:
            _, log = server.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            _, log = server.communicate()
    # make serve's options: no warning the README calls inapplicable (MkDocs' about dirty builds), none at all.
    assert "WARNING" not in log, log
