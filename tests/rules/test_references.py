"""Which docs refer to which records."""

from __future__ import annotations

from incident_kb.check.pipeline import load_knowledge_base
from incident_kb.rules.references import DocReference, docs_referring_to, find_doc_references

from ..conftest import SEED_KNOB, edit

KNOB = "sglang-sm120-mma-target-ctas"
INCIDENT = "multi-round-harness-hang"


def refs(root):
    kb = load_knowledge_base(root)
    return find_doc_references(root, kb.catalog, kb.settings.docs.rel_path)


def test_seed_docs_refer_to_the_knob_and_the_incident(seed_kb):
    found = refs(seed_kb)
    assert docs_referring_to(found, "knob", KNOB) == [
        "docs/design/DSV4_DECODE_PERF_PLAN.md", "docs/design/DSV4_PD_DEADLOCK_ISSUE.md"]
    assert docs_referring_to(found, "incident", INCIDENT) == ["docs/design/DSV4_PD_DEADLOCK_ISSUE.md"]


def test_a_mention_of_the_short_name_is_a_reference(seed_kb):
    (seed_kb / "docs/notes.md").write_text("# Notes\n\nWe tried TARGET_CTAS=1024 once.\n")
    assert DocReference("docs/notes.md", "knob", KNOB, "mention") in refs(seed_kb)


def test_a_short_name_refers_only_to_the_knob_that_lists_it(seed_kb):
    # Issue 21: short names come from 'aliases:' only. Under the old rule (a '_'-suffix of exactly one
    # knob's name), adding this knob took the seed knob's reference away; now it changes nothing.
    other = (seed_kb / SEED_KNOB).read_text().replace(KNOB, "other-target-ctas").replace(
        "name: SGLANG_SM120_MMA_TARGET_CTAS", "name: VLLM_TARGET_CTAS").replace("aliases: [TARGET_CTAS]\n", "")
    (seed_kb / "docs/notes.md").write_text("TARGET_CTAS is tuned.\n")
    before = [(r.record_id, r.word) for r in refs(seed_kb) if r.doc == "docs/notes.md"]
    (seed_kb / "knobs/other-target-ctas.yaml").write_text(other)
    after = [(r.record_id, r.word) for r in refs(seed_kb) if r.doc == "docs/notes.md"]
    assert before == after == [(KNOB, "TARGET_CTAS")]


def test_front_matter_lists_records(seed_kb):
    (seed_kb / "docs/review.md").write_text(f"---\nknobs: [{KNOB}]\nincidents: {INCIDENT}\n---\n# Review\n")
    found = [r for r in refs(seed_kb) if r.doc == "docs/review.md"]
    assert {("knob", "front-matter"), ("incident", "front-matter")} <= {(r.kind, r.how) for r in found}


def test_unrelated_words_are_not_references(seed_kb):
    edit(seed_kb / SEED_KNOB, "  - docs/design/DSV4_DECODE_PERF_PLAN.md\n", "")
    (seed_kb / "docs/unrelated.md").write_text("# Targets\n\nThe target CTAs of this kernel: see sglang docs.\n")
    assert [r for r in refs(seed_kb) if r.doc == "docs/unrelated.md"] == []


def test_a_doc_can_say_its_mentions_are_examples(seed_kb):
    (seed_kb / "docs/guide.md").write_text(f"---\nmentions: false\nknobs: [{KNOB}]\n---\n"
                                           f"Revert TARGET_CTAS, then {INCIDENT}.\n")
    assert [(r.kind, r.how) for r in refs(seed_kb) if r.doc == "docs/guide.md"] == [("knob", "front-matter")]


def test_the_docs_read_are_the_pages_mkdocs_renders():
    """One list of markdown suffixes, MkDocs' own: a page the site renders is a doc the check reads."""
    from mkdocs.utils import markdown_extensions

    from incident_kb.records.vocabulary import DOC_SUFFIXES

    assert set(DOC_SUFFIXES) == set(markdown_extensions)
