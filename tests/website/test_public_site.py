"""`public: true`: a site published to readers outside the team shows none of kb check's findings (no
banner on a stale doc, no finding box on a record, no findings page), while the check still fails and
`mkdocs serve`, the team's preview, shows them. Tested on the pages and in a real build."""

from __future__ import annotations

from dataclasses import replace

import pytest

from incident_kb.check.pipeline import check_knowledge_base
from incident_kb.website.core.links import FINDINGS_PAGE, SiteSettings
from incident_kb.website.core.pages import render_site

from ..conftest import break_seed_story, edit
from ..gitrepo import GitRepo
from ..site_support import copy_knowledge_base, try_build_site

KNOB_PAGE = "knobs/sglang-sm120-mma-target-ctas.md"
STALE_DOC = "design/DSV4_DECODE_PERF_PLAN.md"


def troubled(root):
    """The seed story committed, then left broken in a later commit: a reclaimable knob (an error on
    its page) and the docs that describe it stale (a banner on each)."""
    repo = GitRepo(root)
    repo.commit("the story", "2026-11-07T12:00:00Z")
    break_seed_story(root)
    repo.commit("the knob reverted", "2026-11-08T12:00:00Z")
    return root


def test_a_public_site_shows_no_finding_where_the_team_site_shows_them(seed_kb, git_env):
    kb = check_knowledge_base(troubled(seed_kb))
    assert kb.has_errors
    team = render_site(kb, SiteSettings())
    public = render_site(kb, replace(SiteSettings(), findings=False))
    assert FINDINGS_PAGE in team.files and FINDINGS_PAGE not in public.files
    assert any(meta.banner for meta in team.pages.values()) and not any(meta.banner for meta in public.pages.values())
    assert "reclaimable-knob" in team.files[KNOB_PAGE] and "reclaimable-knob" not in public.files[KNOB_PAGE]
    assert "kb check reports" in team.files["index.md"] and "kb check reports" not in public.files["index.md"]
    assert "findings.md" not in "".join(public.files[page] for page in public.files if page.endswith(".md"))


def test_a_public_site_with_nothing_to_reclaim_claims_no_clean_check(seed_kb):
    kb = check_knowledge_base(seed_kb)
    home = render_site(kb, replace(SiteSettings(), findings=False)).files["index.md"]
    assert "Nothing to reclaim: no knob stays reverted under a hypothesis that fell." in home
    assert "kb check" not in home


@pytest.mark.slow
@pytest.mark.parametrize("public", [False, True])
def test_the_built_site_leaves_the_banner_out_only_when_public(tmp_path, git_env, public):
    root = copy_knowledge_base(tmp_path / "kb")
    if public:
        edit(root / "mkdocs.yml", "\n  - incident-kb\n", "\n  - incident-kb:\n      public: true\n")
    troubled(root)
    failure, log = try_build_site(root, tmp_path / "site")
    assert failure is None, log
    page = (tmp_path / "site" / STALE_DOC.removesuffix(".md") / "index.html").read_text()
    assert ("kb check:" in page) is not public
    assert (tmp_path / "site" / "findings" / "index.html").exists() is not public
