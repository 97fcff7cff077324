"""One docs folder: the check reads the docs folder the site renders (`docs_dir` of mkdocs.yml or
properdocs.yml, or `docs-dir` under [tool.incident-kb]), decided in records/docs_folder.py, so
stale-doc covers it in every mode (plain, cached, --staged, --base), and a folder it cannot use is a
finding, never a silent fallback."""

from __future__ import annotations

import json

import pytest

from incident_kb.settings.docs_folder import docs_folder

from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")

RUNBOOK = "# Pool\n\nSet `PAYMENTS_DB_POOL_SIZE` to 50 for checkout.\n"


def stale(kb, root, *extra) -> list[tuple[str, str]]:
    result = kb("check", "--root", root, "--format", "json", *extra)
    return [(f["code"], f["path"]) for f in json.loads(result.out)["findings"]
            if f["code"] in ("stale-doc", "bad-config")]


def payments_team(kb, tmp_path, config: str = "mkdocs.yml", docs_dir: str = "site-src") -> GitRepo:
    """A knob whose value changed after a runbook under site-src/ described it; `config` names
    the docs folder as `docs_dir` (which may be written any way the file allows)."""
    repo = GitRepo(tmp_path / "payments")
    root = repo.root
    repo.write(config, f"site_name: Payments\ndocs_dir: {docs_dir}\n")
    repo.write("site-src/runbooks/pool.md", RUNBOOK)
    (root / "knobs").mkdir()
    assert kb("new", "knob", "payments-db-pool-size", "--name", "PAYMENTS_DB_POOL_SIZE", "--summary", "Pool size",
              "--value", "50", "--root", root).code == 0
    repo.commit("Pool at 50, and its runbook", "2026-11-01T00:00:00Z")
    assert kb("set", "payments-db-pool-size", "80", "--note", "more connections", "--root", root).code == 0
    repo.commit("Pool at 80", "2026-11-02T00:00:00Z")
    return repo


@pytest.fixture
def team(kb, tmp_path):
    return payments_team(kb, tmp_path)


def test_stale_doc_covers_the_docs_folder_the_site_renders(kb, team):
    assert stale(kb, team.root) == [("stale-doc", "site-src/runbooks/pool.md")]
    assert stale(kb, team.root) == [("stale-doc", "site-src/runbooks/pool.md")]  # warm: the same


@pytest.mark.parametrize("config", ["properdocs.yml", "mkdocs.yaml"])
def test_properdocs_yml_and_mkdocs_yaml_say_where_the_docs_are_too(kb, team, config):
    (team.root / "mkdocs.yml").rename(team.root / config)
    assert docs_folder(team.root).rel_path == "site-src"
    assert stale(kb, team.root) == [("stale-doc", "site-src/runbooks/pool.md")]


def test_a_changed_docs_dir_changes_a_remembered_result(kb, team):
    assert stale(kb, team.root) == [("stale-doc", "site-src/runbooks/pool.md")]
    (team.root / "mkdocs.yml").write_text("site_name: Payments\ndocs_dir: elsewhere\n")
    assert stale(kb, team.root) == []
    (team.root / "mkdocs.yml").write_text("site_name: Payments\ndocs_dir: site-src\n")
    assert stale(kb, team.root) == [("stale-doc", "site-src/runbooks/pool.md")]


def test_a_setting_under_tool_incident_kb_names_the_docs_folder(kb, team):
    (team.root / "mkdocs.yml").unlink()  # a site configured elsewhere (a plugin's root: pointing here)
    assert stale(kb, team.root) == []
    (team.root / "pyproject.toml").write_text('[tool.incident-kb]\ndocs-dir = "site-src"\n')
    assert stale(kb, team.root) == [("stale-doc", "site-src/runbooks/pool.md")]
    assert kb("check", "--root", team.root).err == ""  # docs-dir is a known setting, not a typo of a code


@pytest.mark.parametrize("docs_dir", ["../shared-docs", "/somewhere/else"])
def test_a_docs_folder_outside_the_knowledge_base_is_a_finding(kb, team, docs_dir):
    (team.root / "mkdocs.yml").write_text(f"site_name: Payments\ndocs_dir: {docs_dir}\n")
    result = kb("check", "--root", team.root, "--format", "json")
    [problem] = [f for f in json.loads(result.out)["findings"] if f["code"] == "bad-config"]
    assert problem["path"] == "mkdocs.yml" and f"docs_dir in mkdocs.yml is {docs_dir}, outside the knowledge base" \
        in problem["message"]
    assert "docs-dir under [tool.incident-kb]" in problem["message"]


def test_pr_mode_reads_the_docs_folder_of_the_base(kb, team):
    # The runbook was stale at the base already: today's finding is pre-existing, not new (were the
    # base's site-src/ not read, it would be new and fail the run).
    team.write("site-src/other.md", "# Another page\n")
    team.commit("Another page", "2026-11-03T00:00:00Z")
    result = kb("check", "--root", team.root, "--base", "HEAD~1", "--format", "json")
    [found] = [f for f in json.loads(result.out)["findings"] if f["code"] == "stale-doc"]
    assert found["path"] == "site-src/runbooks/pool.md" and found["message"].startswith("pre-existing at HEAD~1")
    assert result.code == 0


def test_staged_mode_sees_a_commit_that_touches_only_the_docs_folder(kb, team):
    team.write("site-src/runbooks/pool.md", RUNBOOK.replace("50", "80"))
    team.git("add", "-A")
    staged = kb("check", "--staged", "--root", team.root)
    assert "touches no file of the knowledge base" not in staged.out and staged.code == 0
    team.commit("Runbook updated", "2026-11-03T00:00:00Z")
    assert stale(kb, team.root) == []
    team.write("site-src/index.md", "# Home\n")
    team.git("add", "-A")
    assert "touches no file" not in kb("check", "--staged", "--root", team.root).out
    team.write("src.py", "x = 1\n")
    team.git("reset", "-q")
    team.git("add", "src.py")
    assert "touches no file of the knowledge base" in kb("check", "--staged", "--root", team.root).out
