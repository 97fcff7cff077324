"""Broken input, however broken, gives exit 1 and a finding with the right file and line: never a
traceback, never a hang, and the other files' findings still appear."""

from __future__ import annotations

import json

import pytest

from ..conftest import SEED, SEED_INCIDENT, SEED_KNOB
from ..forked_kb import kb_forked

K = SEED_KNOB
I = SEED_INCIDENT  # noqa: E741 - K and I name the seed's two record files, as the cases below write them
GOOD_KNOB = (SEED / SEED_KNOB).read_text()
GOOD_INCIDENT = (SEED / SEED_INCIDENT).read_text()


def knob_with(old: str, new: str) -> str:
    assert old in GOOD_KNOB, old
    return GOOD_KNOB.replace(old, new, 1)


def incident_with(old: str, new: str) -> str:
    assert old in GOOD_INCIDENT, old
    return GOOD_INCIDENT.replace(old, new, 1)


def line_of(text: str, needle: str) -> int:
    return text[: text.index(needle)].count("\n") + 1


MINIMAL = "id: k\nname: K\nsummary: s\nvalue: 1\nstatus: active\nhistory:\n  - date: 2026-01-01\n    status: active\n"

# (name, file, content, expected code, expected line)
CASES: list[tuple[str, str, str | bytes, str, int]] = [
    ("unclosed flow list", "knobs/k.yaml", "id: k\ntags: [a, b\nname: x\n", "yaml-syntax", 3),
    ("tab indentation", "knobs/k.yaml", "id: k\nscope:\n\thardware: x\n", "yaml-syntax", 3),
    ("duplicate key", "knobs/k.yaml", MINIMAL + "status: reverted\n", "yaml-syntax", 9),
    ("alias bomb", "knobs/k.yaml",
     'a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\n'
     'c: [*b,*b,*b,*b,*b,*b,*b,*b,*b]\n',
     "yaml-syntax", 2),
    ("deep nesting", "knobs/k.yaml", "a: " + "[" * 100_000, "yaml-syntax", 1),
    ("python tag", "knobs/k.yaml", "id: !!python/object/apply:os.system ['true']\n", "yaml-syntax", 1),
    ("two documents", "incidents/i.yaml", "id: i\n---\nid: j\n", "yaml-syntax", 3),
    ("binary file", "knobs/k.yaml", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "unreadable-file", 0),
    ("not UTF-8", "knobs/k.yaml", b"id: k\nsummary: caf" + b"\xe9\n", "unreadable-file", 2),
    ("5 MB file", "knobs/k.yaml", "id: k\n" + "# padding\n" * 500_000, "unreadable-file", 0),
    ("empty file", "knobs/k.yaml", "", "not-a-mapping", 1),
    ("only comments", "incidents/i.yaml", "# nothing yet\n", "not-a-mapping", 1),
    ("top-level list", "knobs/k.yaml", "- id: k\n", "not-a-mapping", 1),
    ("top-level scalar", "knobs/k.yaml", "just some words\n", "not-a-mapping", 1),
    ("typo in field", K, knob_with("summary:", "sumary:"), "unknown-field", line_of(GOOD_KNOB, "summary:")),
    ("unknown nested field", I,
     incident_with("    stance: for\n",
                   "    stance: for\n        weight: 3\n".replace("    stance: for\n        weight",
                                                                  "    stance: for\n    weight")),
     "unknown-field", 0),
    ("missing required field", K,
     knob_with("summary: Target", "description2: Target").replace("description2", "# ").replace("# :", "#"),
     "missing-field", 0),
    ("status not in enum", K, knob_with("status: active\nkind", "status: enabled\nkind"), "bad-value",
     line_of(GOOD_KNOB, "status: active\nkind")),
    ("history status typo", K, knob_with("    status: restored", "    status: restord"), "bad-value",
     line_of(GOOD_KNOB, "    status: restored")),
    ("number as text", K, knob_with("delta_pct: 12.8", 'delta_pct: "12.8"'), "bad-type",
     line_of(GOOD_KNOB, "delta_pct: 12.8")),
    ("list where text belongs", K,
     knob_with("name: SGLANG", "name:\n  - SGLANG").replace("\n  - SGLANG_SM120_MMA_TARGET_CTAS\n",
                                                            "\n  - SGLANG_SM120_MMA_TARGET_CTAS\n", 1),
     "bad-type", line_of(GOOD_KNOB, "name: SGLANG")),
    ("bad date", I, incident_with("started: 2026-11-03", "started: 2026-13-45"), "bad-value",
     line_of(GOOD_INCIDENT, "started: 2026-11-03")),
    ("id not a slug", K, knob_with("id: sglang-sm120-mma-target-ctas", "id: SGLANG Knob"), "bad-value", 4),
    ("id differs from file name", "knobs/other.yaml", GOOD_KNOB.replace("sglang-sm120-mma-target-ctas", "other", 0),
     "duplicate-id", 4),
    ("dangling hypothesis", K, knob_with("    hypothesis: target-ctas-causes-hang\n    note: >-\n      Removed",
                                         "    hypothesis: target-ctas-did-it\n    note: >-\n      Removed"),
     "dangling-ref", line_of(GOOD_KNOB, "    hypothesis: target-ctas-causes-hang\n    note: >-\n      Removed")),
    ("dangling suspect knob", I, incident_with("suspect: {knob: sglang-sm120-mma-target-ctas}",
                                               "suspect: {knob: no-such-knob}"),
     "dangling-ref", line_of(GOOD_INCIDENT, "suspect: {knob:")),
    ("history out of order", K, knob_with("  - date: 2026-11-07", "  - date: 2026-11-01"), "date-order",
     line_of(GOOD_KNOB, "  - date: 2026-11-07")),
    ("resolved before started", I, incident_with("resolved: 2026-11-07", "resolved: 2026-11-01"), "date-order",
     line_of(GOOD_INCIDENT, "resolved: 2026-11-07")),
    ("status disagrees with history", K, knob_with("status: active\nkind", "status: reverted\nkind"),
     "status-mismatch", line_of(GOOD_KNOB, "status: active\nkind")),
    ("root cause not confirmed", I, incident_with("    status: confirmed", "    status: open"), "root-cause",
     line_of(GOOD_INCIDENT, "  hypothesis: client-proxy-fault")),
    ("absolute doc path", K, knob_with("  - docs/design/DSV4_DECODE_PERF_PLAN.md\n  - docs",
                                       "  - /etc/passwd\n  - docs"),
     "bad-path", line_of(GOOD_KNOB, "  - docs/design/DSV4_DECODE_PERF_PLAN.md\n  - docs")),
    ("path escaping the repository", K, knob_with("  - path: deploy/decode.sh", "  - path: ../../outside.sh"),
     "bad-path", line_of(GOOD_KNOB, "  - path: deploy/decode.sh")),
    ("missing deploy file", K, knob_with("  - path: deploy/decode.sh", "  - path: deploy/decoder.sh"),
     "missing-path", line_of(GOOD_KNOB, "  - path: deploy/decode.sh")),
    # The seed knob relies on the default pattern; this one gives its own, with a placeholder.
    ("invalid regular expression", K, knob_with("  - path: deploy/decode.sh\n",
                                                "  - path: deploy/decode.sh\n    pattern: '(^{name}='\n"),
     "bad-value", line_of(GOOD_KNOB, "  - path: deploy/decode.sh") + 1),
]


