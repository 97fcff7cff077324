"""`kb init` in a repository that already has a site: it says exactly what the site's configuration
must add (the plugin, the search separator, tags, nav entries), or adds it with `--merge` keeping
every other byte; without `--merge` it never changes the file. It writes into the docs folder the
site renders, ignores the site's own site_dir, triggers the workflow on the current branch, and
knows properdocs.yml. Also: `kb init NEWDIR` outside a repository creates the folder."""

from __future__ import annotations

import os
import subprocess

import pytest
from ruamel.yaml import YAML

from incident_kb.adoption.site_merge import SEARCH_SEPARATOR as MERGED_SEPARATOR
from incident_kb.website.core.bundle import SEARCH_SEPARATOR

from ..conftest import one_fast
from ..gitrepo import GitRepo

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
    assert_runs_on_the_default_branch(team / ".github/workflows/kb-check.yml")


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


def test_a_plugins_list_written_inline_is_merged_one_item_a_line(kb, team, tmp_path):
    """`plugins: [search, tags]` was refused by --merge: it is written one item a line, then added to."""
    from ..site_support import try_build_site

    (team / "overrides").mkdir()
    (team / "mkdocs.yml").write_text(TEAM_CONFIG.replace("plugins:\n  - search\n"
                                                         "  - tags   # our tags page lists them\n",
                                                         "plugins: [search, tags]   # ours\n"))
    assert kb("init", "--merge").code == 0
    text = (team / "mkdocs.yml").read_text()
    assert "plugins:   # ours\n  - search:\n      separator: " in text and "  - tags\n  - incident-kb:\n" in text
    failure, logged = try_build_site(team, tmp_path / "out")
    assert failure is None, logged


def test_an_inline_list_kb_cannot_rewrite_is_refused_and_the_printed_lines_build(kb, team, tmp_path):
    """An inline list holding a mapping stays refused; the plugins: lines printed instead build."""
    from ..site_support import try_build_site

    (team / "overrides").mkdir()
    (team / "mkdocs.yml").write_text(TEAM_CONFIG.replace("plugins:\n  - search\n"
                                                         "  - tags   # our tags page lists them\n",
                                                         "plugins: [search, {tags: {}}]\n"))
    before = (team / "mkdocs.yml").read_text()
    refused = kb("init", "--merge")
    assert refused.code == 2 and "its plugins: is a list written inline" in refused.err
    assert (team / "mkdocs.yml").read_text() == before and not (team / "knobs").exists()
    shown = kb("init")
    assert shown.code == 0 and "add the lines above to mkdocs.yml" in shown.out
    lines = shown.out.splitlines()
    start = lines.index("  plugins:")
    printed = [line[2:] for line in lines[start:] if line.startswith("  ") and not line.startswith("  kb ")]
    printed = printed[:next(i for i, line in enumerate(printed) if line.startswith("add ") or not line.strip())] \
        if any(line.startswith("add ") for line in printed) else printed
    block = "\n".join(line for line in printed if line.startswith(("plugins:", " ")))
    (team / "mkdocs.yml").write_text(before.replace("plugins: [search, {tags: {}}]\n", block + "\n"))
    failure, logged = try_build_site(team, tmp_path / "out")
    assert failure is None, logged


def test_properdocs_yml_is_the_site_and_no_mkdocs_yml_is_written(kb, team):
    os.rename(team / "mkdocs.yml", team / "properdocs.yml")
    assert kb("init").code == 0
    assert not (team / "mkdocs.yml").exists()
    workflow = YAML(typ="safe").load((team / ".github/workflows/kb-check.yml").read_text())
    assert workflow["jobs"]["kb-check"]["steps"][-1]["run"] == "properdocs build --strict"
    result = kb("init", "--merge")
    assert result.code == 0 and not (team / "mkdocs.yml").exists()
    assert "  - incident-kb:" in (team / "properdocs.yml").read_text()
    assert result.out.splitlines()[-1] == ("  properdocs serve   # the site (the knowledge base under kb/), "
                                           "rebuilt as you edit")


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


