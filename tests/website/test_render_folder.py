"""`kb render`, the folder adapter: into a subfolder of the docs beside hand-written docs, into a
Zensical set-up (`kb init --site zensical`), and never over a file kb did not write."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core import pages
from incident_kb.website.core.bundle import SiteNeeds
from incident_kb.website.core.links import SiteSettings
from incident_kb.website.core.pages import render_site

from ..conftest import SEED_KNOB
from ..site_support import zensical_repository

KNOB = "sglang-sm120-mma-target-ctas"
DOC = "docs/design/DSV4_PD_DEADLOCK_ISSUE.md"


def test_into_a_subfolder_of_the_docs_the_links_to_hand_written_docs_are_right(kb, seed_kb):
    before = {p: p.read_bytes() for p in (seed_kb / "docs").rglob("*") if p.is_file()}
    result = kb("render", "--root", seed_kb, "--out", seed_kb / "docs/kb")
    assert result.code == 0, result.err
    page = (seed_kb / f"docs/kb/knobs/{KNOB}.md").read_text()
    # From docs/kb/knobs/ a doc under docs/design/ is two folders up; pages of the knowledge base link as before.
    assert "(../../design/DSV4_PD_DEADLOCK_ISSUE.md)" in page
    assert "(../incidents/multi-round-harness-hang.md#hypothesis-target-ctas-causes-hang)" in page
    for link in re.findall(r"\]\(([^)#<]+\.md)", page):
        assert (seed_kb / "docs/kb/knobs" / link).resolve().is_file(), link
    # The hand-written docs are untouched, and not copied: the pages sit beside them.
    assert {p: p.read_bytes() for p in before} == before
    assert not (seed_kb / "docs/kb/design").exists()
    # What the site's own configuration must add, said once.
    assert "note: the site's configuration must load kb/assets/incident-kb/kb.css (extra_css)" in result.out


def test_pages_kb_render_wrote_into_the_docs_are_not_docs_to_the_check(kb, seed_kb):
    assert kb("render", "--root", seed_kb, "--out", seed_kb / "docs/kb").code == 0
    references = check_knowledge_base(seed_kb).references
    assert not [r for r in references if r.doc.startswith("docs/kb/")]
    assert [r for r in references if r.doc == DOC]  # the hand-written doc still refers to the knob


def test_the_docs_folder_itself_and_a_file_kb_did_not_write_are_refused(kb, seed_kb, tmp_path):
    result = kb("render", "--root", seed_kb, "--out", seed_kb / "docs")
    assert result.code == 2 and "is the docs folder itself; write into a folder of its own inside it" in result.err
    out = tmp_path / "out"
    assert kb("render", "--root", seed_kb, "--out", out).code == 0
    (out / "knobs" / f"{KNOB}.md").unlink()
    (seed_kb / "knobs/zz-new.yaml").write_text((seed_kb / SEED_KNOB).read_text().replace(f"id: {KNOB}", "id: zz-new")
                                               .replace("name: SGLANG_SM120_MMA_TARGET_CTAS", "name: ZZ_NEW"))
    (out / "knobs/zz-new.md").write_text("my own page")
    result = kb("render", "--root", seed_kb, "--out", out)
    assert result.code == 2 and f"{out / 'knobs/zz-new.md'} exists and was not written by kb render" in result.err
    assert (out / "knobs/zz-new.md").read_text() == "my own page"


def test_without_out_outside_a_zensical_set_up_one_line_says_why(kb, seed_kb):
    result = kb("render", "--root", seed_kb)
    assert result.code == 2 and "kb init --site zensical writes one" in result.err and result.err.count("\n") == 1


@pytest.fixture
def zensical_kb(kb, tmp_path, git_env) -> Path:
    return zensical_repository(tmp_path / "team-kb", kb)


def test_a_zensical_set_up_gets_its_pages_theme_banners_and_edit_links_without_out(kb, zensical_kb):
    result = kb("render", "--root", zensical_kb)
    assert result.code == 0, result.err
    docs, theme = zensical_kb / "kb-site/docs", zensical_kb / "kb-site/theme"
    assert f"files to {docs}" in result.out and f"theme overrides to {theme}" in result.out
    written = [line.split(" ", 1)[1] for line in (docs / ".incident-kb-render").read_text().splitlines()]
    assert {"index.md", "tags.md", f"knobs/{KNOB}.md", "incidents/index.md", "about.md", "runbook.md",
            "assets/incident-kb/kb.css"} <= set(written)
    assert f"kb render: wrote {len(written)} files to {docs}" in result.out
    page = (docs / f"knobs/{KNOB}.md").read_text()
    assert page.startswith('---\nkb_edit_url: "https://git.example.invalid/team/kb/edit/main/knobs/'
                           'sglang-sm120-mma-target-ctas.yaml"\ntitle: ')
    assert "(../runbook.md)" in page and (docs / "runbook.md").is_file()
    # The stale doc's copy carries its banner on top (below its front matter); the doc itself is untouched.
    runbook = (docs / "runbook.md").read_text()
    assert runbook.startswith("---\ntitle: Decode runbook\n---\n<div class=\"admonition danger kb-finding kb-banner\" "
                              "data-search-exclude>")
    assert "stale-doc" in runbook and "banner" not in (zensical_kb / "docs/runbook.md").read_text()
    assert (theme / "partials/actions.html").is_file()
    assert {".gitignore"} <= {p.name for p in zensical_kb.iterdir()}
    assert "kb-site/" in (zensical_kb / ".gitignore").read_text().splitlines()


def test_the_zensical_set_up_loads_what_the_pages_need(kb, tmp_path):
    (tmp_path / "kb").mkdir()  # (kb init into a folder it must create, outside git, fails on main: reported)
    assert kb("init", tmp_path / "kb", "--site", "zensical").code == 0
    project = tomllib.loads((tmp_path / "kb/zensical.toml").read_text())["project"]
    needs = SiteNeeds()
    assert tuple(project["extra_css"]) == needs.stylesheets and tuple(project["extra_javascript"]) == needs.scripts
    assert project["plugins"]["search"]["separator"] == needs.search_separator
    assert set(needs.markdown_extensions) <= set(project["markdown_extensions"])
    workflow = (tmp_path / ".github/workflows/kb-check.yml").read_text() if (tmp_path / ".github").exists() else \
        (tmp_path / "kb/.github/workflows/kb-check.yml").read_text()
    assert "run: kb render && zensical build" in workflow and "zensical>=0.0.73,<0.1" in workflow


def test_the_starter_mkdocs_yml_splits_on_the_same_separator():
    text = (Path(pages.__file__).parents[2] / "adoption/starter/mkdocs.yml").read_text()
    assert f"separator: '{SiteNeeds().search_separator}'" in text


def test_a_page_past_the_search_limit_is_kept_out_of_search(seed_kb, monkeypatch):
    settings = SiteSettings(docs_dir="docs")
    site = render_site(check_knowledge_base(seed_kb), settings)
    assert not any(meta.search_excluded for meta in site.pages.values())
    sizes = {path: len(text.encode()) for path, text in site.markdown.items() if path in site.pages}
    limit = sorted(sizes.values())[len(sizes) // 2]  # half the pages pass it
    monkeypatch.setattr(pages, "SEARCH_LIMIT_BYTES", limit)
    site = render_site(check_knowledge_base(seed_kb), settings)
    excluded = sorted(path for path, meta in site.pages.items() if meta.search_excluded)
    assert excluded == sorted(path for path, size in sizes.items() if size > limit) != []
    for path in excluded:
        front = site.files[path].split("---\n")[1]
        assert "search:\n  exclude: true\n" in front and "boost" not in front
    for path in set(sizes) - set(excluded):
        assert "exclude: true" not in site.files[path]
