"""A team's own pages are never replaced: a hand-written page at a path the knowledge base would
generate is kept, the build says so once (a warning, which `--strict` makes an error) with how to
place the knowledge base, and the knowledge base's home, with what needs action, always has a page.
For the MkDocs plugin (with and without `prefix:`) and for `kb render`'s whole docs folder."""

from __future__ import annotations

import re

import pytest

from incident_kb.website.core.links import SiteSettings
from incident_kb.website.core.placement import place_settings

from ..site_support import Site, copy_knowledge_base, try_build_site
from .test_site_build import local_links

KNOB = "knobs/sglang-sm120-mma-target-ctas"
TEAM_HOME = "# Payments\n\nOur own home page.\n"
TEAM_TAGS = "# Our tags\n\n<!-- material/tags -->\n"


def _with_plugin_options(root, options: str) -> None:
    config = root / "mkdocs.yml"
    text = config.read_text()
    assert "\n  - incident-kb\n" in text
    config.write_text(text.replace("\n  - incident-kb\n", f"\n  - incident-kb:\n{options}"))


def _warnings(log: str) -> list[str]:
    return [line for line in log.splitlines() if line.startswith("incident-kb: kept")]


@pytest.mark.slow
def test_a_hand_written_home_and_tags_page_are_kept_and_the_build_says_so(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "docs/index.md").write_text(TEAM_HOME)
    (root / "docs/tags.md").write_text(TEAM_TAGS)
    failure, log = try_build_site(root, tmp_path / "strict")
    assert failure is not None and "1 warnings in strict mode" in failure  # --strict: the warning is an error
    failure, log = try_build_site(root, tmp_path / "site", strict=False)
    assert failure is None, log
    [warning] = _warnings(log)  # once, naming each page kept and how to place the knowledge base
    assert "docs/index.md, docs/tags.md" in warning
    assert "home, with what needs action, is at needs-action.md" in warning
    assert "`prefix: kb`" in warning and "`home: false`" in warning
    site = Site(root, tmp_path / "site")
    assert "Our own home page" in site.html("")
    assert "Our tags" in site.html("tags")
    action = site.html("needs-action")
    assert "<h1" in action and "Knowledge base" in action
    assert "needs action" in action.lower()
    assert (tmp_path / "site" / KNOB / "index.html").is_file()


@pytest.mark.slow
def test_with_a_prefix_the_knowledge_base_has_a_folder_of_its_own(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "docs/index.md").write_text(TEAM_HOME + "\nSee the [design doc](design/DSV4_PD_DEADLOCK_ISSUE.md).\n")
    (root / "docs/tags.md").write_text(TEAM_TAGS)
    _with_plugin_options(root, "      prefix: kb\n")
    config = root / "mkdocs.yml"
    config.write_text(config.read_text().replace("  - Knobs: knobs/index.md\n  - Incidents: incidents/index.md\n",
                                                 "  - Knowledge base:\n      - kb/index.md\n"
                                                 "      - Knobs: kb/knobs/index.md\n"
                                                 "      - Incidents: kb/incidents/index.md\n"
                                                 "      - kb/tags.md\n"))
    failure, log = try_build_site(root, tmp_path / "site")  # strict: nothing kept, no warning
    assert failure is None, log
    site = Site(root, tmp_path / "site")
    assert "Our own home page" in site.html("")
    home = site.html("kb")
    assert '<h1 id="knowledge-base">Knowledge base' in home and "needs action" in home.lower()
    assert (tmp_path / "site/kb" / KNOB / "index.html").is_file()
    assert 'href="../assets/incident-kb/kb.css"' in site.html("kb/knobs")
    for page, target in local_links(site):  # every link of the generated pages resolves, to the docs too
        resolved = (page.parent / target.split("#")[0].split("?")[0]).resolve()  # ?filters: the index's view
        assert resolved.exists() or (resolved / "index.html").exists(), (page, target)
    record = site.html(f"kb/{KNOB}")
    assert re.search(r'href="\.\./\.\./\.\./design/DSV4_PD_DEADLOCK_ISSUE/"', record)


@pytest.mark.slow
def test_home_false_gives_the_knowledge_bases_home_a_page_of_its_own(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "docs/index.md").write_text(TEAM_HOME)
    _with_plugin_options(root, "      home: false\n")
    failure, log = try_build_site(root, tmp_path / "site")
    assert failure is None, log
    assert not _warnings(log)
    assert "the knowledge base's home, with what needs action, is at needs-action.md" in log
    site = Site(root, tmp_path / "site")
    assert "Our own home page" in site.html("")
    assert "kb check reports" in site.html("needs-action")


@pytest.mark.slow
def test_a_hand_written_page_at_a_record_pages_path_is_kept(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    (root / f"docs/{KNOB}.md").parent.mkdir(parents=True)
    (root / f"docs/{KNOB}.md").write_text("# Our notes on CTAs\n")
    failure, log = try_build_site(root, tmp_path / "site", strict=False)
    assert failure is None, log
    [warning] = _warnings(log)
    assert f"docs/{KNOB}.md:" in warning
    assert "Our notes on CTAs" in Site(root, tmp_path / "site").html(KNOB)
    assert "kb check reports" in Site(root, tmp_path / "site").html("")  # the home page is still generated


def test_the_home_page_moves_to_a_free_page_when_the_usual_one_is_hand_written():
    settings = SiteSettings()
    assert place_settings(settings, {"about.md"}).home_path == "index.md"
    assert place_settings(settings, {"index.md"}).home_path == "needs-action.md"
    assert place_settings(settings, {"index.md", "needs-action.md"}).home_path == "needs-action-2.md"
    assert place_settings(SiteSettings(home=False), set()).home_path == "needs-action.md"
    assert place_settings(SiteSettings(prefix="kb"), {"index.md"}).home_path == "index.md"  # kb/index.md is free
    assert place_settings(SiteSettings(prefix="kb"), {"kb/index.md"}).home_path == "needs-action.md"


def test_kb_render_keeps_a_hand_written_home_page_in_a_whole_docs_folder(tmp_path, kb):
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "docs/index.md").write_text(TEAM_HOME)
    out = tmp_path / "out"
    result = kb("render", "--out", str(out), "--root", str(root))
    assert result.code == 0, result.err
    assert (out / "index.md").read_text() == TEAM_HOME
    assert "kb check reports" in (out / "needs-action.md").read_text()
    [note] = [line for line in result.out.splitlines() if line.startswith("note: kept")]
    assert "docs/index.md" in note and "needs-action.md" in note
    assert (out / f"{KNOB}.md").is_file() and (out / "tags.md").is_file()


