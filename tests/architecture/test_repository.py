"""The repository's own knowledge base: it passes its own check, and its generated files are current."""

from __future__ import annotations

import json

from incident_kb.records.schema import json_schema

from ..conftest import REPO


def test_own_records_pass_check(kb):
    result = kb("check", "--root", REPO)
    assert result.code == 0, result.out
    assert "all good: 1 knob, 1 incident checked" in result.out


def test_committed_schemas_are_current():
    for kind in ("knob", "incident"):
        committed = json.loads((REPO / "schemas" / f"{kind}.schema.json").read_text())
        assert committed == json_schema(kind), f"schemas/{kind}.schema.json is stale: run `make schemas`"


def test_every_record_has_an_editor_modeline():
    for folder, kind in (("knobs", "knob"), ("incidents", "incident")):
        for path in (REPO / folder).glob("*.yaml"):
            first = path.read_text().splitlines()[0]
            assert first == f"# yaml-language-server: $schema=../schemas/{kind}.schema.json", path


def test_own_records_are_formatted(kb):
    result = kb("fmt", "--check", "--root", REPO)
    assert result.code == 0, result.out
