"""The workflow `kb init` writes beside an existing site installs what the team's own build needs:
what the repository declares (a docs requirements file, a pyproject extra or dependency group), or
else the distributions installed here that provide what mkdocs.yml names, pinned; kb init says what
it found, what it could not resolve, and a Material pin incident-kb cannot install beside (the file,
the line and the change). The workflow's install step is run in a fresh venv by test_adoption.py."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")

SITE = "site_name: Team\ntheme:\n  name: material\nplugins:\n  - search\n  - tags\n  - lightbox\n"


@pytest.fixture
def team(tmp_path, monkeypatch):
    repo = GitRepo(tmp_path / "team")
    repo.write("mkdocs.yml", SITE)
    repo.write("docs/index.md", "# Home\n")
    monkeypatch.chdir(repo.root)
    return repo.root


def install_words(root: Path) -> list[str]:
    workflow = YAML(typ="safe").load((root / ".github/workflows/kb-check.yml").read_text())
    [step] = [s for s in workflow["jobs"]["kb-check"]["steps"] if s.get("name") == "Install incident-kb"]
    words = shlex.split(step["run"])
    assert words[:4] == ["python", "-m", "pip", "install"]
    return words[5:]  # after incident-kb itself


@pytest.mark.parametrize("rel", ["docs/requirements.txt", "requirements-docs.txt", "requirements/docs.txt"])
def test_a_docs_requirements_file_is_installed(kb, team, rel):
    (team / rel).parent.mkdir(parents=True, exist_ok=True)
    (team / rel).write_text("mkdocs-lightbox>=1\n")
    result = kb("init")
    assert result.code == 0, result.err
    assert install_words(team) == ["-r", rel]
    assert f"  site    the workflow installs the site's dependencies from {rel}" in result.out.splitlines()


def test_a_pyproject_docs_extra_or_group_is_installed(kb, team):
    (team / "pyproject.toml").write_text('[project]\nname = "team"\nversion = "1"\n'
                                         '[project.optional-dependencies]\ndocs = ["mkdocs-lightbox>=1"]\n')
    assert kb("init").code == 0 and install_words(team) == [".[docs]"]


def test_a_pyproject_dependency_group_is_installed_as_its_requirements(kb, team):
    (team / "pyproject.toml").write_text('[dependency-groups]\ndocs = ["mkdocs-lightbox>=1", "mkautodoc==0.2.0"]\n')
    assert kb("init").code == 0 and install_words(team) == ["mkdocs-lightbox>=1", "mkautodoc==0.2.0"]


@pytest.mark.parametrize("pin, conflicts", [("mkdocs-material==9.6.18", True), ("mkdocs-material<9.7", True),
                                            ("mkdocs-material==9.7.7", False), ("mkdocs-material>=9", False)])
def test_a_material_pin_kb_cannot_install_beside_is_named_with_the_change(kb, team, pin, conflicts):
    """The conflicting pin is an error the user must fix before the first pull request (the workflow's
    install step would fail): kb init exits 1, as `kb check` does on errors, with every file written
    (the pin is the team's to change; kb init run again after the fix changes nothing more)."""
    (team / "docs/requirements.txt").write_text(f"mkdocs-lightbox\n{pin}   # ours\n")
    result = kb("init")
    assert result.code == (1 if conflicts else 0), result.err
    assert (team / ".github/workflows/kb-check.yml").is_file() and (team / "knobs").is_dir()
    said = [line for line in result.out.splitlines() if line.startswith("docs/requirements.txt:")]
    if not conflicts:
        assert said == [] and not any("error" in line for line in result.out.splitlines())
        return
    assert result.out.splitlines()[-1] == ("kb init: 1 error above: the files are written, but the workflow's "
                                           "install step fails until the site's requirements admit incident-kb's "
                                           "Material")
    assert said == [f"docs/requirements.txt:2: error: '{pin}' pins Material where incident-kb cannot install (it "
                    "needs mkdocs-material>=9.7.6,<9.9); change it to 'mkdocs-material>=9.7.6,<9.9' (or ==9.7.7, as "
                    "TechDocs pins it), or the workflow's install step fails"]
    (team / "docs/requirements.txt").write_text("mkdocs-lightbox\nmkdocs-material>=9.7.6,<9.9\n")
    again = kb("init")
    assert again.code == 0, again.out
    assert not any(line.startswith("  created") for line in again.out.splitlines())


def _fake_distribution(folder: Path, name: str, version: str, entry_points: str) -> None:
    info = folder / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(entry_points)


def _fancy_markdown(folder: Path) -> None:
    """A markdown extension's distribution whose module (`fancy`) is not named after it."""
    (folder / "fancy").mkdir(parents=True)
    (folder / "fancy/__init__.py").write_text("")
    _fake_distribution(folder, "fancy-markdown", "0.4.0", "")
    (folder / "fancy_markdown-0.4.0.dist-info/top_level.txt").write_text("fancy\n")


def test_without_declarations_the_installed_providers_are_pinned_and_the_rest_said(kb, team, tmp_path,
                                                                                 monkeypatch):
    (team / "mkdocs.yml").write_text(SITE + "  - unknown-plugin\n  - gen-files:\n      scripts: []\n"
                                     "markdown_extensions:\n  - toc\n  - pymdownx.superfences\n  - fancy.ext\n")
    found = tmp_path / "site-packages"
    _fake_distribution(found, "mkdocs-lightbox", "1.2.3", "[mkdocs.plugins]\nlightbox = lightbox:Plugin\n")
    _fancy_markdown(found)
    monkeypatch.syspath_prepend(str(found))
    result = kb("init")
    assert result.code == 0, result.err
    # Material's (`tags` is the theme's `material/tags`), gen-files' and pymdown-extensions' come with
    # incident-kb; toc with Python-Markdown.
    assert install_words(team) == ["fancy-markdown==0.4.0", "mkdocs-lightbox==1.2.3"]
    lines = result.out.splitlines()
    assert ("  site    the workflow installs mkdocs.yml's plugins and extensions, as installed here: "
            "fancy-markdown==0.4.0, mkdocs-lightbox==1.2.3") in lines
    assert ("note: mkdocs.yml names the plugin 'unknown-plugin', which no distribution installed here provides: "
            "add the distribution to the workflow's install step") in lines
    assert not any("'tags'" in line for line in lines)


def test_the_plugins_and_extensions_an_inherit_chain_names_are_installed_too(kb, team, tmp_path, monkeypatch):
    """mkdocs.yml INHERITs base.yml, which INHERITs shared/org.yml: the build uses the plugins and
    extensions the parents name (MkDocs merges them in), so the workflow installs them too; the scan
    read only the child's own file."""
    (team / "mkdocs.yml").write_text("INHERIT: base.yml\nsite_name: Team\n")
    (team / "base.yml").write_text("INHERIT: shared/org.yml\ntheme:\n  name: material\n"
                                   "plugins:\n  - search\n  - lightbox\n  - gallery:\n      columns: 3\n")
    (team / "shared").mkdir()
    (team / "shared/org.yml").write_text("markdown_extensions:\n  - toc\n  - fancy.ext\n")
    found = tmp_path / "site-packages"
    _fake_distribution(found, "mkdocs-lightbox", "1.2.3", "[mkdocs.plugins]\nlightbox = lightbox:Plugin\n")
    _fake_distribution(found, "mkdocs-gallery-like", "0.9.1", "[mkdocs.plugins]\ngallery = gallery:Plugin\n")
    _fancy_markdown(found)
    monkeypatch.syspath_prepend(str(found))
    result = kb("init")
    assert result.code == 0, result.err
    assert install_words(team) == ["fancy-markdown==0.4.0", "mkdocs-gallery-like==0.9.1", "mkdocs-lightbox==1.2.3"]
    assert not any(line.startswith("note: mkdocs.yml names") for line in result.out.splitlines()), result.out


def test_a_site_kb_init_writes_needs_nothing_more(kb, tmp_path, monkeypatch):
    GitRepo(tmp_path / "new")
    monkeypatch.chdir(tmp_path / "new")
    assert kb("init").code == 0 and install_words(tmp_path / "new") == []


def test_the_sessions_scan_of_installed_modules_answers_as_a_fresh_one_and_sees_a_new_path(tmp_path, monkeypatch):
    """The suite scans the installed distributions once per `sys.path` (tests/conftest.py): the modules,
    entry points and requirements it answers are what a scan answers, a caller's change to them reaches no
    other caller, and a distribution on a new `sys.path` entry is seen."""
    from importlib import metadata

    from ..conftest import installed_modules_read_once

    scans: list[None] = []

    def scan() -> dict[str, list[str]]:
        scans.append(None)
        return {"yaml": ["PyYAML"]} if len(scans) == 1 else {"fancy": ["fancy-markdown"]}

    read_once = installed_modules_read_once(scan)
    first = read_once()
    first["yaml"].append("changed")
    assert read_once() == {"yaml": ["PyYAML"]} and len(scans) == 1
    monkeypatch.syspath_prepend(str(tmp_path))
    assert read_once() == {"fancy": ["fancy-markdown"]} and len(scans) == 2
    # The suite's own: what the session answers is what a scan of the installed distributions does.
    session = metadata.packages_distributions()
    assert session == metadata.packages_distributions.__wrapped__() and "yaml" in session
    plugins = metadata.entry_points(group="mkdocs.plugins")
    assert list(plugins) == list(metadata.entry_points.__wrapped__(group="mkdocs.plugins"))
    assert "search" in plugins.names
    requires = metadata.requires("incident-kb")
    assert requires == metadata.requires.__wrapped__("incident-kb") and requires
    requires.append("changed")
    assert "changed" not in metadata.requires("incident-kb")
    found = tmp_path / "site-packages"
    _fake_distribution(found, "fancy-markdown", "0.4.0", "[mkdocs.plugins]\nfancy = fancy:Plugin\n")
    (found / "fancy_markdown-0.4.0.dist-info/top_level.txt").write_text("fancy\n")
    monkeypatch.syspath_prepend(str(found))
    assert metadata.packages_distributions()["fancy"] == ["fancy-markdown"] and "fancy" not in session
    assert "fancy" in metadata.entry_points(group="mkdocs.plugins").names and "fancy" not in plugins.names
    assert metadata.requires("fancy-markdown") is None
