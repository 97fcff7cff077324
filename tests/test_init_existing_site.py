"""`kb init` in a repository that already has a site: it says exactly what the site's configuration
must add (the plugin, the search separator, tags, nav entries), or adds it with `--merge` keeping
every other byte; without `--merge` it never changes the file. It writes into the docs folder the
site renders, ignores the site's own site_dir, triggers the workflow on the current branch, and
knows properdocs.yml. Also: `kb init NEWDIR` outside a repository creates the folder."""

from __future__ import annotations

import os

import pytest
from ruamel.yaml import YAML

from generator.authoring.site_merge import SEARCH_SEPARATOR as MERGED_SEPARATOR
from generator.website.core.bundle import SEARCH_SEPARATOR

from .gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")

TEAM_CONFIG = """\
# The payments team's docs (hand-kept: keep the comments)
site_name: Payments docs
docs_dir: site-src
site_dir: build/site   # built here, not in site/
theme:
  name: material
  custom_dir: overrides
  features:
    - navigation.sections
extra:
  analytics: !ENV [ANALYTICS_ID, 'none']
plugins:
  - search
  - tags   # our tags page lists them
nav:
  - Home: index.md
  - Runbooks:
      - Pool: runbooks/pool.md
  - Tags: tags.md

# Extensions we rely on
markdown_extensions:
  - pymdownx.emoji:
      emoji_index: !!python/name:material.extensions.emoji.twemoji
"""