def _fix_cases() -> list[tuple[str, str, str | bytes, str, int]]:
    """Cases whose expected line is easiest computed from the content itself (marked 0 above)."""
    fixed = []
    for name, path, content, code, line in CASES:
        if name == "unknown nested field":
            content = GOOD_INCIDENT.replace("        stance: for\n", "        stance: for\n        weight: 3\n", 1)
            line = line_of(content, "        weight: 3")
        elif name == "missing required field":
            content = "\n".join(row for row in GOOD_KNOB.splitlines() if not row.startswith("summary:")) + "\n"
            line = line_of(content, "id:")
        elif name == "id differs from file name":
            content, code, line = GOOD_KNOB, "id-mismatch", line_of(GOOD_KNOB, "id:")
        elif name == "id not a slug":
            line = line_of(GOOD_KNOB, "id:")
        fixed.append((name, path, content, code, line))
    return fixed


@pytest.mark.parametrize(("name", "rel_path", "content", "code", "line"), _fix_cases(), ids=[c[0] for c in CASES])
def test_broken_input_gives_a_located_finding(kb, seed_kb, name, rel_path, content, code, line):
    target = seed_kb / rel_path
    if isinstance(content, bytes):
        target.write_bytes(content)
    else:
        target.write_text(content)
    result = kb("validate", "--root", seed_kb, "--format", "json")
    assert result.code == 1, result.out
    assert "Traceback" not in result.out + result.err
    found = json.loads(result.out)["findings"]
    matching = [f for f in found if f["code"] == code and f["path"] == rel_path]
    assert matching, f"no {code} on {rel_path}; got {[(f['code'], f['path'], f['line']) for f in found]}"
    expected_line = line if line else 1
    assert matching[0]["line"] == expected_line, matching[0]
    assert matching[0]["message"].strip()


def test_a_broken_file_never_hides_findings_in_the_others(kb, seed_kb):
    (seed_kb / "knobs/broken.yaml").write_bytes(b"\x00\x01")
    (seed_kb / SEED_KNOB).write_text(knob_with("summary:", "sumary:"))
    (seed_kb / "incidents/also-broken.yaml").write_text("id: [\n")
    result = kb("validate", "--root", seed_kb, "--format", "json")
    paths = {(f["path"], f["code"]) for f in json.loads(result.out)["findings"]}
    assert {("knobs/broken.yaml", "unreadable-file"), (SEED_KNOB, "unknown-field"),
            ("incidents/also-broken.yaml", "yaml-syntax")} <= paths


