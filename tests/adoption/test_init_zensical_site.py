"""`kb init --site zensical` in a repository whose Zensical site is the team's own (its zensical.toml,
docs folder, nav and pages; no kb settings): it shows the change the file needs as a diff and changes
nothing, or makes it with `--merge` keeping every other byte; the knowledge base's pages go into a
folder of the team's docs (`kb/`, or the next free name when the team has a `kb/` of its own), where
`kb render` writes them; a real `zensical build` has the record pages and every team page. It writes
nothing of its own into the team's docs. A configuration that already loads kb's pages is said to
show the knowledge base already, and is not changed."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from ..conftest import one_fast
from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")

ZENSICAL = Path(sys.executable).parent / "zensical"

# The team's site: a custom docs folder, an explicit nav, comments, a theme table after [project].
TEAM_TOML = """\
# The payments team's docs (hand-kept: keep the comments)
[project]
site_name = "Payments docs"   # shown in the header
docs_dir = "handbook"
repo_url = "https://git.example.invalid/payments/docs"
edit_uri = "edit/main/handbook/"
nav = [
  { "Home" = "index.md" },  # our home page
  { "Runbooks" = [
      "runbooks/pool.md",
  ] },
  "faq.md"   # the last entry, no comma after it
]

# Our look
[project.theme]
features = ["navigation.sections", "content.action.edit"]
"""

NAV_END = '''  "faq.md"   # the last entry, no comma after it
]
'''
KB_NAV = ('{ "Knowledge base" = ["kb/index.md", { "Knobs" = "kb/knobs/index.md" }, '
          '{ "Incidents" = "kb/incidents/index.md" }, { "Tags" = "kb/tags.md" }] }')
MERGED_NAV_END = f'''  "faq.md",   # the last entry, no comma after it
  {KB_NAV},
]
extra_css = ["kb/assets/incident-kb/kb.css"]
extra_javascript = ["kb/assets/incident-kb/kb.js"]
'''
THEME_END = 'features = ["navigation.sections", "content.action.edit"]\n'
MERGED_THEME_END = THEME_END + ('custom_dir = "kb-site/theme"   # kb render writes an override here: record pages\' '
                                'edit buttons open their YAML\n')
MERGED_TABLES = r"""
[project.plugins.search]
# Split on '_' too (a setting's short name finds its page), and on '+', '%' and '−'
separator = '[\s\-_,:!=\[\]()"/+%−]+|\.(?!\d)'
[project.plugins.tags]
"""

# The same site as simply as Zensical allows: docs/ by default, no nav (Zensical lists the pages).
PLAIN_TOML = '[project]\nsite_name = "Payments docs"\n'

PAGES = {"index.md": "# Payments\n\nOur home page.\n",
         "runbooks/pool.md": "# Pool\n\nSet `PAYMENTS_DB_POOL_SIZE` to 50.\n", "faq.md": "# FAQ\n\nAsk us.\n"}


def team_repo(root: Path, toml: str, docs: str) -> GitRepo:
    repo = GitRepo(root)
    repo.write("zensical.toml", toml)
    for rel, text in PAGES.items():
        repo.write(f"{docs}/{rel}", text)
    repo.commit("The team's docs", "2026-11-01T00:00:00Z")
    return repo


@pytest.fixture
def team(tmp_path, monkeypatch):
    repo = team_repo(tmp_path / "payments", TEAM_TOML, "handbook")
    monkeypatch.chdir(repo.root)
    return repo.root


def test_without_merge_it_shows_the_change_and_writes_nothing_into_the_team_docs(kb, team):
    result = kb("init", "--site", "zensical")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert (team / "zensical.toml").read_text() == TEAM_TOML
    # It said the file "shows the knowledge base already", and wrote kb's about.md into the team's docs.
    assert "  kept    zensical.toml (kb init --merge adds the knowledge base to it)" in lines
    assert sorted(p.relative_to(team / "handbook").as_posix() for p in (team / "handbook").rglob("*")
                  if p.is_file()) == sorted(PAGES)
    assert ("zensical.toml does not show the knowledge base yet; kb init --merge makes this change (under kb/ in "
            "handbook/, beside your pages):") in lines
    shown = "\n".join(lines)
    assert '+extra_css = ["kb/assets/incident-kb/kb.css"]' in shown
    assert '+  { "Knowledge base" = ["kb/index.md", { "Knobs" = "kb/knobs/index.md" }' in shown
    next_steps = lines[lines.index("next:") + 1:]
    assert next_steps[0] == "  kb init --site zensical --merge   # adds the knowledge base to zensical.toml as shown"
    assert next_steps[-1] == ("  kb render && zensical serve   # the site (the knowledge base under kb/); kb render "
                              "again after editing a record")
    assert (team / ".gitignore").read_text() == "site/\n.cache/\n.*.tmp\nkb-site/\nhandbook/kb/\n"
    workflow = (team / ".github/workflows/kb-check.yml").read_text()
    assert "run: kb render && zensical build\n" in workflow


def test_merge_adds_the_settings_keeping_every_other_byte(kb, team):
    result = kb("init", "--site", "zensical", "--merge")
    assert result.code == 0, result.err
    assert "  added   the knowledge base to zensical.toml (its comments and order kept)" in result.out.splitlines()
    text = (team / "zensical.toml").read_text()
    # Every byte of the team's file kept, in order: the last nav entry gains the comma it lacked (its
    # comment stays on its line); each addition goes at the end of its array, of [project]'s keys, of the file.
    assert text == TEAM_TOML.replace(NAV_END, MERGED_NAV_END).replace(THEME_END, MERGED_THEME_END) + MERGED_TABLES
    before, after = tomllib.loads(TEAM_TOML)["project"], tomllib.loads(text)["project"]
    assert after["nav"][:-1] == before["nav"] and after["theme"] == {**before["theme"], "custom_dir": "kb-site/theme"}
    again = kb("init", "--site", "zensical")
    assert again.code == 0 and "  kept    zensical.toml (it shows the knowledge base already)" in again.out.splitlines()
    assert (team / "zensical.toml").read_text() == text


def test_a_team_kb_folder_is_kept_and_the_knowledge_base_goes_beside_it(kb, team):
    (team / "handbook/kb").mkdir()
    (team / "handbook/kb/intro.md").write_text("# Our own kb notes\n")
    result = kb("init", "--site", "zensical", "--merge")
    assert result.code == 0, result.err
    assert 'extra_css = ["knowledge-base/assets/incident-kb/kb.css"]' in (team / "zensical.toml").read_text()
    assert "the knowledge base under knowledge-base/" in result.out
    assert kb("render").code == 0
    assert (team / "handbook/knowledge-base/index.md").is_file()
    assert (team / "handbook/kb/intro.md").read_text() == "# Our own kb notes\n"


def test_a_configuration_with_kbs_settings_already_is_said_to_show_it(kb, tmp_path, monkeypatch):
    toml = TEAM_TOML.replace('docs_dir = "handbook"\n',
                             'docs_dir = "handbook"\nextra_css = ["kb/assets/incident-kb/kb.css"]\n')
    repo = team_repo(tmp_path / "payments", toml, "handbook")
    monkeypatch.chdir(repo.root)
    result = kb("init", "--site", "zensical", "--merge")
    assert result.code == 0, result.err
    assert "  kept    zensical.toml (it shows the knowledge base already)" in result.out.splitlines()
    assert (repo.root / "zensical.toml").read_text() == toml


def test_a_starter_zensical_toml_shows_it_already(kb, tmp_path, monkeypatch):
    """kb init --site zensical run twice: the file it wrote itself shows the knowledge base."""
    GitRepo(tmp_path / "new")
    monkeypatch.chdir(tmp_path / "new")
    assert kb("init", "--site", "zensical").code == 0
    again = kb("init", "--site", "zensical")
    assert again.code == 0 and "  kept    zensical.toml (it shows the knowledge base already)" in again.out.splitlines()


def test_crlf_line_endings_are_kept(kb, tmp_path, monkeypatch):
    toml = PLAIN_TOML.replace("\n", "\r\n") + 'nav = ["index.md"]\r\n'
    repo = team_repo(tmp_path / "payments", toml, "docs")
    monkeypatch.chdir(repo.root)
    assert kb("init", "--site", "zensical", "--merge").code == 0
    text = (repo.root / "zensical.toml").read_bytes().decode()
    assert text.startswith('[project]\r\nsite_name = "Payments docs"\r\nnav = ["index.md", { "Knowledge base" = [')
    assert "\n" not in text.replace("\r\n", "") and text.endswith("\r\n[project.plugins.tags]\r\n")


def test_a_shape_it_cannot_add_to_line_by_line_gets_the_lines_by_hand(kb, tmp_path, monkeypatch):
    toml = 'project = { site_name = "Payments docs" }\n'  # [project] as an inline table
    repo = team_repo(tmp_path / "payments", toml, "docs")
    monkeypatch.chdir(repo.root)
    refused = kb("init", "--site", "zensical", "--merge")
    assert refused.code == 2 and "kb init --merge cannot add the knowledge base to zensical.toml line by line " \
        "(its [project] table is not written as a [project] header)" in refused.err
    result = kb("init", "--site", "zensical")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert ("zensical.toml needs these settings to show the knowledge base under kb/ in docs/ (kb init --merge "
            "cannot add them: its [project] table is not written as a [project] header):") in lines
    assert '  extra_css = ["kb/assets/incident-kb/kb.css"]' in lines


def test_kb_render_without_kbs_settings_says_what_to_do(kb, team):
    assert kb("init", "--site", "zensical").code == 0
    result = kb("render")
    assert result.code == 2
    assert "zensical.toml does not show the knowledge base (its extra_css loads no assets/incident-kb/kb.css)" \
        in result.err and "kb init --site zensical --merge" in result.err


# A team's own markdown_extensions table replaces Zensical's defaults: the pages' two are added to it.
EXTENSIONS_TOML = PLAIN_TOML + "[project.markdown_extensions]\ntoc = { permalink = true }\n"


@pytest.mark.parametrize("toml, docs", one_fast([(TEAM_TOML, "handbook"), (PLAIN_TOML, "docs"),
                                                 (EXTENSIONS_TOML, "docs")]))
def test_zensical_builds_the_record_pages_and_every_team_page(kb, tmp_path, monkeypatch, toml, docs):
    """The README's steps: kb init --site zensical --merge, a knob, kb render, zensical build."""
    repo = team_repo(tmp_path / "payments", toml, docs)
    monkeypatch.chdir(repo.root)
    assert kb("init", "--site", "zensical", "--merge").code == 0
    assert kb("new", "knob", "payments-db-pool-size", "--name", "PAYMENTS_DB_POOL_SIZE", "--summary",
              "Checkout DB pool size", "--value", "50").code == 0
    repo.commit("A knowledge base beside our docs", "2026-11-02T00:00:00Z")
    assert repo.git("status", "--porcelain") == ""
    before = {p: p.read_bytes() for p in (repo.root / docs).rglob("*") if p.is_file()}
    rendered = kb("render")
    assert rendered.code == 0, rendered.err
    assert {p: p.read_bytes() for p in before} == before  # no team page touched
    assert repo.git("status", "--porcelain") == ""  # what kb render wrote is ignored by git
    build = subprocess.run([str(ZENSICAL), "build"], cwd=repo.root, capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    assert "No issues found" in build.stdout + build.stderr, build.stdout + build.stderr
    site = repo.root / "site"
    knob = (site / "kb/knobs/payments-db-pool-size/index.html").read_text()
    assert "Checkout DB pool size" in knob and '<span class="kb-badge kb-status-active">active</span>' in knob
    assert 'href="../../assets/incident-kb/kb.css"' in knob  # site/kb/assets/: the style sheet applies
    for page in ("", "runbooks/pool/", "faq/", "kb/", "kb/knobs/", "kb/incidents/", "kb/tags/"):
        assert (site / page / "index.html").is_file(), page
    assert "Our home page." in (site / "index.html").read_text()
    if "nav = [" in toml:  # the explicit nav reaches the knowledge base
        assert 'href="./kb/knobs/"' in (site / "index.html").read_text()
    if "edit_uri" in toml:  # the edit button opens the record's YAML (kb render's theme override), a page's its page
        assert 'href="https://git.example.invalid/payments/docs/edit/main/knobs/payments-db-pool-size.yaml"' in knob
        assert 'href="https://git.example.invalid/payments/docs/edit/main/handbook/faq.md"' in (
            site / "faq/index.html").read_text()
    if "markdown_extensions" in toml:  # admonition and attr_list: the pages' boxes and badges render
        assert set(tomllib.loads((repo.root / "zensical.toml").read_text())["project"]["markdown_extensions"]) == {
            "toc", "admonition", "attr_list"}


def test_kb_render_keeps_its_manifest_rule_in_the_team_folder(kb, team):
    """Into the folder beside the team's pages, kb render removes only the pages it wrote (a deleted
    record's), never a page someone put there, and replaces none."""
    assert kb("init", "--site", "zensical", "--merge").code == 0
    for knob in ("pool-size", "timeout"):
        assert kb("new", "knob", knob, "--name", knob.upper().replace("-", "_"), "--summary", "A setting",
                  "--value", "5").code == 0
    assert kb("render").code == 0
    (team / "handbook/kb/notes.md").write_text("# Our notes\n")
    (team / "knobs/timeout.yaml").unlink()
    assert kb("render").code == 0
    assert not (team / "handbook/kb/knobs/timeout.md").exists() and (team / "handbook/kb/knobs/pool-size.md").exists()
    assert (team / "handbook/kb/notes.md").read_text() == "# Our notes\n"
    (team / "handbook/kb/knobs/retries.md").write_text("# Ours\n")  # where a new record's page would go
    assert kb("new", "knob", "retries", "--name", "RETRIES", "--summary", "A setting", "--value", "3").code == 0
    refused = kb("render")
    assert refused.code == 2 and "exists and was not written by kb render; it is never replaced" in refused.err
    assert (team / "handbook/kb/knobs/retries.md").read_text() == "# Ours\n"


@pytest.mark.parametrize("merge", [False, True])
def test_plain_kb_init_beside_a_zensical_toml_alone_takes_zensical(kb, team, merge, monkeypatch):
    """Without --site, a zensical.toml and no MkDocs configuration mean the team's Zensical site:
    no mkdocs.yml is started beside it, and the lines are those of --site zensical."""
    options = ("--merge",) if merge else ()
    result = kb("init", *options)
    assert result.code == 0, result.err
    assert not (team / "mkdocs.yml").exists()
    explicit_team = team_repo(team.parent / "explicit", TEAM_TOML, "handbook")
    monkeypatch.chdir(explicit_team.root)
    explicit = kb("init", "--site", "zensical", *options)
    assert result.out == explicit.out
    assert (team / "zensical.toml").read_text() == (explicit_team.root / "zensical.toml").read_text()
    assert ("extra_css" in (team / "zensical.toml").read_text()) is merge


@pytest.mark.parametrize("beside", ["mkdocs.yml", "properdocs.yml"])
def test_an_mkdocs_configuration_beside_a_zensical_toml_keeps_mkdocs(kb, team, beside):
    (team / beside).write_text("site_name: Payments\ndocs_dir: handbook\n")
    result = kb("init")
    assert result.code == 0, result.err
    assert f"for the site of {beside}" in result.out and (team / "zensical.toml").read_text() == TEAM_TOML
    assert "kb render && zensical build" not in (team / ".github/workflows/kb-check.yml").read_text()
