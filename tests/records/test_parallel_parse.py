"""A cold check parses the record files on two cores (a forked child parses the last part,
`forked.split_map`): what it reads is what one core reads, broken, invalid and duplicate records
included, with the cache on (its store then gives the same again) and off."""

from __future__ import annotations

import os

import pytest

from incident_kb import forked
from incident_kb.check.pipeline import SITE, check_knowledge_base, parse_records_ahead, read_records
from incident_kb.records import record_cache
from incident_kb.records.record_cache import _parsed, saves_in_background

from ..conftest import copy_seed

RECORDS = 260  # past split_map's least (200)


def _many_records(root):
    copy_seed(root)
    knob = next((root / "knobs").glob("*.yaml")).read_text()
    for index in range(RECORDS):
        text = knob.replace("id: sglang-sm120-mma-target-ctas", f"id: knob-{index:03d}", 1)
        if index % 50 == 7:
            text = text.replace("id: ", "id: [", 1)  # YAML that does not parse
        elif index % 50 == 13:
            text = text.replace("\nstatus: ", "\nstatus: sideways\n_status: ", 1)  # a record that does not validate
        elif index % 50 == 21:
            text = knob  # the seed knob's id again
        (root / "knobs" / f"knob-{index:03d}.yaml").write_text(text)
    return root


def _one_core(monkeypatch):
    monkeypatch.setattr("incident_kb.records.record_cache.split_map",
                        lambda function, items, **_: [function(item) for item in items])


@pytest.mark.parametrize("cache", [True, False])
def test_records_parsed_on_two_cores_are_read_as_on_one(tmp_path, monkeypatch, cache):
    root = _many_records(tmp_path / "kb")
    forks = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    both = read_records(root, {}, cache=False, with_facts=True) if not cache else None
    cold = check_knowledge_base(root) if cache else None
    assert forks, "the records were parsed in one process"
    with monkeypatch.context() as one:
        _one_core(one)
        if cache:
            one.setenv("XDG_CACHE_HOME", str(tmp_path / "other-cache"))
            assert check_knowledge_base(root).findings == cold.findings
        else:
            assert read_records(root, {}, cache=False, with_facts=True) == both
    if cache:
        assert check_knowledge_base(root).findings == cold.findings  # the store's entries, as parsed
        assert {finding.code for finding in cold.findings} >= {"yaml-syntax", "duplicate-id"}


def test_a_check_on_one_core_when_fork_is_missing(tmp_path, monkeypatch):
    root = _many_records(tmp_path / "kb")
    expected = check_knowledge_base(root).findings
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "other-cache"))
    monkeypatch.delattr(forked.os, "fork")
    assert check_knowledge_base(root).findings == expected


def test_a_site_builds_record_cache_is_written_beside_it(tmp_path, monkeypatch):
    """`saves_in_background` (the site's check): the store's entry is written by a forked child; the
    next check waits for it, and parses nothing."""
    root = copy_seed(tmp_path / "kb")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    forks = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    with saves_in_background():
        cold = check_knowledge_base(root, SITE)
    assert forks, "the record cache was written by this process"
    parsed = []
    monkeypatch.setattr(record_cache, "_parsed", lambda file: parsed.append(file) or _parsed(file))
    assert check_knowledge_base(root, SITE).findings == cold.findings
    assert parsed == []


def test_a_parse_started_ahead_is_what_the_check_reads(tmp_path, monkeypatch):
    """A site build starts its cold check's parse as MkDocs starts (`parse_records_ahead`): the check
    takes the child's results, and a file changed since the child read it is read as it is now."""
    root = _many_records(tmp_path / "kb")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    edited = root / "knobs" / "knob-250.yaml"
    (root / "before.yaml").write_bytes(edited.read_bytes())
    edited.write_text(edited.read_text().replace("\nstatus: ", "\nstatus: sideways\n_status: ", 1))
    read_ahead = record_cache._parsed_ahead

    def read_before_the_edit(at, file):  # the child read the file before the edit
        return read_ahead(at, (*file[:2], str(root / "before.yaml")) if file[1] == "knobs/knob-250.yaml" else file)

    monkeypatch.setattr(record_cache, "_parsed_ahead", read_before_the_edit)
    forks = []
    fork = os.fork
    monkeypatch.setattr(os, "fork", lambda: forks.append(1) or fork())
    parse_records_ahead(root)
    assert forks and record_cache._AHEAD, "no parse was started ahead"
    parsed = []
    monkeypatch.setattr(record_cache, "_parsed", lambda file: parsed.append(file.rel_path) or _parsed(file))
    ahead = check_knowledge_base(root, SITE)
    assert not record_cache._AHEAD
    assert "knobs/knob-250.yaml" in parsed and len(parsed) < RECORDS // 2  # the rest came from the child
    with monkeypatch.context() as one:
        _one_core(one)
        one.setenv("XDG_CACHE_HOME", str(tmp_path / "other-cache"))
        assert check_knowledge_base(root, SITE).findings == ahead.findings
    assert any(item.path == "knobs/knob-250.yaml" for item in ahead.findings)


def test_no_parse_ahead_when_the_store_holds_the_records(tmp_path, monkeypatch):
    root = _many_records(tmp_path / "kb")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    check_knowledge_base(root)
    parse_records_ahead(root)
    assert not record_cache._AHEAD
