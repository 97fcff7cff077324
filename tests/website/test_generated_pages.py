"""The pages the site generates that are no record's are the ones `website/core/links.GENERATED_PAGES`
lists: `kb init --merge` decides where the knowledge base goes from that list, so a page generated
elsewhere (a new overview page) would be placed over a team's page unseen."""

from __future__ import annotations

from dataclasses import replace

from incident_kb.adoption.site_merge import GENERATED_TOP, knowledge_base_prefix
from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.records.vocabulary import RecordKind
from incident_kb.website.core.links import ASSETS_DIR, FEED, GENERATED_PAGES, SiteSettings
from incident_kb.website.core.pages import render_site


def test_every_generated_page_but_the_records_is_listed(seed_kb):
    kb = check_knowledge_base(seed_kb)
    generated: set[str] = set()
    for settings in (SiteSettings(), replace(SiteSettings(), home=False)):
        generated |= set(render_site(kb, settings).files)
    record_pages = {path for path in generated for kind in RecordKind
                    if path.startswith(kind.folder + "/") and path != f"{kind.folder}/index.md"}
    pages = {path for path in generated - record_pages if path.endswith(".md")}
    assert pages == set(GENERATED_PAGES)
    assert {path.split("/")[0] for path in generated if not path.startswith(ASSETS_DIR + "/")} == set(GENERATED_TOP)


def test_a_team_page_at_any_generated_place_moves_the_knowledge_base_into_a_folder(tmp_path):
    for page in (*GENERATED_PAGES, FEED):
        docs = tmp_path / page.replace("/", "_")
        (docs / page).parent.mkdir(parents=True)
        (docs / page).write_text("# Ours\n")
        assert knowledge_base_prefix(docs) == "kb", page
    assert knowledge_base_prefix(tmp_path / "empty") == ""
