"""What a team does to adopt the knowledge base, for real: build the wheel, install it (not
editable) into a fresh virtual environment, `git init`, `kb init`, `kb new knob`, commit,
`kb check`, `mkdocs build --strict`, and find the knob's page and search entry in the site. Also
the same in a subfolder of a larger repository, with `kb check --base` on the commit that adds it.
The README's "Adopt in five minutes" commands are the ones run (`UPDATE_GOLDEN=1` rewrites the
output shown there; review the diff).

The environment: the wheel is built once per session; the venv is created once per set of
declared dependencies (kept under .cache/adoption-venv/, keyed by the wheel's Requires-Dist and the
Python version) with a real `pip install` that resolves them from the package index, and the
wheel is reinstalled into it (--no-deps, --force-reinstall) every session, then `pip check`
verifies the installed set. A fresh venv costs about 2 minutes here; a reused one, seconds.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from ..conftest import REPO
from ..console import BLOCK, run_block
from ..gitrepo import GIT_ENV
from ..golden import updating
from ..site_support import search_pages
from ..website.test_browser import browser  # noqa: F401 - the fixture

pytestmark = pytest.mark.slow  # builds a wheel and a venv, and real sites: left out of `make test-fast`

README = REPO / "README.md"
VENVS = REPO / ".cache" / "adoption-venv"
_SECTION = re.compile(r"^## Adopt in five minutes\n(.*?)^## ", re.DOTALL | re.MULTILINE)
NOTICES = ("end of life", "ProperDocs", "MkDocs 2", "NO_MKDOCS_2_WARNING")


def _run(args: list[str], **kwargs: object) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, capture_output=True, text=True, **kwargs)  # type: ignore[call-overload]
    assert proc.returncode == 0, f"{' '.join(map(str, args))} failed:\n{proc.stdout}\n{proc.stderr}"
    return proc


_SH_BLOCK = re.compile(r"^```sh\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def readme_install_lines() -> list[str]:
    """The commands of the README's install block (in "Adopt in five minutes")."""
    section = _SECTION.search(README.read_text(encoding="utf-8"))
    assert section, "README has no 'Adopt in five minutes' section"
    block = _SH_BLOCK.search(section.group(1))
    assert block, "the section has no sh block that installs incident-kb"
    return [line for line in block.group(1).splitlines() if line.strip()]


@pytest.fixture(scope="session")
def adopter_bin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bin/ folder of a venv where incident-kb is installed as the README says: `make wheel` in a
    checkout, then `pip install` of that wheel file (a direct URL pip records, which kb init reads)."""
    # A clean copy of the sources: setuptools packs whatever its build/ folder holds (make wheel also
    # removes it), and the work tree must not get a dist/ from a test.
    source = tmp_path_factory.mktemp("source")
    shutil.copytree(REPO / "generator", source / "generator", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", "Makefile", "constraints.txt"):
        shutil.copy2(REPO / name, source / name)
    make_wheel, pip_install, version_line = readme_install_lines()
    assert make_wheel == "make wheel" and version_line == "kb --version"
    python_path = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    _run(["bash", "-c", make_wheel], cwd=source, env=python_path, timeout=600)
    wheel = next((source / "dist").glob("incident_kb-*.whl"))
    assert pip_install == f"pip install dist/{wheel.name}", "the README installs another file than make wheel builds"
    with zipfile.ZipFile(wheel) as archive:
        metadata = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        requires = sorted(line for line in archive.read(metadata).decode().splitlines()
                          if line.startswith("Requires-Dist:"))
    key = hashlib.sha256("\n".join([sys.version, *requires]).encode()).hexdigest()[:16]
    venv = VENVS / key
    python = venv / "bin" / "python"
    version = wheel.name.split("-")[1]
    in_venv = {**os.environ, "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "PIP_NO_COMPILE": "1"}
    if not python.exists():
        _run([sys.executable, "-m", "venv", "--clear", str(venv)])
    else:  # reused: the README's line installs this session's wheel (the dependencies are there)
        _run([str(python), "-m", "pip", "uninstall", "--quiet", "--yes", "incident-kb"])
    _run(["bash", "-c", pip_install + " --quiet"], cwd=source, env=in_venv, timeout=900)  # as written (quietly)
    _run([str(python), "-m", "pip", "check"])
    assert _run(["bash", "-c", version_line], env=in_venv).stdout == f"kb (incident-kb) {version}\n"
    return venv / "bin"


def run_workflow_install(root: Path, bin_folder: Path) -> str:
    """The generated workflow's install step, run as written where it runs (the knowledge base's
    folder), into the adopter's venv in place of what is installed; returns `kb --version`."""
    workflow = YAML(typ="safe").load((root / ".github/workflows/kb-check.yml").read_text())
    [step] = [s for s in workflow["jobs"]["kb-check"]["steps"] if s.get("name") == "Install incident-kb"]
    assert "@" not in step["run"].replace("incident-kb @ ", "") and "<" not in step["run"], step["run"]
    env = {**os.environ, "PATH": f"{bin_folder}{os.pathsep}{os.environ['PATH']}", "PIP_NO_COMPILE": "1"}
    _run([str(bin_folder / "python"), "-m", "pip", "uninstall", "--quiet", "--yes", "incident-kb"])
    _run(["bash", "-c", step["run"] + " --quiet"], cwd=root, env=env, timeout=900)
    return _run([str(bin_folder / "kb"), "--version"]).stdout