SHAPES = {  # plugins and nav as MkDocs reads them, written in ways teams write them
    "plugins as a mapping": "plugins:\n  search: {}   # ours\n  tags: {}\nnav:\n  - Home: index.md\n",
    "plugins as a mapping with options": "plugins:\n  search:\n    lang: en\n",
    "a bare search with a comment": "plugins:\n  - search   # the default\n  - tags\n",
    "unindented dashes": "plugins:\n- search\n- tags\nnav:\n- Home: index.md\n",
    "wide dashes": "plugins:\n    -   search\n    -   tags\nnav:\n    -   Home: index.md\n",
    "a plugins key with nothing under it": "plugins:\nnav:\n  - Home: index.md\n",
    "no plugins, no nav": "",
    "tags MkDocs allows": ("plugins:\n  - search\nextra:\n  id: !ENV [ANALYTICS_ID, 'none']\nmarkdown_extensions:\n"
                           "  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"),
}


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
def test_merge_reads_back_as_the_team_wrote_it_plus_the_knowledge_base(kb, tmp_path, monkeypatch, shape, crlf):
    from incident_kb.settings.config_files import site_yaml

    repo = GitRepo(tmp_path / "team")
    config = "site_name: Team\ntheme:\n  name: material\n" + SHAPES[shape]
    if crlf:
        config = config.replace("\n", "\r\n")
    (repo.root / "mkdocs.yml").write_bytes(config.encode())
    repo.write("docs/index.md", "# Home\n")
    repo.commit("The team's site", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    result = kb("init", "--merge")
    assert result.code == 0, result.err
    text = (repo.root / "mkdocs.yml").read_bytes().decode()
    assert text.count("\n") == text.count("\r\n") if crlf else "\r" not in text  # one line ending, the file's
    before, after = site_yaml(config), site_yaml(text)
    assert {key: value for key, value in after.items() if key not in ("plugins", "nav")} == \
        {key: value for key, value in before.items() if key not in ("plugins", "nav")}
    plugins = after["plugins"]
    options = dict(plugins) if isinstance(plugins, dict) else \
        {next(iter(item)) if isinstance(item, dict) else item:
         (next(iter(item.values())) if isinstance(item, dict) else {})
         for item in plugins}
    assert (options["search"] or {}).get("separator") == SEARCH_SEPARATOR
    assert options["incident-kb"] == {"prefix": "kb"} and "tags" in options
    if "lang: en" in config:
        assert options["search"]["lang"] == "en"
    for line in config.splitlines():  # every line kept, but the search plugin's (which gains a colon)
        assert line in text.splitlines() or "search" in line or line == "plugins:" and "plugins:\n" not in config
    assert kb("init", "--merge").code == 0 and (repo.root / "mkdocs.yml").read_bytes().decode() == text


def test_merged_shapes_build_strict(kb, tmp_path, monkeypatch):
    """The merged file is one MkDocs builds (a wide-dash list whose options landed beside the plugin's
    name made `Invalid Plugins configuration`)."""
    from ..site_support import try_build_site

    repo = GitRepo(tmp_path / "team")
    config = ("site_name: Team\r\ntheme:\r\n  name: material\r\nplugins:\r\n    -   search   # ours\r\n"
              "    -   tags\r\nnav:\r\n    -   Home: index.md\r\n")
    (repo.root / "mkdocs.yml").write_bytes(config.encode())
    repo.write("docs/index.md", "# Home\n")
    repo.commit("The team's site", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    assert kb("init", "--merge").code == 0
    failure, logged = try_build_site(repo.root, tmp_path / "out")
    assert failure is None, logged


def test_a_search_plugin_with_inline_options_is_refused_by_merge_unchanged(kb, team):
    (team / "mkdocs.yml").write_text(TEAM_CONFIG.replace("  - search\n", "  - search: {lang: en}\n"))
    before = (team / "mkdocs.yml").read_bytes()
    refused = kb("init", "--merge")
    assert refused.code == 2 and "its search plugin's options are written inline" in refused.err
    assert (team / "mkdocs.yml").read_bytes() == before


@pytest.mark.parametrize("page", ["README.md", "knobs.md", "tags/index.md", "incidents.markdown"])
def test_a_page_that_builds_where_the_knowledge_base_would_puts_it_under_kb(kb, tmp_path, monkeypatch, page):
    repo = GitRepo(tmp_path / "team")
    repo.write("mkdocs.yml", "site_name: Team\ntheme:\n  name: material\n")
    repo.write(f"docs/{page}", "# Ours\n")
    repo.commit("The team's site", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    assert kb("init", "--merge").code == 0
    assert "      prefix: kb\n" in (repo.root / "mkdocs.yml").read_text()


def test_a_docs_folder_with_other_pages_only_keeps_the_knowledge_base_at_its_top(kb, tmp_path, monkeypatch):
    repo = GitRepo(tmp_path / "team")
    repo.write("mkdocs.yml", "site_name: Team\ntheme:\n  name: material\n")
    repo.write("docs/runbooks.md", "# Ours\n")
    repo.commit("The team's site", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    assert kb("init", "--merge").code == 0
    assert "  - incident-kb\n" in (repo.root / "mkdocs.yml").read_text()


def assert_runs_on_the_default_branch(path) -> None:
    """The workflow runs on every pull request and on pushes to the default branch, whatever it is
    called: no branch name is written (a repository made with `git init` on `master` and pushed as
    `main` got no push runs), and the job is gated on GitHub's own default branch."""
    text = path.read_text()
    workflow = YAML(typ="safe").load(text)
    assert set(workflow["on"]) == {"pull_request", "push"} and not workflow["on"]["push"]
    assert not workflow["on"]["pull_request"]  # every base branch
    [job] = workflow["jobs"].values()
    assert job["if"] == ("github.event_name == 'pull_request' || "
                         "github.ref_name == github.event.repository.default_branch")
    assert "branches" not in text


@pytest.mark.parametrize("state", ["detached", "detached with another branch", "no commits yet"])
def test_the_workflow_runs_on_the_branch_the_repository_works_on(kb, tmp_path, monkeypatch, state):
    """On a detached HEAD the workflow named git's default branch (`master`), which the repository
    does not have; on `trunk` it named `trunk`, and the repository pushed as `main` got no push runs."""
    repo = GitRepo(tmp_path / "team")
    repo.git("checkout", "-q", "-b", "trunk")
    if state != "no commits yet":
        repo.write("README.md", "# Team\n")
        repo.commit("One", "2026-11-01T00:00:00Z")
        repo.write("README.md", "# Team, two\n")
        repo.commit("Two", "2026-11-02T00:00:00Z")
        if state == "detached with another branch":
            repo.git("branch", "-q", "old-work", "HEAD~1")
        repo.git("checkout", "-q", "--detach", "HEAD")
    monkeypatch.chdir(repo.root)
    assert kb("init").code == 0
    assert_runs_on_the_default_branch(repo.root / ".github/workflows/kb-check.yml")


INHERITED = {  # the parent's plugins: and nav:, in the shapes teams write them
    "a list": "theme:\n  name: material\nplugins:\n  - search\n  - tags\nnav:\n  - Home: index.md\n",
    "a mapping": "theme:\n  name: material\nplugins:\n  search: {}   # ours\n  tags: {}\nnav:\n  - Home: index.md\n",
    "plugins only": "theme:\n  name: material\nplugins:\n  search:\n    lang: en\n",
}


# Each case builds the site: the mapping (with nav) runs in `make test-fast`, the others in the full suite.
@pytest.mark.parametrize("shape", one_fast(INHERITED, fast="a mapping"), ids=list(INHERITED))
def test_lists_an_inherit_parent_sets_are_shown_as_the_parents_change_which_builds(kb, tmp_path, monkeypatch, shape):
    """MkDocs replaces an inherited list: a plugins: list merged into the child dropped the parent's
    plugins. --merge refuses (the file unchanged); kb init prints the parent's change in its own style
    (a mapping stays a mapping), nav entries included, and the printed diff applied with `patch` builds."""
    from ..site_support import try_build_site

    repo = GitRepo(tmp_path / "team")
    repo.write("base.yml", INHERITED[shape])
    repo.write("mkdocs.yml", "INHERIT: base.yml\nsite_name: Team\n")
    repo.write("docs/index.md", "# Home\n")
    repo.commit("The team's site", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    refused = kb("init", "--merge")
    assert refused.code == 2 and "INHERIT" in refused.err and "base.yml" in refused.err
    assert (repo.root / "mkdocs.yml").read_text() == "INHERIT: base.yml\nsite_name: Team\n"
    shown = kb("init")
    assert shown.code == 0 and "  add the lines above to base.yml" in shown.out.splitlines()
    lines = shown.out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("mkdocs.yml inherits from base.yml"))
    diff = [line[2:] for line in lines[start + 1:lines.index("next:")]]
    if "a mapping" in shape:
        assert "+  incident-kb:" in diff and not any(line.startswith("+  - incident-kb") for line in diff)
    if "nav" in INHERITED[shape]:
        assert "+      - Knobs: kb/knobs/index.md" in diff
    subprocess.run(["patch", "-s", "base.yml"], input="\n".join(diff) + "\n", text=True, check=True,
                   cwd=repo.root)
    assert (repo.root / "mkdocs.yml").read_text() == "INHERIT: base.yml\nsite_name: Team\n"
    failure, logged = try_build_site(repo.root, tmp_path / "out")
    assert failure is None, logged
    assert (tmp_path / "out/kb/knobs/index.html").is_file()
    again = kb("init", "--merge")
    assert again.code == 0 and "base.yml, which mkdocs.yml inherits from" not in again.out


def test_an_inherit_parent_that_sets_neither_plugins_nor_nav_is_merged_into_the_child(kb, tmp_path, monkeypatch):
    from ..site_support import try_build_site

    repo = GitRepo(tmp_path / "team")
    repo.write("base.yml", "theme:\n  name: material\nmarkdown_extensions:\n  - admonition\n")
    repo.write("mkdocs.yml", "INHERIT: base.yml\nsite_name: Team\n")
    repo.write("docs/index.md", "# Home\n")
    repo.commit("The team's site", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    result = kb("init", "--merge")
    assert result.code == 0, result.err
    text = (repo.root / "mkdocs.yml").read_text()
    assert text.startswith("INHERIT: base.yml\nsite_name: Team\nplugins:\n") and "  - tags\n" in text
    failure, logged = try_build_site(repo.root, tmp_path / "out")
    assert failure is None, logged
    assert (tmp_path / "out/kb/knobs/index.html").is_file()


MERGE_KEYS = {  # a YAML merge key (`<<: *base`) at the top, or inside plugins: (issue 30, item 10)
    "after the plugins": ("extra:\n  shared: &base\n    site_name: Team\n    theme:\n      name: material\n"
                          "plugins:\n  - search\n<<: *base\n", 0),
    "before the plugins": ("extra:\n  shared: &base\n    site_name: Team\n    theme:\n      name: material\n"
                           "<<: *base\nplugins:\n  - search\n", 0),
    "no plugins at all": ("extra:\n  shared: &base\n    site_name: Team\n<<: *base\n", 0),
    "plugins from the merge key": ("base: &base\n  site_name: Team\n  plugins:\n    - search\n<<: *base\n", 2),
    "nav from the merge key": ("base: &base\n  site_name: Team\n  nav:\n    - index.md\n<<: *base\n", 2),
    "plugins mapping from a merge key": ("p: &p\n  search: {}\nsite_name: Team\nplugins:\n  <<: *p\n", 2),
    "search options from a merge key": ("p: &p\n  lang: en\nsite_name: Team\nplugins:\n  search:\n    <<: *p\n", 2),
}


# The merges that succeed build the site: one runs in `make test-fast`, the others in the full suite; the
# refusals build nothing and all run fast.
BUILT_SLOW = ("before the plugins", "no plugins at all")


@pytest.mark.parametrize("shape", [pytest.param(shape, marks=pytest.mark.slow if shape in BUILT_SLOW else ())
                                   for shape in MERGE_KEYS], ids=list(MERGE_KEYS))
def test_a_merge_key_is_merged_around_or_refused_in_one_line_never_a_crash(kb, tmp_path, monkeypatch, shape):
    """`<<: *base` at the top crashed --merge (KeyError: a merged key has no line of its own). A merged
    plugins: or nav: would be replaced by one written here: refused, the file unchanged."""
    from ..site_support import try_build_site

    config, code = MERGE_KEYS[shape]
    repo = GitRepo(tmp_path / "team")
    repo.write("mkdocs.yml", config)
    repo.write("docs/index.md", "# Home\n")
    repo.commit("The team's site", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    result = kb("init", "--merge")
    assert result.code == code, result.err
    text = (repo.root / "mkdocs.yml").read_text()
    if code:
        assert result.err.count("\n") == 1 and "merge key (<<:)" in result.err and text == config
        return
    assert all(line in text.splitlines() for line in config.splitlines() if "search" not in line)
    failure, logged = try_build_site(repo.root, tmp_path / "out")
    assert failure is None, logged


def test_merge_adds_to_the_file_a_link_inside_the_repository_leads_to(kb, tmp_path, monkeypatch):
    """mkdocs.yml a link to conf/mkdocs.yml: --merge was refused on every try ("changed while kb was
    writing it; run the command again"). The link stays a link; the file it leads to gains the lines."""
    from ..site_support import try_build_site

    repo = GitRepo(tmp_path / "team")
    repo.write("conf/mkdocs.yml", "site_name: Team\ntheme:\n  name: material\n")
    (repo.root / "mkdocs.yml").symlink_to("conf/mkdocs.yml")
    repo.write("docs/index.md", "# Home\n")
    repo.commit("The team's site", "2026-11-01T00:00:00Z")
    monkeypatch.chdir(repo.root)
    result = kb("init", "--merge")
    assert result.code == 0, result.err
    assert ("  added   the knowledge base to mkdocs.yml (its comments and order kept, through the link to "
            "conf/mkdocs.yml)") in result.out.splitlines()
    assert os.readlink(repo.root / "mkdocs.yml") == "conf/mkdocs.yml"
    assert "  - incident-kb:\n" in (repo.root / "conf/mkdocs.yml").read_text()
    failure, logged = try_build_site(repo.root, tmp_path / "out")
    assert failure is None, logged
    again = kb("init", "--merge")
    assert again.code == 0 and "  kept    mkdocs.yml (it shows the knowledge base already)" in again.out.splitlines()
