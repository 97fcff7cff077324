"""Re-checking after an edit: only the records an edit reaches are checked again, and the result is
always exactly a whole check's.

The re-check rests on one property of the checks: the findings in a record file depend on the
records connected to it through the ids they name, and on no other record. The first tests prove
that property on every fixture knowledge base and on random ones (a new rule that reads records
some other way fails them). The others edit real git repositories, record by record, and require
after every edit what a cold check prints, counting the edits that were re-checked."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from incident_kb.check import pipeline, recheck
from incident_kb.rules.knob_rules import RULES, RuleSettings
from incident_kb.settings.reference_date import reference_date

from ..conftest import one_fast
from ..gitrepo import GitRepo
from ..records.test_verdicts import FIXTURES
from ..story import story_until


@pytest.fixture(autouse=True)
def no_git_configuration(git_env):
    """Git as the tests' repositories are made (conftest gives each test its own user cache)."""


# ---- random knowledge bases: knobs and incidents that name each other, and some that name nothing

STATUSES = ("open", "confirmed", "refuted")


def _knob(n: int, rng: random.Random, incidents: int) -> str:
    history = ["  - date: 2026-10-01\n    status: active\n"]
    status = "active"
    for step in range(rng.randint(0, 3)):
        status = rng.choice(("reverted", "restored", "active"))
        entry = f"  - date: 2026-10-{10 + step * 5:02d}\n    status: {status}\n"
        if rng.random() < 0.7:  # under an incident, maybe under one of its hypotheses (or a missing one)
            entry += f"    incident: incident-{rng.randrange(incidents + 1)}\n"
            if rng.random() < 0.8:
                entry += f"    hypothesis: h{rng.randrange(3)}\n"
        history.append(entry)
    shown = "reverted" if status == "reverted" else "active"
    if rng.random() < 0.1:
        shown = "reverted" if shown == "active" else "active"  # status-mismatch
    measurements = "".join(
        f"  - metric: {metric}\n    conditions: {{concurrency: {64 * (i + 1)}}}\n"
        f"    delta_pct: {rng.choice((-12.5, -3, 4.5, 12.8))}\n    date: 2026-09-2{i}\n"
        + ("    higher_is_better: false\n" if metric.endswith("latency") else "")
        for i, metric in enumerate(rng.sample(("output throughput", "p99 latency"), rng.randint(0, 2))))
    return (f"id: knob-{n}\nname: TEAM_KNOB_{n}_BLOCKS\nsummary: Knob {n}.\nvalue: {rng.choice((256, 512))}\n"
            f"status: {shown}\nkind: env\ndefault: 256\n"
            + (f"measurements:\n{measurements}" if measurements else "")
            + "history:\n" + "".join(history))


def _incident(n: int, rng: random.Random, knobs: int) -> str:
    hypotheses = []
    for h in range(rng.randint(0, 3)):
        text = f"  - id: h{h}\n    statement: Knob trouble {h}.\n    status: {rng.choice(STATUSES)}\n"
        if rng.random() < 0.6:
            text += f"    suspect: {{knob: knob-{rng.randrange(knobs + 1)}}}\n"
        if rng.random() < 0.7:
            text += ("    evidence:\n      - kind: " + rng.choice(("correlation", "experiment", "observation"))
                     + f"\n        stance: {rng.choice(('for', 'against'))}\n        text: Seen.\n")
        hypotheses.append(text)
    follow_ups = f"follow_ups:\n  - action: Look again.\n    knob: knob-{rng.randrange(knobs + 1)}\n" \
        if rng.random() < 0.3 else ""
    return (f"id: incident-{n}\ntitle: Incident {n}\nstatus: {rng.choice(('open', 'mitigated'))}\n"
            "started: 2026-10-05\n" + ("hypotheses:\n" + "".join(hypotheses) if hypotheses else "") + follow_ups)