@pytest.mark.slow
def test_a_site_rendering_other_docs_than_the_check_reads_is_a_warning(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "pyproject.toml").write_text('[tool.incident-kb]\ndocs-dir = "notes"\n')
    failure, log = try_build_site(root, tmp_path / "site", strict=False)
    assert failure is None, log
    assert ("incident-kb: this site renders the docs in docs/, but kb check reads notes/ (docs-dir under "
            "[tool.incident-kb] in pyproject.toml), so stale-doc never looks at this site's pages") in log


def test_a_hand_written_page_holds_the_place_it_builds_to_whatever_its_file_name():
    """MkDocs builds README.md where index.md goes, and, with directory URLs, knobs.md where
    knobs/index.md goes and tags/index.md where tags.md goes: each of those holds that place."""
    from incident_kb.website.core.bundle import Bundle, PageMeta
    from incident_kb.website.core.placement import place_bundle

    settings = SiteSettings()
    assert place_settings(settings, {"README.md"}).home_path == "needs-action.md"
    assert place_settings(settings, {"index.markdown"}).home_path == "needs-action.md"
    assert place_settings(settings, {"README.md", "needs-action/index.md"}).home_path == "needs-action-2.md"
    assert place_settings(SiteSettings(prefix="kb"), {"kb.md"}).home_path == "needs-action.md"
    assert place_settings(SiteSettings(prefix="kb", directory_urls=False), {"kb.md"}).home_path == "index.md"
    assert place_settings(settings, {"index/README.md", "docs/index.md"}).home_path == "index.md"  # elsewhere
    files = {"index.md": "home", "knobs/index.md": "knobs", "tags.md": "tags", "incidents/index.md": "incidents",
             "knobs/x.md": "x", "knobs/x.gains.svg": "<svg/>"}
    bundle = Bundle(files, {path: PageMeta(generated=True) for path in files if path.endswith(".md")}, ())
    team = {"README.md", "knobs.md", "tags/index.md", "incidents.markdown", "knobs/x/README.md", "knobs/x.gains.svg"}
    asked = SiteSettings()
    placed = place_bundle(bundle, place_settings(asked, team), team, asked)
    assert placed.kept == tuple(sorted(team))
    assert not placed.bundle.files  # every generated file's place is held
    asked = SiteSettings(directory_urls=False)
    placed = place_bundle(bundle, place_settings(asked, team), team, asked)
    assert placed.kept == ("README.md", "knobs/x.gains.svg")  # knobs.html is not knobs/index.html
    assert "knobs/index.md" in placed.bundle.files and "tags.md" in placed.bundle.files


@pytest.mark.slow
def test_a_team_readme_home_and_a_knobs_page_beside_the_folder_are_kept(tmp_path):
    """A team's home written as README.md and its own knobs.md were overwritten by the generated
    index.md and knobs/index.md (both land on the same URL) with --strict passing."""
    root = copy_knowledge_base(tmp_path / "kb")
    (root / "docs/README.md").write_text(TEAM_HOME)
    (root / "docs/knobs.md").write_text("# Our knob list\n")
    failure, log = try_build_site(root, tmp_path / "strict")
    assert failure is not None and "in strict mode" in failure
    failure, log = try_build_site(root, tmp_path / "site", strict=False)
    assert failure is None, log
    [warning] = _warnings(log)
    assert "docs/README.md, docs/knobs.md" in warning and "needs-action.md" in warning
    site = Site(root, tmp_path / "site")
    assert "Our own home page" in site.html("") and "Our knob list" in site.html("knobs")
    assert "kb check reports" in site.html("needs-action")
    assert (tmp_path / "site" / KNOB / "index.html").is_file()


@pytest.mark.slow
def test_with_a_prefix_set_a_kept_page_is_said_once_and_another_folder_is_advised(tmp_path):
    root = copy_knowledge_base(tmp_path / "kb")
    _with_plugin_options(root, "      prefix: kb\n")
    (root / "docs/kb").mkdir()
    (root / "docs/kb/index.md").write_text(TEAM_HOME)
    (root / "docs/kb/knobs.md").write_text("# Our knob list\n")
    failure, log = try_build_site(root, tmp_path / "site", strict=False)
    assert failure is None, log
    [warning] = _warnings(log)
    assert "docs/kb/index.md, docs/kb/knobs.md" in warning and "is at kb/needs-action.md" in warning
    assert "`prefix: knowledge-base`" in warning and "`prefix: kb`" not in warning  # kb/ is where they clash
    site = Site(root, tmp_path / "site")
    assert "Our own home page" in site.html("kb") and "Our knob list" in site.html("kb/knobs")
    assert "kb check reports" in site.html("kb/needs-action")