@pytest.fixture
def team(tmp_path, monkeypatch):
    repo = GitRepo(tmp_path / "payments")
    repo.git("checkout", "-q", "-b", "master")
    repo.write("mkdocs.yml", TEAM_CONFIG)
    repo.write("site-src/index.md", "# Payments\n")
    repo.write("site-src/tags.md", "# Tags\n\n<!-- material/tags -->\n")
    repo.write("site-src/runbooks/pool.md", "# Pool\n\nSet `PAYMENTS_DB_POOL_SIZE` to 50.\n")
    repo.commit("The team's docs", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    return repo.root


def test_without_merge_it_says_what_to_add_and_never_changes_the_site(kb, team):
    result = kb("init")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert (team / "mkdocs.yml").read_text() == TEAM_CONFIG
    assert "  kept    mkdocs.yml (kb init --merge adds the knowledge base to it)" in lines
    assert "  created site-src/kb/about.md" in lines and not (team / "docs").exists()
    shown = "\n".join(lines)
    assert "+  - search:" in shown and f"+      separator: '{SEARCH_SEPARATOR}'" in shown
    assert "+  - incident-kb:" in shown and "+      prefix: kb" in shown
    assert "+      - Knobs: kb/knobs/index.md" in shown
    next_steps = lines[lines.index("next:") + 1:]
    assert next_steps[0] == "  kb init --merge   # adds the knowledge base to mkdocs.yml as shown"
    assert next_steps[-1] == "  mkdocs serve   # the site (the knowledge base under kb/), rebuilt as you edit"
    assert (team / ".gitignore").read_text() == "build/site/\n.cache/\n.*.tmp\n"  # the site's own site_dir
    workflow = YAML(typ="safe").load((team / ".github/workflows/kb-check.yml").read_text())
    assert workflow["on"]["push"]["branches"] == ["master"]


def test_merge_adds_the_knowledge_base_keeping_every_other_byte(kb, team):
    assert kb("init", "--merge").code == 0
    text = (team / "mkdocs.yml").read_text()
    added = [line for line in text.splitlines() if line not in TEAM_CONFIG.splitlines()]
    assert added == ["  - search:", f"      separator: '{SEARCH_SEPARATOR}'", "  - incident-kb:", "      prefix: kb",
                     "  - Knowledge base:", "      - kb/index.md", "      - Knobs: kb/knobs/index.md",
                     "      - Incidents: kb/incidents/index.md", "      - Tags: kb/tags.md",
                     "      - About: kb/about.md"]
    removed = [line for line in TEAM_CONFIG.splitlines() if line not in text.splitlines()]
    assert removed == ["  - search"]
    assert text.startswith("# The payments team's docs (hand-kept: keep the comments)\n")
    assert "  - tags   # our tags page lists them\n  - incident-kb:" in text  # in order, after theirs
    assert "\n\n# Extensions we rely on\nmarkdown_extensions:" in text  # the comment before the next key stays
    config = YAML(typ="rt").load(text)
    assert list(config) == list(YAML(typ="rt").load(TEAM_CONFIG))
    again = kb("init", "--merge")
    assert again.code == 0 and (team / "mkdocs.yml").read_text() == text
    assert "  kept    mkdocs.yml (it shows the knowledge base already)" in again.out.splitlines()


@pytest.mark.parametrize("search, expected", [
    ("  - search:\n      lang: en\n", f"  - search:\n      separator: '{SEARCH_SEPARATOR}'\n      lang: en\n"),
    ("  - search:\n", f"  - search:\n      separator: '{SEARCH_SEPARATOR}'\n"),
    ("  - search:\n      separator: '[\\s\\-_]+'\n", "  - search:\n      separator: '[\\s\\-_]+'\n"),
])
def test_merge_adds_a_separator_only_where_none_is_set(kb, team, search, expected):
    config = TEAM_CONFIG.replace("  - search\n", search)
    (team / "mkdocs.yml").write_text(config)
    assert kb("init", "--merge").code == 0
    assert "plugins:\n" + expected + "  - tags" in (team / "mkdocs.yml").read_text()


def test_a_plugins_list_written_inline_is_refused_by_merge_and_shown_to_add_by_hand(kb, team):
    (team / "mkdocs.yml").write_text(TEAM_CONFIG.replace("plugins:\n  - search\n  - tags   # our tags page lists them\n",
                                                         "plugins: [search, tags]\n"))
    before = (team / "mkdocs.yml").read_text()
    refused = kb("init", "--merge")
    assert refused.code == 2 and "its plugins: is a list written inline" in refused.err
    assert (team / "mkdocs.yml").read_text() == before and not (team / "knobs").exists()
    shown = kb("init")
    assert shown.code == 0 and "    - incident-kb:" in shown.out and "add the lines above to mkdocs.yml" in shown.out


def test_properdocs_yml_is_the_site_and_no_mkdocs_yml_is_written(kb, team):
    os.rename(team / "mkdocs.yml", team / "properdocs.yml")
    assert kb("init").code == 0
    assert not (team / "mkdocs.yml").exists()
    workflow = YAML(typ="safe").load((team / ".github/workflows/kb-check.yml").read_text())
    assert workflow["jobs"]["kb-check"]["steps"][-1]["run"] == "properdocs build --strict"
    result = kb("init", "--merge")
    assert result.code == 0 and not (team / "mkdocs.yml").exists()
    assert "  - incident-kb:" in (team / "properdocs.yml").read_text()
    assert result.out.splitlines()[-1] == "  properdocs serve   # the site (the knowledge base under kb/), rebuilt as you edit"


def test_a_new_site_is_unchanged_and_a_second_run_finds_nothing_to_add(kb, tmp_path, monkeypatch):
    GitRepo(tmp_path / "team-kb")
    monkeypatch.chdir(tmp_path / "team-kb")
    assert kb("init").code == 0
    second = kb("init")
    assert "  kept    mkdocs.yml (it shows the knowledge base already)" in second.out.splitlines()
    assert "kb init --merge" not in second.out


def test_kb_init_creates_a_new_folder_outside_any_repository(kb, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = kb("init", "new/team-kb")
    assert result.code == 0, result.err
    assert (tmp_path / "new/team-kb/knobs/.gitkeep").is_file()
    assert (tmp_path / "new/team-kb/mkdocs.yml").is_file()
    assert "  git init new/team-kb   # the checks read git history" in result.out.splitlines()


def test_the_separator_kb_init_writes_is_the_plugins():
    assert MERGED_SEPARATOR == SEARCH_SEPARATOR