def random_kb(root: Path, seed: int, knobs: int = 14, incidents: int = 7, repository: Path | None = None) -> None:
    """Knobs reverted under incidents' hypotheses, suspects, follow-ups, names of missing records,
    a broken record, and docs that mention records; one commit (of `repository`, which holds
    `root`; default: root itself)."""
    rng = random.Random(seed)
    for folder in ("knobs", "incidents", "docs"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    for n in range(knobs):
        (root / f"knobs/knob-{n}.yaml").write_text(_knob(n, rng, incidents))
    for n in range(incidents):
        (root / f"incidents/incident-{n}.yaml").write_text(_incident(n, rng, knobs))
    (root / f"knobs/knob-{knobs}.yaml").write_text("id: knob-broken\nname: [not, text\n")  # broken
    for n in range(3):
        named = rng.sample(range(knobs), 3)
        (root / f"docs/doc-{n}.md").write_text(
            f"# Doc {n}\n\nTEAM_KNOB_{named[0]}_BLOCKS and knob-{named[1]} matter; see incident-{n}.\n"
            f"\nKNOB_{named[2]}_BLOCKS too.\n")
    repo = GitRepo(repository or root)
    repo.git("add", "-A")
    repo.git("commit", "-q", "-m", "the knowledge base", when="2026-10-20T00:00:00Z")


def fixture_roots(tmp_path: Path) -> dict[str, Path]:
    """Every fixture story of test_verdicts, the seed story's steps, and random knowledge bases."""
    from ..site_support import copy_knowledge_base

    roots = {}
    for name, change in FIXTURES.items():
        roots[name] = copy_knowledge_base(tmp_path / re.sub(r"\W+", "-", name))
        change(roots[name])
    for step in (2, 3):
        roots[f"story step {step}"] = tmp_path / f"step-{step}"
        story_until(roots[f"story step {step}"], step)
    for seed in range(6):
        roots[f"random {seed}"] = tmp_path / f"random-{seed}"
        random_kb(roots[f"random {seed}"], seed)
    return roots


def test_records_depend_on_each_other_only_through_the_ids_they_name(tmp_path):
    """Each connected part of a knowledge base, checked alone, finds in its files exactly what the
    whole check finds there: what `recheck` rests on."""
    today = reference_date()
    parts_checked = 0
    for name, root in fixture_roots(tmp_path).items():
        whole = pipeline.check_knowledge_base(root, pipeline.CheckMode(ledger=True, cache=False))
        ledger = whole.ledger
        assert ledger is not None, name
        by_key = recheck._files_by_key(ledger.files)
        left = {path for path, facts in ledger.files.items() if facts.valid}
        while left:
            part_files = recheck._connected(ledger.files, by_key, [left.pop()])
            left -= part_files
            part = pipeline.load_records(root, {}, cache=False, only=part_files, broken_elsewhere=ledger.broken_ids)
            settings = RuleSettings(today, part.config.revert_overdue_days)
            for item in (item for rule in RULES for item in rule(part.catalog, root, settings)):
                part.by_file.setdefault(item.path, []).append(item)
            assert set(part.by_file) <= part_files
            for path in part_files:
                assert sorted(part.by_file.get(path, []), key=lambda f: (f.sort_key, f.subject or "")) == \
                    sorted(ledger.by_file.get(path, ()), key=lambda f: (f.sort_key, f.subject or "")), (name, path)
            parts_checked += 1
    assert parts_checked > 30  # the random knowledge bases fall into many parts


def test_the_random_knowledge_bases_link_records_across_kinds(tmp_path):
    """The property above proves something only if parts hold several records that name each other."""
    random_kb(tmp_path / "kb", 0)
    ledger = pipeline.check_knowledge_base(tmp_path / "kb", pipeline.CheckMode(ledger=True, cache=False)).ledger
    assert ledger is not None
    by_key = recheck._files_by_key(ledger.files)
    sizes = [len(recheck._connected(ledger.files, by_key, [path])) for path in ledger.files if ledger.files[path].valid]
    assert max(sizes) >= 4 and min(sizes) == 1
    codes = {f.code for found in ledger.by_file.values() for f in found}
    assert {"reclaimable-knob", "dangling-ref", "yaml-syntax", "status-mismatch"} <= codes


# ---- kb check after edits: a re-check where one can follow the edit, and always a cold run's output


def cold(kb, root, monkeypatch):
    with monkeypatch.context() as patch:
        patch.setenv("INCIDENT_KB_CACHE", "off")
        return kb("check", "--root", root)


def counting(monkeypatch) -> dict[str, int]:
    """How many whole checks and how many re-checks ran from now on."""
    runs = {"whole": 0, "re-check": 0}
    whole, partial = pipeline.check_knowledge_base, recheck.recheck

    def counted_whole(*args, **kwargs):
        runs["whole"] += 1
        return whole(*args, **kwargs)

    def counted_partial(*args, **kwargs):
        done = partial(*args, **kwargs)
        runs["re-check"] += done is not None
        return done

    monkeypatch.setattr(pipeline, "check_knowledge_base", counted_whole)
    monkeypatch.setattr(recheck, "recheck", counted_partial)
    return runs


def _set(path: Path, pattern: str, new: str) -> None:
    text = path.read_text()
    changed, count = re.subn(pattern, new, text, count=1, flags=re.MULTILINE)
    assert count, f"{pattern!r} not in {path}"
    path.write_text(changed)


def _record(root: Path, rng: random.Random, folder: str) -> Path:
    return rng.choice(sorted(p for p in (root / folder).glob("*.yaml") if "broken" not in p.read_text()))


# Edits a re-check follows: the record keeps its id, names and docs; what it names may change.
FOLLOWED = {
    "a hypothesis's status": lambda root, rng: _set(
        _record(root, rng, "incidents"), r"^    status: \w+$", f"    status: {rng.choice(STATUSES)}"),
    "the incident a change was made under": lambda root, rng: _set(
        _record(root, rng, "knobs"), r"^    status: \w+\n    incident: [\w-]+$",
        f"    status: reverted\n    incident: incident-{rng.randrange(8)}"),
    "a new revert under a hypothesis": lambda root, rng: _append(
        _record(root, rng, "knobs"), "  - date: 2026-10-30\n    status: reverted\n"
                                     f"    incident: incident-{rng.randrange(8)}\n"
                                     f"    hypothesis: h{rng.randrange(3)}\n"),
    "the knob's status": lambda root, rng: _set(
        _record(root, rng, "knobs"), r"^status: \w+$", f"status: {rng.choice(('active', 'reverted'))}"),
    "a measured gain": lambda root, rng: _set(
        _record(root, rng, "knobs"), r"^value: \d+$", f"value: {rng.choice((128, 256, 512, 1024))}"),
    "a suspect": lambda root, rng: _set(
        _record(root, rng, "incidents"), r"suspect: \{knob: [\w-]+\}", f"suspect: {{knob: knob-{rng.randrange(16)}}}"),
    "the summary only": lambda root, rng: _set(_record(root, rng, "knobs"), r"^summary: .*$", "summary: Edited."),
}
# Edits a re-check leaves to a whole check.
WHOLE = {
    "an id": lambda root, rng: _set(_record(root, rng, "knobs"), r"^id: knob-(\d+)$", r"id: knob-\1-renamed"),
    "a setting name": lambda root, rng: _set(_record(root, rng, "knobs"), r"^name: TEAM_(\w+)$", r"name: OTHER_\1"),
    "an alias": lambda root, rng: _append(_record(root, rng, "knobs"), "aliases: [KNOB_ALIAS]\n"),
    "a record broken": lambda root, rng: _append(_record(root, rng, "incidents"), "status: [\n"),
    "a record added": lambda root, rng: (root / f"knobs/knob-new-{rng.randrange(10**6)}.yaml").write_text(
        f"id: knob-new\nname: NEW_{rng.randrange(10**6)}\nsummary: New.\nvalue: 1\nstatus: active\n"
        "history:\n  - date: 2026-10-01\n    status: active\n    incident: incident-1\n"),
    "a doc": lambda root, rng: _append(root / "docs/doc-1.md", f"\nTEAM_KNOB_{rng.randrange(14)}_BLOCKS again.\n"),
    "a commit": lambda root, rng: GitRepo(root, init=False).git("commit", "-q", "-am", "edits",
                                                                  when="2026-10-25T00:00:00Z", check=False),
}


def _append(path: Path, text: str) -> None:
    path.write_text(path.read_text() + text)


@pytest.mark.parametrize("seed, where", one_fast([(0, "kb"), (1, "kb"), (2, "kb"), (3, "repo/team/kb")]))
def test_a_series_of_edits_prints_what_a_cold_check_prints(kb, tmp_path, monkeypatch, seed, where):
    """Random edits of a random knowledge base (the last one in a subfolder of its repository)."""
    root = tmp_path / where
    random_kb(root, seed, repository=tmp_path / "repo" if where.startswith("repo/") else None)
    rng = random.Random(seed)
    kb("check", "--root", root)
    runs = counting(monkeypatch)
    colds = 0
    for step in range(24):
        kind = rng.choice([*FOLLOWED] * 3 + [*WHOLE])
        edits = FOLLOWED if kind in FOLLOWED else WHOLE
        try:
            edits[kind](root, rng)
        except AssertionError:  # this record has nothing to edit that way
            continue
        assert kb("check", "--root", root) == cold(kb, root, monkeypatch), f"step {step}: {kind}"
        colds += 1
    assert runs["re-check"] >= 6 and runs["whole"] - colds >= 2, runs  # both paths were taken


# ---- the one way records depend on each other that is not an id: git's rename pairing -----------------

_PAIRED = """id: {id}
name: {name}
summary: Decode batch size.
value: {value}
status: active
kind: env
default: 256
description: Chosen after a sweep of the decode batch sizes on the staging cluster, then measured again.
history:
  - date: 2026-10-01
    status: active
"""


@pytest.mark.parametrize("guarded", [True, False])
def test_an_edit_that_moves_git_s_rename_pairing_is_checked_whole(kb, tmp_path, monkeypatch, guarded):
    """git pairs a deleted record with the most similar added one: editing one added record can move
    another record's history onto a third. Such an edit is no job for a re-check (`Ledger.pairable`);
    without that guard the re-check keeps a finding that no longer holds, or misses one."""
    root = tmp_path / "kb"
    repo = GitRepo(root)
    repo.write("knobs/batch.yaml", _PAIRED.format(id="batch", name="BATCH", value=64))
    repo.write("docs/tuning.md", "# Tuning\n\nSee knob-c and knob-d.\n")
    repo.commit("the knob and its doc", "2026-10-02T00:00:00Z")
    repo.write("knobs/batch.yaml", _PAIRED.format(id="batch", name="BATCH", value=128))
    repo.commit("128 now", "2026-10-03T00:00:00Z")  # a material change the doc has not seen
    repo.git("rm", "-q", "knobs/batch.yaml")  # then split in two, both staged: git pairs it with the closer
    repo.write("knobs/knob-c.yaml", _PAIRED.format(id="knob-c", name="BATCH_C", value=128))
    repo.write("knobs/knob-d.yaml", _PAIRED.format(id="knob-d", name="BATCH_D", value=128).replace(
        "Decode batch size.", "Decode batch size, second pool."))
    repo.git("add", "knobs")
    if not guarded:  # git's answer about what is new in the work tree, dropped
        from incident_kb.history import timelines

        original = timelines.History
        monkeypatch.setattr(timelines, "History", lambda *args: original(*args[:4]))
    first = kb("check", "--root", root)
    assert "stale-doc" in first.out and "knob 'knob-c'" in first.out and "knob 'knob-d'" not in first.out, first.out
    runs = counting(monkeypatch)
    path = root / "knobs/knob-c.yaml"
    path.write_text(path.read_text().replace("description: Chosen after a sweep", "description: Picked by hand,\n"
                                             "  not measured; see the notes from the October review. "
                                             "Chosen after a sweep"))
    after = kb("check", "--root", root)
    expected = cold(kb, root, monkeypatch)
    assert "knob 'knob-d'" in expected.out and "knob 'knob-c'" not in expected.out  # the pairing moved
    if guarded:
        assert after == expected and runs == {"whole": 2, "re-check": 0}  # a whole check, then the cold one
    else:
        assert after != expected and runs["re-check"] == 1  # what the guard is for


# ---- findings that ask git for a record's old versions ---------------------------------------------------

_UNDER_REFUTED = """id: pool
name: POOL_SIZE
summary: Pool size.
value: {value}
status: active
kind: env
history:
  - date: 2026-10-01
    status: active
{changed}"""
_CHANGE = "  - date: 2026-10-05\n    status: active\n    incident: outage\n    hypothesis: pool-too-small\n"
_OUTAGE = """id: outage
title: Outage
status: open
started: 2026-10-04
hypotheses:
  - id: pool-too-small
    statement: The pool is too small.
    status: refuted
"""


def test_a_finding_that_asks_git_for_old_versions_is_decided_again_when_history_moves(kb, tmp_path, monkeypatch):
    """changed-under-refuted says what to change back to from the record's committed versions when its
    history entry does not: two branches with the same files and different pasts tell it apart, and a
    checkout (no file changed, git's view moved) must decide it again."""
    root = tmp_path / "kb"
    repo = GitRepo(root)

    def history(before: int) -> None:
        repo.write("incidents/outage.yaml", _OUTAGE)
        repo.write("knobs/pool.yaml", _UNDER_REFUTED.format(value=before, changed=""))
        repo.commit(f"pool at {before}", "2026-10-01T00:00:00Z")
        repo.write("knobs/pool.yaml", _UNDER_REFUTED.format(value=120, changed=_CHANGE))
        repo.commit("pool at 120, under a hypothesis", "2026-10-05T00:00:00Z")

    history(50)
    repo.git("checkout", "-q", "--orphan", "other")
    history(60)  # the same files as main now holds, another past
    repo.git("checkout", "-q", "main")
    first = kb("check", "--root", root)
    assert "set to 50 from 120" in first.out, first.out
    runs = counting(monkeypatch)
    repo.git("checkout", "-q", "other")
    after = kb("check", "--root", root)
    assert after == cold(kb, root, monkeypatch) and "set to 60 from 120" in after.out
    assert runs["re-check"] == 1  # the history moved: a re-check, which decided that record again
