"""ProperDocs, the drop-in continuation of MkDocs 1.x: this repository's site and an adopter's build
with `properdocs build --strict` and the incident-kb plugin unchanged, to the same pages MkDocs
builds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import REPO
from ..gitrepo import GitRepo, git_environment

pytestmark = pytest.mark.slow  # real site builds

BIN = Path(sys.executable).parent
KNOB = "knobs/sglang-sm120-mma-target-ctas/index.html"


def build(tool: str, config: Path, out: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run([str(BIN / tool), "build", "--strict", "-d", str(out), *extra,
                           *(("-f", str(config)) if config.name == "mkdocs.yml" else ())],
                          cwd=config.parent, env={**git_environment(), "NO_MKDOCS_2_WARNING": "1"},
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{tool} build failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


def same_page(html: str) -> str:
    """A page as both tools write it, but for the generator's name in its meta tag."""
    return re.sub(r'<meta name="generator" content="[^"]*">', "", html)


def test_this_repositorys_site_builds_with_properdocs_as_with_mkdocs(tmp_path):
    build("properdocs", REPO / "mkdocs.yml", tmp_path / "properdocs")
    build("mkdocs", REPO / "mkdocs.yml", tmp_path / "mkdocs")
    for page in (KNOB, "index.html", "incidents/multi-round-harness-hang/index.html"):
        ours = (tmp_path / "properdocs" / page).read_text(encoding="utf-8")
        assert same_page(ours) == same_page((tmp_path / "mkdocs" / page).read_text(encoding="utf-8")), page
    assert "SGLANG_SM120_MMA_TARGET_CTAS" in (tmp_path / "properdocs" / KNOB).read_text(encoding="utf-8")


def test_an_adopters_site_builds_with_properdocs_yml(tmp_path, kb, git_env):
    root = tmp_path / "team-kb"
    repo = GitRepo(root)
    assert kb("init", root).code == 0
    assert kb("new", "knob", "decode-batch-size", "--name", "DECODE_BATCH_SIZE", "--summary", "Decode batch size",
              "--value", "64", "--root", root).code == 0
    repo.commit("start", "2026-11-01T00:00:00Z")
    (root / "mkdocs.yml").rename(root / "properdocs.yml")  # as ProperDocs asks
    proc = build("properdocs", root / "properdocs.yml", tmp_path / "site")
    assert "should be renamed" not in proc.stderr
    page = (tmp_path / "site/knobs/decode-batch-size/index.html").read_text(encoding="utf-8")
    assert "DECODE_BATCH_SIZE" in page and '<span class="kb-badge kb-status-active">active</span>' in page
