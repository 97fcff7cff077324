"""stale-doc leaves history pages alone (a changelog, release notes, news: what was true then) and the
patterns a team excludes (a blog); front matter keeps working; `kb check -v` says each doc left alone
and why. Names that only start like a history page are judged as every doc is."""

from __future__ import annotations

import json

import pytest

from incident_kb.settings.doc_patterns import HISTORY_PAGES, matching_pattern

from ..conftest import SEED_KNOB, edit
from ..gitrepo import GitRepo

NAME = "SGLANG_SM120_MMA_TARGET_CTAS"
HISTORY = ("docs/CHANGELOG.md", "docs/NEWS.md", "docs/changes.md", "docs/History.markdown",
           "docs/CHANGELOG-2025.md", "docs/release-notes/v1.2.md", "docs/releases/2026-11.md",
           "docs/news/november.md", "docs/RELEASE_NOTES.md")
JUDGED = ("docs/newsletter-plan.md", "docs/history-of-the-pool.md", "docs/changes-to-ctas.md",
          "docs/blog/tuning-ctas.md", "docs/design/release-process.md")


@pytest.fixture
def story(seed_kb, git_env):
    """Every doc above names the knob; then the knob changes: each is older than the change."""
    for doc in (*HISTORY, *JUDGED):
        (seed_kb / doc).parent.mkdir(parents=True, exist_ok=True)
        (seed_kb / doc).write_text(f"# Notes\n\nWe set {NAME}=512 for decode.\n")
    repo = GitRepo(seed_kb)
    repo.commit("the story and its docs", "2026-11-07T12:00:00Z")
    edit(seed_kb / SEED_KNOB, "\nvalue: 512\n", "\nvalue: 768\n")
    edit(seed_kb / "deploy/decode.sh", "=512\n", "=768\n")
    repo.commit("CTAS at 768", "2026-11-08T09:00:00Z")
    return seed_kb


def stale(kb, root) -> set[str]:
    result = kb("check", "--root", root, "--format", "json")
    assert result.code in (0, 1), result.err
    return {f["path"] for f in json.loads(result.out)["findings"] if f["code"] == "stale-doc"}


def test_history_pages_are_left_alone_and_other_docs_are_judged(kb, story):
    found = stale(kb, story)
    assert not found & set(HISTORY)
    assert set(JUDGED) <= found


def test_a_team_excludes_its_own_patterns_and_can_judge_history_again(kb, story):
    (story / "pyproject.toml").write_text('[tool.incident-kb]\nstale-doc-exclude = ["docs/blog/**"]\n'
                                          'history-pages = ["CHANGELOG*"]\n')
    found = stale(kb, story)
    assert "docs/blog/tuning-ctas.md" not in found and "docs/CHANGELOG.md" not in found
    assert "docs/NEWS.md" in found and "docs/releases/2026-11.md" in found  # the defaults were replaced


def test_front_matter_still_opts_a_page_out(kb, story):
    edit(story / "docs/newsletter-plan.md", "# Notes\n", "---\nmentions: false\n---\n# Notes\n")
    GitRepo(story, init=False).commit("not about it", "2026-11-07T13:00:00Z")
    assert "docs/newsletter-plan.md" not in stale(kb, story)


def test_verbose_says_each_doc_left_alone_once_and_why(kb, story):
    result = kb("check", "--root", story, "-v")
    lines = [line for line in result.err.splitlines() if "stale-doc leaves" in line]
    assert len(lines) == len(HISTORY) and len(set(lines)) == len(lines)
    assert "kb: stale-doc leaves docs/CHANGELOG.md alone (history-pages: 'CHANGELOG.*')" in lines
    assert "stale-doc leaves" not in kb("check", "--root", story).err  # only when asked


@pytest.mark.parametrize("value", ['"CHANGELOG*"', "[1, 2]", '[""]', "{a = 1}"])
def test_a_setting_that_is_no_list_of_patterns_is_a_bad_config_finding(kb, story, value):
    (story / "pyproject.toml").write_text(f"[tool.incident-kb]\n\nstale-doc-exclude = {value}\n")
    result = kb("check", "--root", story, "--format", "json")
    [item] = [f for f in json.loads(result.out)["findings"] if f["code"] == "bad-config"]
    assert item["path"] == "pyproject.toml" and item["line"] == 3
    assert "give a list of path patterns" in item["message"]


@pytest.mark.parametrize("doc, pattern", [
    ("docs/CHANGELOG.md", "CHANGELOG.*"), ("docs/deep/er/changelog.rst", "CHANGELOG.*"),
    ("docs/a/releases/b/c.md", "**/releases/**"), ("docs/notes/news.md", "NEWS.*"),
    ("docs/newsletter.md", None), ("docs/changelogger.md", None), ("docs/historyx.md", None),
])
def test_the_default_patterns(doc, pattern):
    assert matching_pattern(doc, HISTORY_PAGES) == pattern
