"""Under `mkdocs serve` the gen script runs again in one process: edits to the generator show up."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from ..conftest import REPO

pytestmark = pytest.mark.slow  # fresh interpreters importing the whole site stack: left out of `make test-fast`

SCRIPT = """
import os, sys
from pathlib import Path
from incident_kb.website.mkdocs.live_reload import fresh_module
first = fresh_module("incident_kb.website.core.pages")
assert fresh_module("incident_kb.website.core.pages") is first, "reimported although nothing changed"
source = Path(first.__file__).with_name("changes.py")
stat = source.stat()
os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
try:
    second = fresh_module("incident_kb.website.core.pages")
finally:
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))
assert second is not first, "not reimported after a source change"
assert second.render_site is not first.render_site
assert sys.modules["incident_kb.website.core.changes"] is not None
assert Path(first.__file__).is_relative_to(Path.cwd()), first.__file__  # the copy, not the checkout
print("ok")
"""


def test_generator_modules_are_imported_anew_when_their_source_changes(tmp_path):
    """On a copy of the package: touching the checkout's own source made every `mkdocs serve` that
    other tests ran at that moment import the generator again (the live preview tests failed on it)."""
    shutil.copytree(REPO / "generator" / "incident_kb", tmp_path / "incident_kb",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", SCRIPT], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.stdout.strip() == "ok", proc.stderr


def test_an_installed_generator_is_never_purged_from_sys_modules(monkeypatch):
    """Only a development checkout reloads its modules: an adopter's installed package is imported
    once, whatever the file times say."""
    from incident_kb.website.core import pages
    from incident_kb.website.mkdocs import live_reload

    monkeypatch.setattr(live_reload, "DEVELOPMENT", False)
    monkeypatch.setattr(live_reload, "_imported_stamp", (("changed since", 0),))
    assert live_reload.fresh_module("incident_kb.website.core.pages") is pages
    assert sys.modules["incident_kb.website.core.pages"] is pages
    assert live_reload.DEVELOPMENT is not None and isinstance(live_reload._INSTALLED, set)
