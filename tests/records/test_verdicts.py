"""The check and the site tell one story: for every fixture, what the rules say about a knob and
what its page and its incident's page say agree (both ask records/verdicts.py; this proves it)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from incident_kb.check.pipeline import KnowledgeBase, check_knowledge_base
from incident_kb.records.verdicts import current_revert
from incident_kb.records.vocabulary import KnobStatus
from incident_kb.website.core.context import gather_site_context
from incident_kb.website.core.incident_pages import incident_view
from incident_kb.website.core.knob_pages import knob_view
from incident_kb.website.core.links import SiteSettings

from ..conftest import SEED_INCIDENT, SEED_KNOB, break_seed_story, edit
from ..story import story_until

SETTINGS = SiteSettings(site_name="incident-kb", docs_dir="docs", edit_base=None)
FALLEN = ("Exonerated", "Not the cause")  # the page's words for a hypothesis that no longer stands
STANDING = ("Still suspected", "Confirmed")
WEAK = ("Reverted on correlation alone", "Reverted without evidence")
REVERT = "    status: reverted\n    incident: multi-round-harness-hang\n    hypothesis: target-ctas-causes-hang\n"


def _reverted_again(root: Path) -> None:
    """The seed story with the knob reverted once more, under the same hypothesis."""
    text = (root / SEED_KNOB).read_text().replace("\nstatus: active\n", "\nstatus: reverted\n")
    (root / SEED_KNOB).write_text(text + f"  - date: 2026-11-09\n{REVERT}")
    edit(root / "deploy/decode.sh", "export SGLANG_SM120_MMA_TARGET_CTAS=512\n", "")


def _hypothesis_open(root: Path) -> None:
    _reverted_again(root)
    edit(root / SEED_INCIDENT, "    status: refuted\n", "    status: open\n")


def _superseded(root: Path) -> None:
    """Never refuted, but the incident was resolved on another root cause."""
    _hypothesis_open(root)


def _unresolved_and_open(root: Path) -> None:
    _hypothesis_open(root)
    text = (root / SEED_INCIDENT).read_text()
    text = text.replace("status: resolved\n", "status: open\n", 1)
    text = re.sub(r"\nresolved: [^\n]*\n", "\n", text)
    text = re.sub(r"\nroot_cause:\n(  [^\n]*\n)+", "\n", text)
    text = text.replace("    status: confirmed\n", "    status: open\n")
    (root / SEED_INCIDENT).write_text(text)


def _without_evidence(root: Path) -> None:
    """Open, and nothing at all supports the hypothesis the knob was reverted under."""
    _unresolved_and_open(root)
    text = (root / SEED_INCIDENT).read_text()
    text = re.sub(r"      - kind: correlation\n        stance: for\n(        [^\n]*\n)+", "", text)
    (root / SEED_INCIDENT).write_text(text)


def _with_an_experiment(root: Path) -> None:
    """Open, and an experiment supports it: a revert on more than correlation."""
    _unresolved_and_open(root)
    edit(root / SEED_INCIDENT, "      - kind: correlation\n        stance: for\n",
         "      - kind: experiment\n        stance: for\n        text: The hang stopped with the knob out.\n"
         "      - kind: correlation\n        stance: for\n")


def _confirmed(root: Path) -> None:
    _unresolved_and_open(root)
    edit(root / SEED_INCIDENT, "    status: open\n    suspect:", "    status: confirmed\n    suspect:")


def _kept_reverted(root: Path) -> None:
    break_seed_story(root)
    (root / SEED_KNOB).write_text((root / SEED_KNOB).read_text() + "keep_reverted: the vendor asked us to\n")


FIXTURES: dict[str, Callable[[Path], None]] = {
    "seed story": lambda root: None,
    "confirmed proxy, knob still reverted": break_seed_story,
    "reverted again, hypothesis refuted": _reverted_again,
    "superseded by another root cause": _superseded,
    "open hypothesis, correlation only": _unresolved_and_open,
    "open hypothesis, no evidence": _without_evidence,
    "open hypothesis, an experiment for it": _with_an_experiment,
    "confirmed hypothesis": _confirmed,
    "kept reverted on purpose": _kept_reverted,
}


def _story_steps() -> dict[str, Callable[[Path], KnowledgeBase]]:
    def at(step: int) -> Callable[[Path], KnowledgeBase]:
        def build(tmp: Path) -> KnowledgeBase:
            story_until(tmp / "kb", step)
            return check_knowledge_base(tmp / "kb")
        return build
    return {f"story step {n}": at(n) for n in range(1, 6)}


def _fixture_builders() -> dict[str, Callable[[Path], KnowledgeBase]]:
    def edited(change: Callable[[Path], None]) -> Callable[[Path], KnowledgeBase]:
        def build(tmp: Path) -> KnowledgeBase:
            from ..site_support import copy_knowledge_base

            root = copy_knowledge_base(tmp / "kb")
            change(root)
            return check_knowledge_base(root)
        return build
    return {**{name: edited(change) for name, change in FIXTURES.items()}, **_story_steps()}


BUILDERS = _fixture_builders()


@pytest.mark.parametrize("name", list(BUILDERS))
def test_rules_and_pages_agree(name, tmp_path, git_env):
    kb = BUILDERS[name](tmp_path)
    context = gather_site_context(kb, SETTINGS)
    codes = {(f.code, f.subject) for f in kb.findings}
    for knob in kb.catalog.knobs.values():
        page = knob_view(context, knob)
        revert = current_revert(kb.catalog, knob)
        reclaimable = ("reclaimable-knob", knob.id) in codes
        weak_revert = ("correlation-only-revert", knob.id) in codes
        if revert is None or revert.hypothesis is None:
            assert not reclaimable and not weak_revert, name
            continue
        anchor = f"#hypothesis-{revert.hypothesis.id}"
        said = [str(s.verdict) for s in page.suspicions if anchor in str(s.hypothesis)]
        assert said, f"{name}: the page of {knob.id} does not say what became of {revert.hypothesis.id}"
        fallen = any(word in said[0] for word in FALLEN)
        assert fallen != any(word in said[0] for word in STANDING), said
        # reclaimable-knob fires exactly when the page says the hypothesis fell (unless kept on purpose)
        assert reclaimable == (fallen and not knob.keep_reverted), f"{name}: rule {reclaimable}, page {said[0]}"
        # correlation-only-revert fires exactly when the incident page warns about this knob's revert,
        # for a revert that is still a running test (its hypothesis still stands and is not confirmed)
        assert revert.incident is not None
        hypothesis_view = next(h for h in incident_view(context, revert.incident).hypotheses
                               if h.anchor == anchor.lstrip("#"))
        warned = hypothesis_view.warning is not None and any(w in str(hypothesis_view.warning) for w in WEAK) \
            and f"knobs/{knob.id}.md" in str(hypothesis_view.warning)
        still_testing = "Still suspected" in said[0] and not knob.keep_reverted
        assert weak_revert == (warned and still_testing), f"{name}: rule {weak_revert}, page warning {warned}"
        assert knob.status is KnobStatus.REVERTED


def test_the_fixtures_cover_every_verdict(tmp_path, git_env):
    """The agreement above is only worth something if the fixtures reach each verdict."""
    seen_codes: set[str] = set()
    seen_words: set[str] = set()
    for i, build in enumerate(BUILDERS.values()):
        kb = build(tmp_path / str(i))
        context = gather_site_context(kb, SETTINGS)
        seen_codes |= {f.code for f in kb.findings}
        for knob in kb.catalog.knobs.values():
            for suspicion in knob_view(context, knob).suspicions:
                seen_words |= {w for w in (*FALLEN, *STANDING) if w in str(suspicion.verdict)}
    assert {"reclaimable-knob", "correlation-only-revert"} <= seen_codes
    assert seen_words == {*FALLEN, *STANDING}
