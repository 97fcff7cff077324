"""The docs folder named in the forms teams write it (`./site-src`, `site-src/`, `site-src/.`, a
nested `docs/site`, a `!ENV` default, quoted) is the one stale-doc reads, in a plain check, a
remembered one and `--staged`, and the one `kb init` writes into."""

from __future__ import annotations

import json

import pytest

from incident_kb.settings.docs_folder import docs_folder

from ..gitrepo import GitRepo
from .test_docs_folder import payments_team

pytestmark = pytest.mark.usefixtures("git_env")

def stale(kb, root, *extra) -> list[tuple[str, str]]:
    result = kb("check", "--root", root, "--format", "json", *extra)
    return [(f["code"], f["path"]) for f in json.loads(result.out)["findings"]
            if f["code"] in ("stale-doc", "bad-config")]


FORMS = {
    "mkdocs.yml": ["./site-src", "site-src/", "./site-src/", "site-src/.", "'site-src'", "\"./site-src/\"",
                   "site-src//", "other/../site-src"],
    "mkdocs.yaml": ["./site-src"],
    "properdocs.yml": ["site-src/"],
}


@pytest.mark.parametrize("config, value", [(config, value) for config, values in FORMS.items() for value in values])
def test_every_way_of_writing_the_docs_folder_is_read(kb, tmp_path, config, value):
    repo = payments_team(kb, tmp_path, config, value)
    assert docs_folder(repo.root).rel_path == "site-src"
    assert stale(kb, repo.root) == [("stale-doc", "site-src/runbooks/pool.md")]
    assert stale(kb, repo.root) == [("stale-doc", "site-src/runbooks/pool.md")]  # remembered


@pytest.mark.parametrize("value", ["./site-src", "site-src/"])
def test_pyproject_docs_dir_in_relative_forms(kb, tmp_path, value):
    repo = payments_team(kb, tmp_path, "mkdocs.yml", "elsewhere")
    (repo.root / "pyproject.toml").write_text(f'[tool.incident-kb]\ndocs-dir = "{value}"\n')
    assert docs_folder(repo.root).rel_path == "site-src"
    assert stale(kb, repo.root) == [("stale-doc", "site-src/runbooks/pool.md")]


def test_a_docs_dir_given_by_env_is_said_never_read_as_the_default_in_silence(kb, tmp_path):
    """MkDocs builds `docs_dir: !ENV [DOCS, site-src]` from site-src/; the check read docs/ without a word."""
    repo = payments_team(kb, tmp_path, "mkdocs.yml", "!ENV [KB_TEST_DOCS, 'site-src']")
    result = kb("check", "--root", repo.root, "--format", "json")
    [problem] = [f for f in json.loads(result.out)["findings"] if f["code"] == "bad-config"]
    assert problem["path"] == "mkdocs.yml" and "docs_dir in mkdocs.yml is !ENV" in problem["message"]
    assert "docs-dir under [tool.incident-kb]" in problem["message"]
    (repo.root / "pyproject.toml").write_text('[tool.incident-kb]\ndocs-dir = "site-src"\n')
    assert stale(kb, repo.root) == [("stale-doc", "site-src/runbooks/pool.md")]


def test_other_tags_mkdocs_allows_leave_the_docs_folder_as_written(kb, tmp_path):
    repo = payments_team(kb, tmp_path, "mkdocs.yml", "site-src\nextra:\n  id: !ENV ANALYTICS\nmarkdown_extensions:\n"
                 "  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji")
    assert stale(kb, repo.root) == [("stale-doc", "site-src/runbooks/pool.md")]


@pytest.mark.parametrize("value", ["./site-src", "site-src/"])
def test_kb_init_writes_into_the_docs_folder_however_it_is_written(kb, tmp_path, monkeypatch, value):
    repo = GitRepo(tmp_path / "team")
    repo.write("mkdocs.yml", f"site_name: Team\ndocs_dir: {value}\n")
    repo.write("site-src/runbook.md", "# Ours\n")
    repo.commit("The team's site", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    result = kb("init")
    assert result.code == 0, result.err
    assert (repo.root / "site-src/about.md").is_file() and not (repo.root / "docs").exists()