def test_references_to_a_broken_record_are_not_reported_as_dangling(kb, seed_kb):
    (seed_kb / SEED_KNOB).write_text(knob_with("value: 512", "value: [512]"))
    result = kb("validate", "--root", seed_kb, "--format", "json")
    codes = [f["code"] for f in json.loads(result.out)["findings"]]
    assert codes == ["bad-type"]


def test_worst_inputs_through_the_real_command_print_no_traceback(seed_kb):
    (seed_kb / "knobs/bomb.yaml").write_text("a: &a [x, x]\nb: [*a, *a]\n")
    (seed_kb / "knobs/deep.yaml").write_text("[" * 200_000)
    (seed_kb / "incidents/bin.yaml").write_bytes(bytes(range(256)) * 100)
    proc = kb_forked("check", "--root", seed_kb)  # a process of its own: a crash of the interpreter shows
    assert proc.returncode == 1
    assert "Traceback" not in proc.stdout + proc.stderr
    assert "knobs/deep.yaml:1:" in proc.stdout and "knobs/bomb.yaml:2:" in proc.stdout


# ---- hostile values: each class with its variations, each a located finding -----------------------

# (name, file, old text, new text, expected code, expected message part)
HOSTILE_VALUES: list[tuple[str, str, str, str, str, str]] = [
    # Dates: overflow once in UTC, and numbers that pydantic would read as seconds since 1970.
    ("date-time past year 9999 in UTC", I, "started: 2026-11-03", "started: 9999-12-31T23:00:00-05:00",
     "bad-value", "outside years 1 to 9999"),
    ("date-time before year 1 in UTC", I, "started: 2026-11-03", "started: 0001-01-01T00:30:00+05:00",
     "bad-value", "outside years 1 to 9999"),
    ("integer date", I, "started: 2026-11-03", "started: 20261103", "bad-value", "expected a date"),
    ("epoch seconds as a date", K, "    date: 2026-11-02\n", "    date: 1762300000\n", "bad-value", "expected a date"),
    ("small integer as a time", I, "  - at: 2026-11-02", "  - at: 100", "bad-value", "expected a date"),
    ("float as a date", I, "resolved: 2026-11-07", "resolved: 1762300000.5", "bad-value", "expected a date"),
    ("flag as a date", I, "        date: 2026-11-04", "        date: true", "bad-value", "expected a date"),
    # Tags: only the core schema's, and only on a value of their type.
    ("empty !!int", K, "value: 512", "value: !!int", "yaml-syntax", "is not a !!int value"),
    ("empty !!float", K, "    delta_pct: 12.8", "    delta_pct: !!float", "yaml-syntax", "is not a !!float value"),
    ("!!bool yes", K, "    delta_pct: 12.8", "    delta_pct: 12.8\n    higher_is_better: !!bool yes",
     "yaml-syntax", "'yes' is not a !!bool value"),
    ("!!bool on", K, "    delta_pct: 12.8", "    delta_pct: 12.8\n    higher_is_better: !!bool on",
     "yaml-syntax", "'on' is not a !!bool value"),
    ("!!bool 1", K, "    delta_pct: 12.8", "    delta_pct: 12.8\n    higher_is_better: !!bool 1",
     "yaml-syntax", "'1' is not a !!bool value"),
    ("python name tag", K, "summary: ", "summary: !!python/name:os.system ", "yaml-syntax",
     "the tag '!!python/name:os.system' is not allowed"),
    ("python object tag on a key", K, "summary:", "!!python/object:os.system summary:", "yaml-syntax",
     "is not allowed"),
    ("binary tag", K, "summary: ", "summary: !!binary ", "yaml-syntax", "the tag '!!binary' is not allowed"),
    ("timestamp tag", I, "started: 2026-11-03", "started: !!timestamp 2026-11-03", "yaml-syntax",
     "the tag '!!timestamp' is not allowed"),
    ("local tag", K, "summary: ", "summary: !secret ", "yaml-syntax", "the tag '!secret' is not allowed"),
    ("verbatim tag", K, "summary: ", "summary: !<tag:example.com,2026:x> ", "yaml-syntax", "is not allowed"),
    ("!!int on text", K, "value: 512", "value: !!int five", "yaml-syntax", "'five' is not a !!int value"),
    # Numbers that break charts: not finite, absurdly large, or a change of absurd size.
    ("infinite delta", K, "    delta_pct: 12.8", "    delta_pct: .inf", "bad-value", "not a finite number"),
    ("negative infinite delta", K, "    delta_pct: 12.8", "    delta_pct: -.Inf", "bad-value", "not a finite number"),
    ("not-a-number delta", K, "    delta_pct: 12.8", "    delta_pct: .nan", "bad-value", "not a finite number"),
    ("400-digit value", K, "    delta_pct: 12.8", "    baseline: 1\n    value: " + "9" * 400, "bad-value",
     "beyond 1e+15 in size"),
    ("1e300 value", K, "    delta_pct: 12.8", "    baseline: 1\n    value: 1e300", "bad-value", "beyond 1e+15"),
    ("tiny baseline, large value", K, "    delta_pct: 12.8", "    baseline: 1e-300\n    value: 1e12", "bad-value",
     "over 10,000 times"),
    ("absurd delta", K, "    delta_pct: 12.8", "    delta_pct: 5e9", "bad-value", "over 10,000 times"),
    ("infinite knob value", K, "value: 512", "value: .inf", "bad-value", "not a finite number"),
    ("not-a-number condition", K, "concurrency: 64", "concurrency: .nan", "bad-value", "not a finite number"),
]


