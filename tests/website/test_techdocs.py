"""Backstage TechDocs: incident-kb installs beside `mkdocs-techdocs-core` (whose 1.7.1 pins Material
9.7.7, Markdown below 3.11 and pymdown-extensions 11.0.1) and a TechDocs site that lists
`plugins: [techdocs-core, incident-kb]` builds under `--strict` with the team's pages kept and the
knowledge base's pages present.

The environment: incident-kb's wheel and mkdocs-techdocs-core==1.7.1 resolved together by a real
`pip install` into a venv of their own (kept under .cache/techdocs-venv/, keyed by the wheel's
dependencies and the Python version; the wheel is reinstalled every session), as a TechDocs build
image would install them. A fresh venv costs a minute or two; a reused one, seconds.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from incident_kb.website.core.bundle import SEARCH_SEPARATOR

from ..conftest import REPO
from ..gitrepo import GIT_ENV

pytestmark = pytest.mark.slow  # a venv and a real TechDocs build

TECHDOCS = "mkdocs-techdocs-core==1.7.1"
VENVS = REPO / ".cache" / "techdocs-venv"
TECHDOCS_CONFIG = """\
site_name: payments
site_description: The payments service
nav:
  - Home: index.md
  - Runbooks:
      - Pool: runbooks/pool.md
plugins: [techdocs-core]
"""


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    assert proc.returncode == 0, f"{' '.join(map(str, args))} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


@pytest.fixture(scope="session")
def techdocs_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    source = tmp_path_factory.mktemp("techdocs-source")
    shutil.copytree(REPO / "generator", source / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(REPO / name, source / name)
    dist = tmp_path_factory.mktemp("techdocs-dist")
    _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", str(dist), str(source)],
         timeout=600)
    wheel = next(dist.glob("incident_kb-*.whl"))
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        requires = sorted(line for line in archive.read(metadata).decode().splitlines()
                          if line.startswith("Requires-Dist:"))
    venv = VENVS / hashlib.sha256("\n".join([sys.version, TECHDOCS, *requires]).encode()).hexdigest()[:16]
    python = venv / "bin" / "python"
    install = [str(python), "-m", "pip", "install", "--quiet", "--no-compile"]
    if not python.exists():
        _run([sys.executable, "-m", "venv", "--clear", str(venv)])
        _run([*install, str(wheel), TECHDOCS], timeout=900)  # resolved together, for real
    else:
        _run([*install, "--no-deps", "--force-reinstall", str(wheel)], timeout=300)
    _run([str(python), "-m", "pip", "check"])
    shown = _run([str(python), "-m", "pip", "show", "mkdocs-material"]).stdout
    assert "Version: 9.7." in shown, shown  # what TechDocs pins, which incident-kb admits
    return venv / "bin"


def test_a_techdocs_site_builds_with_the_knowledge_base_under_strict(techdocs_bin, tmp_path):
    root = tmp_path / "payments"
    (root / "docs/runbooks").mkdir(parents=True)
    (root / "mkdocs.yml").write_text(TECHDOCS_CONFIG)
    (root / "docs/index.md").write_text("# Payments\n\nThe team's own home page.\n")
    (root / "docs/runbooks/pool.md").write_text("# Pool\n\nSet `PAYMENTS_DB_POOL_SIZE` to 50.\n")
    env = {k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    env |= GIT_ENV | {"PATH": f"{techdocs_bin}{os.pathsep}{env['PATH']}", "NO_MKDOCS_2_WARNING": "1",
                      "DISABLE_MKDOCS_2_WARNING": "true", "GIT_AUTHOR_DATE": "2026-11-01T09:00:00Z",
                      "GIT_COMMITTER_DATE": "2026-11-01T09:00:00Z"}
    run = lambda *args: _run(list(args), cwd=root, env=env, timeout=600)  # noqa: E731
    run("git", "init", "-q", "-b", "main")
    run("kb", "init", "--merge")
    config = (root / "mkdocs.yml").read_text()
    # The inline list written one item a line; Material's tags plugin by the name that resolves without
    # `theme: material` in the file; the knowledge base under kb/, beside the team's own home page.
    assert "plugins:\n  - techdocs-core\n  - material/tags\n  - incident-kb:\n      prefix: kb\n" in config
    run("kb", "new", "knob", "payments-db-pool-size", "--name", "PAYMENTS_DB_POOL_SIZE", "--summary", "Pool size",
        "--value", "50", "--tag", "database")
    run("git", "add", "-A")
    run("git", "commit", "-q", "-m", "Docs and a knowledge base")
    built = run("mkdocs", "build", "--strict")
    assert "WARNING" not in built.stdout + built.stderr
    site = root / "site"
    assert "The team&rsquo;s own home page" in (site / "index.html").read_text() or \
        "The team's own home page" in (site / "index.html").read_text()
    assert "PAYMENTS_DB_POOL_SIZE" in (site / "kb/knobs/payments-db-pool-size/index.html").read_text()
    assert (site / "kb/index.html").is_file() and (site / "techdocs_metadata.json").is_file()
    assert "payments-db-pool-size" in (site / "kb/tags/index.html").read_text()  # the tags page lists the knob
    # techdocs-core swaps in MkDocs' own search, whose separator ('[\\s\\-]+') does not split '_': the
    # knowledge base is findable by a short name there too (POOL_SIZE in PAYMENTS_DB_POOL_SIZE).
    index = json.loads((site / "search/search_index.json").read_text())
    assert index["config"]["separator"] == SEARCH_SEPARATOR
    assert any("PAYMENTS_DB_POOL_SIZE" in doc["text"] or "PAYMENTS_DB_POOL_SIZE" in doc["title"]
               for doc in index["docs"] if doc["location"].startswith("kb/knobs/payments-db-pool-size"))
