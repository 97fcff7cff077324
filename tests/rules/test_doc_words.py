"""Doc references are words, not fragments: the issue's probes (pool sizes that are not the knob),
aliases, a per-record opt-out, the line and word a stale-doc finding names, and scanning that stays
linear in the length of a word."""

from __future__ import annotations

import json
import time

import pytest

from incident_kb.check.pipeline import load_knowledge_base
from incident_kb.rules.references import DocReference, find_doc_references, word_candidates

from ..conftest import SEED_KNOB, edit
from ..story import story_until

POOL = """\
# yaml-language-server: $schema=../schemas/knob.schema.json
id: payments-db-pool-size
name: PAYMENTS_DB_POOL_SIZE
summary: Connections in the payments database pool.
value: 40
status: active
history:
  - date: 2026-11-01
    status: active
"""


def pool_refs(root, doc_text: str, knob_text: str = POOL) -> list[DocReference]:
    (root / "knobs/payments-db-pool-size.yaml").write_text(knob_text)
    (root / "docs/notes.md").write_text(doc_text)
    kb = load_knowledge_base(root)
    assert not kb.has_errors, kb.findings
    return [r for r in find_doc_references(root, kb.catalog, kb.settings.docs.rel_path) if r.doc == "docs/notes.md"]


@pytest.mark.parametrize("text", ["REDIS_POOL_SIZE=10\n", "CELERY_WORKER_POOL_SIZE\n", "MAX_POOL_SIZE=100\n",
                                  "payments-db-pool-size-old\n", "XPAYMENTS_DB_POOL_SIZE=3\n",
                                  # Issue 21: a short name is not derived from the knob's name (only aliases)
                                  "The DB_POOL_SIZE of payments.\n"])
def test_other_settings_that_end_the_same_way_are_not_the_knob(seed_kb, text):
    assert pool_refs(seed_kb, f"# Redis\n\n{text}") == []


@pytest.mark.parametrize("text, word", [
    ("export PAYMENTS_DB_POOL_SIZE=40\n", "PAYMENTS_DB_POOL_SIZE"),
    ("See knobs/payments-db-pool-size.yaml.\n", "payments-db-pool-size"),
])
def test_the_knob_is_found_by_whole_words(seed_kb, text, word):
    (ref,) = pool_refs(seed_kb, f"# Pools\n\n{text}")
    assert (ref.record_id, ref.how, ref.word, ref.line) == ("payments-db-pool-size", "mention", word, 3)


def test_target_ctas_still_finds_the_seed_knob(seed_kb):
    refs = pool_refs(seed_kb, "We tried\nTARGET_CTAS=1024 once.\n")
    assert [(r.record_id, r.word, r.line) for r in refs] == [("sglang-sm120-mma-target-ctas", "TARGET_CTAS", 2)]


def test_an_alias_is_a_mention(seed_kb):
    knob = POOL.replace("history:", "aliases: [pool_size, payments.db.pool]\nhistory:")
    refs = pool_refs(seed_kb, "Raise payments.db.pool to 50.\n", knob)
    assert [(r.record_id, r.word) for r in refs] == [("payments-db-pool-size", "payments.db.pool")]
    assert pool_refs(seed_kb, "Every pool_size here.\n", knob)[0].word == "pool_size"


def test_a_doc_opts_out_of_one_record_and_keeps_the_others(seed_kb):
    text = "---\nnot_about: [payments-db-pool-size]\n---\nPAYMENTS_DB_POOL_SIZE and TARGET_CTAS.\n"
    assert [r.record_id for r in pool_refs(seed_kb, text)] == ["sglang-sm120-mma-target-ctas"]


def test_front_matter_is_not_text(seed_kb):
    text = "---\nreviewed: 2026-11-08\ntitle: PAYMENTS_DB_POOL_SIZE\n---\n# Nothing here\n"
    assert pool_refs(seed_kb, text) == []


def test_a_long_word_is_one_lookup_not_one_per_part():
    word = "A_" * 40_000 + "POOL_SIZE"  # about 80 KiB
    assert list(word_candidates(word)) == [word]
    assert list(word_candidates("knob-id.yaml")) == ["knob-id.yaml", "knob-id", "yaml"]


def test_an_80_kib_word_is_scanned(seed_kb):
    word = "A_" * 40_000 + "POOL_SIZE"
    started = time.perf_counter()
    refs = pool_refs(seed_kb, f"# Huge\n\n{word}\n\nPAYMENTS_DB_POOL_SIZE\n")
    elapsed = time.perf_counter() - started
    assert [(r.word, r.line) for r in refs] == [("PAYMENTS_DB_POOL_SIZE", 5)]
    assert elapsed < 20  # it took 25 s when every suffix was tried; bench/doc_references.py measures it


def test_a_stale_doc_names_the_word_and_its_line(kb, tmp_path, git_env):
    root = tmp_path / "kb"
    repo, _ = story_until(root, 5)
    repo.write("docs/pools.md", "# Pools\n\nRedis: REDIS_POOL_SIZE=10\n\nDecode: set TARGET_CTAS with care.\n")
    repo.commit("Pools doc", "2026-11-09T10:00:00Z")
    knob = (root / SEED_KNOB).read_text().replace("\nvalue: 512\n", "\nvalue: 1024\n")
    repo.write(SEED_KNOB, knob)
    repo.commit("Value 1024", "2026-11-10T10:00:00Z")
    result = kb("check", "--root", root, "--format", "json")
    stale = [f for f in json.loads(result.out)["findings"] if f["code"] == "stale-doc" and f["path"] == "docs/pools.md"]
    assert [(f["line"], f["subject"]) for f in stale] == [(5, "sglang-sm120-mma-target-ctas")]
    assert "(through the text: 'TARGET_CTAS' on line 5)" in stale[0]["message"]
    assert "add 'not_about: [sglang-sm120-mma-target-ctas]' to its front matter" in stale[0]["message"]
    # ...and the opt-out it suggests works for that record alone.
    edit(root / "docs/pools.md", "# Pools", "---\nnot_about: [sglang-sm120-mma-target-ctas]\n---\n# Pools")
    result = kb("check", "--root", root, "--format", "json")
    assert not [f for f in json.loads(result.out)["findings"] if f["path"] == "docs/pools.md"]
