"""records.by_record: a result kept by the record object, never handed to another record (an edited
record is a new object, even at the address of a dropped one), and dropped with its record."""

from __future__ import annotations

import gc

from incident_kb.gains.verdicts import claimed_gains
from incident_kb.records.by_record import by_record
from incident_kb.records.schema import Knob
from incident_kb.website.core.changes import knob_changes

KNOB = {"id": "pool-size", "name": "POOL_SIZE", "summary": "Connections in the pool.", "value": 64,
        "status": "active", "default": 32,
        "measurements": [{"metric": "output throughput", "conditions": {"concurrency": 8}, "delta_pct": 4.0}],
        "history": [{"date": "2026-11-01", "status": "active", "value": 64}]}


def test_the_same_record_object_gets_the_result_worked_out_once():
    calls: list[str] = []

    @by_record
    def summary_of(knob: Knob) -> str:
        calls.append(knob.id)
        return knob.summary

    knob = Knob.model_validate(KNOB)
    assert summary_of(knob) == summary_of(knob) == "Connections in the pool."
    assert calls == ["pool-size"]


def test_each_setting_gets_its_own_result():
    @by_record
    def page(knob: Knob, directory_urls: bool) -> str:
        return f"knobs/{knob.id}/" if directory_urls else f"knobs/{knob.id}.html"

    knob = Knob.model_validate(KNOB)
    assert [page(knob, True), page(knob, False), page(knob, True)] == \
        ["knobs/pool-size/", "knobs/pool-size.html", "knobs/pool-size/"]


def test_an_edited_record_gets_its_own_result_even_where_the_old_one_lived():
    @by_record
    def summary_of(knob: Knob) -> str:
        return knob.summary

    addresses = set()
    for number in range(200):  # dropped objects' addresses are taken again by new ones
        knob = Knob.model_validate({**KNOB, "summary": f"Summary {number}."})
        assert summary_of(knob) == f"Summary {number}."
        addresses.add(id(knob))
        del knob  # gone at once (no cycle): a whole collection each time took a minute in a long test run
    assert len(addresses) < 200, "no address was taken again: the test proved nothing"


def test_results_go_with_their_records():
    kept: dict[int, object] = {}

    @by_record
    def identity(knob: Knob) -> int:
        kept[id(knob)] = knob.id
        return id(knob)

    knobs = [Knob.model_validate({**KNOB, "id": f"knob-{n}"}) for n in range(5)]
    for knob in knobs:
        identity(knob)
    closure = identity.__closure__  # type: ignore[attr-defined]
    known = next(cell.cell_contents for cell in closure if isinstance(cell.cell_contents, dict))
    assert len(known) == 5
    del knobs, knob
    gc.collect()
    assert known == {}


def test_the_site_and_the_rules_answers_follow_an_edit():
    knob = Knob.model_validate(KNOB)
    later = {"date": "2026-11-03", "status": "active", "value": 128}
    edited = Knob.model_validate({**KNOB, "value": 128, "history": [*KNOB["history"], later]})
    assert len(claimed_gains(knob)) == 1 and claimed_gains(edited) == ()  # measured at 64, not at 128
    assert len(knob_changes(knob)) == 1 and knob_changes(edited)[-1].value_change == "64 -> 128"
