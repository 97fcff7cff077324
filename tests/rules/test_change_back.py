"""changed-under-refuted says what to change back to (issue 21): 'set to 120 from 50'. `kb new knob`
records the initial value in the first history entry; for a record whose history does not say, the
value before the change comes from git."""

from __future__ import annotations

import json

from ..gitrepo import GitRepo

INCIDENT = """\
id: pool-exhaustion
title: Checkout pool exhausted
status: open
started: 2026-10-01
hypotheses:
  - id: pool-too-large
    statement: A pool of 120 connections overloads the database.
    status: open
  - id: slow-query
    statement: A slow query holds connections.
    status: open
"""


def knob(value: int, history: str) -> str:
    return f"""\
id: checkout-pool-size
name: CHECKOUT_DB_POOL_SIZE
summary: Connections in the checkout service's database pool.
value: {value}
status: active
history:
{history}"""


FIRST = "  - date: 2026-09-01\n    status: active\n"
CHANGE = ("  - date: 2026-10-02\n    status: active\n    value: 50\n    incident: pool-exhaustion\n"
          "    hypothesis: pool-too-large\n")
CHANGE_WITHOUT_VALUE = ("  - date: 2026-10-02\n    status: active\n    incident: pool-exhaustion\n"
                        "    hypothesis: pool-too-large\n")


def message(kb, root):
    result = kb("check", "--root", root, "--format", "json")
    found = [f["message"] for f in json.loads(result.out)["findings"] if f["code"] == "changed-under-refuted"]
    assert len(found) <= 1, found
    return found[0] if found else None


def refuted(root):
    (root / "incidents/pool-exhaustion.yaml").write_text(INCIDENT.replace("    status: open\n  - id: slow",
                                                                          "    status: refuted\n  - id: slow"))


def test_kb_new_knob_records_the_initial_value_and_kb_set_the_change(kb, empty_kb):
    root = empty_kb
    assert kb("new", "knob", "checkout-pool-size", "--name", "CHECKOUT_DB_POOL_SIZE", "--summary", "Pool.",
              "--value", "120", "--date", "2026-09-01", "--root", root).code == 0
    text = (root / "knobs/checkout-pool-size.yaml").read_text()
    assert "history:\n  - date: 2026-09-01\n    status: active\n    value: 120\n" in text
    (root / "incidents/pool-exhaustion.yaml").write_text(INCIDENT)
    assert kb("set", "checkout-pool-size", "50", "--incident", "pool-exhaustion", "--hypothesis", "pool-too-large",
              "--date", "2026-10-02", "--root", root).code == 0
    assert message(kb, root) is None  # the hypothesis is open
    assert kb("refute", "pool-exhaustion", "pool-too-large", "--root", root).code == 0
    said = message(kb, root)
    assert said.startswith("CHECKOUT_DB_POOL_SIZE was changed from 120 to 50 on 2026-10-02 under hypothesis "
                           "'pool-too-large'")
    assert "set to 120 from 50. Change it back (`kb set checkout-pool-size 120 --note '...'`)" in said


def test_without_a_value_in_the_history_git_says_what_it_was(kb, tmp_path, git_env):
    repo = GitRepo(tmp_path / "kb")
    repo.write("knobs/checkout-pool-size.yaml", knob(120, FIRST))
    repo.write("incidents/pool-exhaustion.yaml", INCIDENT)
    repo.commit("Pool of 120", "2026-09-01T10:00:00Z")
    repo.write("knobs/checkout-pool-size.yaml", knob(50, FIRST + CHANGE))
    repo.commit("Pool of 50 while chasing the exhaustion", "2026-10-02T10:00:00Z")
    refuted(repo.root)
    repo.commit("Not the pool", "2026-10-05T10:00:00Z")
    said = message(kb, repo.root)
    assert said.startswith("CHECKOUT_DB_POOL_SIZE was changed from 120 to 50 on 2026-10-02")
    assert "set to 120 from 50" in said and "`kb set checkout-pool-size 120 --note '...'`" in said


def test_a_change_entry_without_a_value_gets_both_values_from_git(kb, tmp_path, git_env):
    repo = GitRepo(tmp_path / "kb")
    repo.write("knobs/checkout-pool-size.yaml", knob(120, FIRST))
    repo.write("incidents/pool-exhaustion.yaml", INCIDENT)
    repo.commit("Pool of 120", "2026-09-01T10:00:00Z")
    repo.write("knobs/checkout-pool-size.yaml", knob(50, FIRST + CHANGE_WITHOUT_VALUE))
    refuted(repo.root)  # neither committed: the work tree is the newest version
    said = message(kb, repo.root)
    assert said.startswith("CHECKOUT_DB_POOL_SIZE was changed from 120 to 50 on 2026-10-02")
    assert "set to 120 from 50" in said


def test_a_renamed_record_is_followed(kb, tmp_path, git_env):
    repo = GitRepo(tmp_path / "kb")
    repo.write("knobs/pool.yaml", knob(120, FIRST).replace("id: checkout-pool-size", "id: pool"))
    repo.write("incidents/pool-exhaustion.yaml", INCIDENT)
    repo.commit("Pool of 120", "2026-09-01T10:00:00Z")
    repo.git("mv", "knobs/pool.yaml", "knobs/checkout-pool-size.yaml")
    repo.write("knobs/checkout-pool-size.yaml", knob(50, FIRST + CHANGE))
    repo.commit("Renamed, and 50", "2026-10-02T10:00:00Z")
    refuted(repo.root)
    assert "set to 120 from 50" in message(kb, repo.root)


def test_outside_git_and_unrecorded_it_says_it_does_not_know(kb, empty_kb):
    (empty_kb / "knobs/checkout-pool-size.yaml").write_text(knob(50, FIRST + CHANGE))
    refuted(empty_kb)
    said = message(kb, empty_kb)
    assert said.startswith("CHECKOUT_DB_POOL_SIZE was set to 50 on 2026-10-02")
    assert "Neither its history nor git says what the value was before" in said
    assert "set to 120" not in said


def test_a_status_change_whose_value_did_not_change_is_not_called_a_value_change(kb, tmp_path, git_env):
    repo = GitRepo(tmp_path / "kb")
    repo.write("knobs/checkout-pool-size.yaml", knob(50, FIRST))
    repo.write("incidents/pool-exhaustion.yaml", INCIDENT)
    repo.commit("Pool of 50", "2026-09-01T10:00:00Z")
    repo.write("knobs/checkout-pool-size.yaml", knob(50, FIRST + CHANGE_WITHOUT_VALUE))
    refuted(repo.root)
    said = message(kb, repo.root)
    assert said.startswith("knob 'checkout-pool-size' was made active (CHECKOUT_DB_POOL_SIZE=50)")
    assert "from 50" not in said and "set to 50 from" not in said