def _env(bin_folder: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DISABLE_MKDOCS_2_WARNING", "NO_MKDOCS_2_WARNING",
                                                             "VIRTUAL_ENV", "PYTHONPATH")}
    env |= GIT_ENV | {"PATH": f"{bin_folder}{os.pathsep}{env['PATH']}", "PYTHONUNBUFFERED": "1",
                      "GIT_AUTHOR_DATE": "2026-11-01T09:00:00Z", "GIT_COMMITTER_DATE": "2026-11-01T09:00:00Z"}
    return env


def _assert_knob_on_the_site(site: Path, knob_id: str, name: str) -> None:
    """The knob's page, and the site's search (Pagefind's index, which the fresh install built) finds it."""
    assert name in (site / "knobs" / knob_id / "index.html").read_text(encoding="utf-8")
    page = search_pages(site).get(f"/knobs/{knob_id}/")
    assert page is not None and name in page["content"] + page["meta"]["title"]


def test_the_readme_adoption_works_as_shown(adopter_bin, tmp_path):
    root = tmp_path / "team-kb"
    root.mkdir()
    env = _env(adopter_bin)
    _run(["git", "init", "-q", "-b", "main"], cwd=root, env=env)
    text = README.read_text(encoding="utf-8")
    section = _SECTION.search(text)
    assert section, "README has no 'Adopt in five minutes' section"
    block = BLOCK.search(section.group(1))
    assert block, "the section has no console block"
    start = section.start(1) + block.start(1)
    first_line = text.count("\n", 0, start) + 1
    rewritten, failures = run_block(block.group(1), first_line, "README", root, env, timeout=300)
    if updating():
        new_block = "".join(line + "\n" for line in rewritten)
        README.write_text(text[:start] + new_block + text[start + len(block.group(1)):], encoding="utf-8")
        return
    assert not failures, "the README shows output its commands do not print (UPDATE_GOLDEN=1 rewrites it):\n" + \
        "\n".join(failures)
    everything = "\n".join(rewritten)
    # The block silences Material's notice itself (NO_MKDOCS_2_WARNING=1, named in the command): none printed.
    assert not any(notice in everything for notice in NOTICES[:3])
    _assert_knob_on_the_site(root / "site", "decode-batch-size", "DECODE_BATCH_SIZE")
    # The workflow installs the very wheel the README installed, copied into the knowledge base.
    wheels = list((root / "wheels").glob("incident_kb-*.whl"))
    assert len(wheels) == 1
    assert run_workflow_install(root, adopter_bin).startswith("kb (incident-kb) ")


def test_a_knowledge_base_in_a_subfolder_of_a_larger_repository(adopter_bin, tmp_path):
    top = tmp_path / "product"
    top.mkdir()
    env = _env(adopter_bin)
    run = lambda *args, cwd=top: _run(list(args), cwd=cwd, env=env)  # noqa: E731
    run("git", "init", "-q", "-b", "main")
    (top / "src").mkdir()
    (top / "src/main.py").write_text("print('hello')\n")
    run("git", "add", "-A")
    run("git", "commit", "-q", "-m", "The product")
    run("kb", "init", "kb")
    run("kb", "new", "knob", "prefill-chunk", "--name", "PREFILL_CHUNK", "--summary", "Prefill chunk size",
        "--value", "4096", "--root", "kb")
    run("git", "add", "-A")
    run("git", "commit", "-q", "-m", "A knowledge base for the product")
    checked = run("kb", "check", "--root", "kb", "--base", "HEAD~1")
    assert checked.stdout.startswith("all good: 1 knob, 0 incidents checked; 0 findings pre-existing at HEAD~1")
    assert run("kb", "check", cwd=top / "kb").stdout == "all good: 1 knob, 0 incidents checked\n"
    built = run("mkdocs", "build", "--strict", cwd=top / "kb")
    # Upstream's notice is let through (nothing installed silences it), and fails nothing.
    assert "Material for MkDocs reaches end of life" in built.stderr
    quiet = _run(["mkdocs", "build", "--strict"], cwd=top / "kb", env={**env, "NO_MKDOCS_2_WARNING": "1"})
    assert not any(notice in quiet.stdout + quiet.stderr for notice in NOTICES)
    _assert_knob_on_the_site(top / "kb/site", "prefill-chunk", "PREFILL_CHUNK")
    assert run("git", "status", "--porcelain").stdout == ""  # the build's output is ignored


_EXISTING = re.compile(r"^## Adopt into an existing site\n(.*?)^## ", re.DOTALL | re.MULTILINE)
TEAM_SITE = REPO / "tests/fixtures/team-site"


