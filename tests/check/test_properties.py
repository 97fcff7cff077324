"""Property-based hunting for the next hostile input: random records, and random mutations of the
real ones, through load -> validate -> check (every output format) -> render. Whatever the input,
kb ends in findings (exit 0 or 1) or in exit 2 with one line: never a traceback, never a hang.

The everyday run is modest (a few dozen examples per property); the `slow` one digs deeper, each
property in a file of its own (test_properties_deeper_*.py): the full suite keeps a file on one worker
(--dist loadfile), and together they were the longest file of the suite.
"""

from __future__ import annotations

import io
import json
import tempfile
from contextlib import redirect_stderr, redirect_stdout
from datetime import UTC, timedelta, timezone
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from incident_kb.cli import main

from ..conftest import SEED, SEED_INCIDENT, SEED_KNOB

SEED_TEXT = {SEED_KNOB: (SEED / SEED_KNOB).read_text(), SEED_INCIDENT: (SEED / SEED_INCIDENT).read_text()}
FIELDS = ["id", "name", "summary", "value", "status", "kind", "component", "default", "description", "tags",
          "scope", "docs", "keep_reverted", "applies_to", "measurements", "history", "title", "started",
          "resolved", "severity", "hypotheses", "root_cause", "timeline", "follow_ups", "lessons", "date", "at",
          "metric", "conditions", "baseline", "delta_pct", "higher_is_better", "path", "pattern", "incident",
          "hypothesis", "evidence", "stance", "text", "suspect", "knob", "statement", "event", "action"]
# Scalars that broke kb once, or look like they might: dates out of range, tags, numbers, escapes.
HOSTILE = ["9999-12-31T23:00:00-05:00", "0001-01-01T00:30:00+05:00", "20261103", "1762300000", "!!int",
           "!!float", "!!bool yes", "!!python/name:os.system foo", "!!binary aGk=", ".inf", "-.inf", ".nan",
           "9" * 400, "1e300", "1e-300", "'$\\foo$'", "'$x^$'", "'(a+)+$'", "'(?=x)'", "*a", "&a x", "[", "{",
           "}", "]", "'", '"', "|", ">", "? x", "- -", "~", "null", "true", "no", "0x1F", "0o17", "'\x7f'",
           '"\\e[2J"', '"\\u0085"', '"\\u202e"', "2026-02-30", "2026-11-05T25:00:00", "''", "'../../etc/passwd'",
           "/etc/passwd", "'docs/../../x.md'", "%", "@x", "`x`", "!local x", "!<tag:x,1:y> z", "---", "..."]
SCALARS = st.one_of(
    st.sampled_from(HOSTILE),
    st.integers(min_value=-(10 ** 30), max_value=10 ** 30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.dates().map(str),
    st.datetimes(timezones=st.sampled_from([None, UTC, timezone(timedelta(hours=-5)),
                                            timezone(timedelta(hours=14))])).map(lambda d: d.isoformat()),
    st.text(max_size=20).map(json.dumps),
    st.text(alphabet=st.characters(codec="utf-8", exclude_characters="\n\r"), max_size=12),
)


def _node(depth: int) -> st.SearchStrategy[object]:
    leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=15),
                     st.sampled_from(["active", "reverted", "open", "refuted", "confirmed", "resolved", "for",
                                      "against", "correlation", "2026-11-05", "deploy/decode.sh", "k", "i"]))
    if depth <= 0:
        return leaf
    return st.one_of(leaf, st.lists(_node(depth - 1), max_size=3),
                     st.dictionaries(st.sampled_from(FIELDS), _node(depth - 1), max_size=5))


RECORDS = st.dictionaries(st.sampled_from(FIELDS), _node(3), max_size=12)


@st.composite
def mutated(draw: st.DrawFn, text: str) -> bytes:
    """A seed record with a few random edits: a value replaced, a line dropped, doubled or added."""
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(lines) - 1))
        action = draw(st.sampled_from(["value", "value", "value", "drop", "double", "insert", "indent"]))
        line = lines[at]
        if action == "value" and ":" in line:
            key = line.split(":", 1)[0]
            lines[at] = f"{key}: {draw(SCALARS)}"
        elif action == "value" and line.lstrip().startswith("- "):
            lines[at] = line[: len(line) - len(line.lstrip())] + "- " + draw(SCALARS)
        elif action == "drop":
            del lines[at]
        elif action == "double":
            lines.insert(at, line)
        elif action == "insert":
            lines.insert(at, draw(st.sampled_from(FIELDS)) + ": " + draw(SCALARS))
        elif action == "indent":
            lines[at] = draw(st.sampled_from(["  ", "\t", " "])) + line
        if not lines:
            lines = [""]
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if draw(st.integers(0, 20)) == 0:  # now and then, bytes no editor would save
        at = draw(st.integers(0, len(data)))
        data = data[:at] + draw(st.binary(min_size=1, max_size=4)) + data[at:]
    return data


def run_kb(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(args))  # anything but KbError propagates: the test fails with its traceback
    return code, out.getvalue(), err.getvalue()


def assert_ends_well(files: dict[str, bytes], render: bool = True) -> None:
    with tempfile.TemporaryDirectory(prefix="kb-property-") as folder:
        root = Path(folder) / "kb"
        for name in ("knobs", "incidents", "docs/design", "deploy"):
            (root / name).mkdir(parents=True)
        (root / "deploy/decode.sh").write_text((SEED / "deploy/decode.sh").read_text())
        for rel_path, data in files.items():
            (root / rel_path).write_bytes(data)
        for output_format in ("text", "json", "github", "gitlab"):
            code, out, err = run_kb("check", "--root", str(root), "--format", output_format)
            problems = [line for line in err.splitlines() if not line.startswith("kb: warning: ")]
            if code == 2:
                assert len(problems) == 1 and problems[0].startswith("kb: "), err
            else:
                assert code in (0, 1) and not problems, (code, err)
                if output_format in ("json", "gitlab"):
                    json.loads(out)
        if render:
            code, _, err = run_kb("render", "--root", str(root), "--out", str(Path(folder) / "site"))
            problems = [line for line in err.splitlines() if not line.startswith("kb: warning: ")]
            assert (code == 0 and not problems) or (code == 2 and len(problems) == 1), (code, err)


EVERYDAY = settings(max_examples=25, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
DEEPER = settings(max_examples=400, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow,
                                                                          HealthCheck.data_too_large])
MUTATED = (mutated(SEED_TEXT[SEED_KNOB]), mutated(SEED_TEXT[SEED_INCIDENT]))


def _mutations_end_in_findings(knob: bytes, incident: bytes) -> None:
    assert_ends_well({SEED_KNOB: knob, SEED_INCIDENT: incident})


def _random_records_end_in_findings(knob: dict[str, object], incident: dict[str, object]) -> None:
    # JSON is YAML: the records hold whatever structure was drawn, with the values as typed.
    assert_ends_well({"knobs/k.yaml": json.dumps(knob).encode(), "incidents/i.yaml": json.dumps(incident).encode()})


test_mutated_seed_records_end_in_findings = EVERYDAY(given(*MUTATED)(_mutations_end_in_findings))
test_random_records_end_in_findings = EVERYDAY(given(RECORDS, RECORDS)(_random_records_end_in_findings))