@pytest.mark.parametrize(("name", "rel_path", "old", "new", "code", "message"), HOSTILE_VALUES,
                         ids=[c[0] for c in HOSTILE_VALUES])
def test_hostile_values_give_a_located_finding(kb, seed_kb, name, rel_path, old, new, code, message):
    good = (SEED / rel_path).read_text()
    assert old in good, old
    text = good.replace(old, new, 1)
    (seed_kb / rel_path).write_text(text)
    result = kb("check", "--root", seed_kb, "--format", "json")
    assert result.code == 1, result.out
    found = [f for f in json.loads(result.out)["findings"] if f["path"] == rel_path]
    assert [f["code"] for f in found] == [code], found
    assert message in found[0]["message"]
    changed_line = line_of(text, new.strip().splitlines()[-1].split(":")[0] + ":") if code != "yaml-syntax" else 0
    if changed_line:
        assert found[0]["line"] == changed_line, (found[0], changed_line)


def test_a_tagged_value_of_its_own_type_is_read_as_plain(kb, seed_kb):
    edit_seed = (SEED / K).read_text().replace("value: 512", "value: !!int 512", 1)
    edit_seed = edit_seed.replace("    delta_pct: 12.8",
                                  "    delta_pct: !!float 12.8\n    higher_is_better: !!bool true", 1)
    (seed_kb / K).write_text(edit_seed.replace("summary: ", "summary: !!str ", 1))
    assert kb("check", "--root", seed_kb).code == 0


def test_date_times_with_zones_are_kept_in_utc_and_ordered(kb, seed_kb):
    text = GOOD_INCIDENT.replace("  - at: 2026-11-02", "  - at: 2026-11-02T01:00:00+05:00", 1)
    (seed_kb / I).write_text(text.replace("started: 2026-11-03", "started: 2026-11-02T23:30:00-05:00", 1))
    assert kb("check", "--root", seed_kb).code == 0


@pytest.mark.parametrize("value", ["9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+05:00", "20261103",
                                   "1762300000", "100", "true", "2026-02-30", "!!python/name:os.system x"])
@pytest.mark.parametrize("command", [
    ("timeline", "add", I.split("/")[1][:-5], "--event", "x", "--at"),
    ("evidence", "add", "multi-round-harness-hang", "client-proxy-fault", "--kind", "report", "--stance", "for",
     "--text", "x", "--date"),
    ("restore", "sglang-sm120-mma-target-ctas", "--date"),
    ("new", "incident", "later-one", "--title", "x", "--started"),
])
def test_hostile_dates_on_the_command_line_exit_2_with_one_line(kb, seed_kb, command, value):
    before = {p: p.read_bytes() for p in seed_kb.rglob("*.yaml")}
    result = kb(*command, value, "--root", seed_kb)
    assert result.code == 2, result
    assert result.out == "" and result.err.startswith("kb: ") and result.err.count("\n") == 1, result.err
    assert f"'{value}' is not a date" in result.err and "give e.g. 2026-11-05" in result.err
    assert {p: p.read_bytes() for p in seed_kb.rglob("*.yaml")} == before


def test_a_zoned_date_time_on_the_command_line_is_written_with_its_zone(kb, seed_kb):
    # Issue 21: a time keeps the zone it was given in (it was converted to naive UTC before).
    result = kb("timeline", "add", "multi-round-harness-hang", "--event", "paged", "--at",
                "2026-11-07T23:30:00-05:00", "--root", seed_kb)
    assert result.code == 0, result.err
    assert "(2026-11-07 23:30:00 -05:00)" in result.out
    assert "  - at: 2026-11-07T23:30:00-05:00\n" in (seed_kb / I).read_text()
    assert kb("check", "--root", seed_kb).code == 0