def test_the_readme_adoption_into_an_existing_site_works_as_shown(adopter_bin, tmp_path, browser):
    """The team's site built before and after adopting: its pages kept, the knowledge base's pages
    there, stale-doc on the team's runbook, and a short name found by search in a real browser."""
    from ..site_support import serve
    from ..website.test_browser import Visit

    root = tmp_path / "payments"
    shutil.copytree(TEAM_SITE, root)
    env = _env(adopter_bin)
    _run(["git", "init", "-q", "-b", "master"], cwd=root, env=env)
    _run(["git", "add", "-A"], cwd=root, env=env)
    _run(["git", "commit", "-q", "-m", "The team's docs"], cwd=root, env=env)
    before = _run(["mkdocs", "build", "--strict"], cwd=root, env={**env, "NO_MKDOCS_2_WARNING": "1"})
    assert "WARNING" not in before.stdout + before.stderr
    team_home = (root / "build/site/index.html").read_text(encoding="utf-8")
    text = README.read_text(encoding="utf-8")
    section = _EXISTING.search(text)
    assert section, "README has no 'Adopt into an existing site' section"
    block = BLOCK.search(section.group(1))
    assert block, "the section has no console block"
    start = section.start(1) + block.start(1)
    rewritten, failures = run_block(block.group(1), text.count("\n", 0, start) + 1, "README", root, env, timeout=300)
    if updating():
        new_block = "".join(line + "\n" for line in rewritten)
        README.write_text(text[:start] + new_block + text[start + len(block.group(1)):], encoding="utf-8")
        return
    assert not failures, "the README shows output its commands do not print (UPDATE_GOLDEN=1 rewrites it):\n" + \
        "\n".join(failures)
    site = root / "build/site"
    # The team's pages are kept, in its theme (custom_dir), beside the knowledge base's.
    after_home = (site / "index.html").read_text(encoding="utf-8")
    assert "The payments team&rsquo;s own home page" in after_home or "The payments team's own home page" in after_home
    assert "Payments team site" in after_home and "Payments team site" in (site / "kb/index.html").read_text()
    assert "The payments team" in team_home
    assert (site / "runbooks/pool/index.html").is_file() and (site / "tags/index.html").is_file()
    assert "PAYMENTS_DB_POOL_SIZE" in (site / "kb/knobs/payments-db-pool-size/index.html").read_text()
    # stale-doc on the team's own docs folder: the block shows it (site-src/runbooks/pool.md).
    assert any(line.startswith("site-src/runbooks/pool.md:") and "stale-doc" in line for line in rewritten)
    # The short name finds the knob in a real browser (the separator the plugin set splits '_').
    with serve(site) as base:
        visit = Visit(browser, base)
        visit.open("")
        assert "/kb/knobs/payments-db-pool-size/" in visit.search("POOL_SIZE")
        assert not visit.foreign


def test_the_workflow_installs_what_the_sites_own_build_needs_in_a_fresh_venv(adopter_bin, tmp_path):
    """A site using glightbox (declared in docs/requirements.txt): the workflow's install step, run
    as written in a fresh venv, installs incident-kb and the site's own plugin, and the site builds
    under --strict (with only kb's wheel: "plugin is not installed")."""
    root = tmp_path / "gallery"
    (root / "docs").mkdir(parents=True)
    (root / "mkdocs.yml").write_text("site_name: Gallery\ntheme:\n  name: material\n  font: false\n"
                                     "plugins:\n  - search\n  - glightbox\n")
    (root / "docs/index.md").write_text("# Gallery\n\nOur own home page.\n")
    (root / "docs/requirements.txt").write_text("mkdocs-glightbox==0.5.3\n")
    env = _env(adopter_bin)
    _run(["git", "init", "-q", "-b", "main"], cwd=root, env=env)
    result = _run(["kb", "init", "--merge"], cwd=root, env=env)
    assert ("  site    the workflow installs the site's dependencies from docs/requirements.txt"
            in result.stdout.splitlines())
    fresh = tmp_path / "fresh-venv"
    _run([sys.executable, "-m", "venv", str(fresh)])
    workflow = YAML(typ="safe").load((root / ".github/workflows/kb-check.yml").read_text())
    steps = workflow["jobs"]["kb-check"]["steps"]
    [install] = [s["run"] for s in steps if s.get("name") == "Install incident-kb"]
    fresh_env = {**_env(fresh / "bin"), "PIP_NO_COMPILE": "1", "NO_MKDOCS_2_WARNING": "1",
                 "DISABLE_MKDOCS_2_WARNING": "true"}
    _run(["bash", "-c", install + " --quiet"], cwd=root, env=fresh_env, timeout=900)
    _run(["git", "add", "-A"], cwd=root, env=env)
    _run(["git", "commit", "-q", "-m", "A knowledge base"], cwd=root, env=env)
    [build] = [s["run"] for s in steps if s.get("name") == "Build the site"]
    built = _run(["bash", "-c", build], cwd=root, env=fresh_env, timeout=600)
    assert "WARNING" not in built.stdout + built.stderr
    assert "glightbox" in (root / "site/index.html").read_text() and (root / "site/kb/index.html").is_file()
