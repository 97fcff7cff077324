"""`--format github` writes every finding into $GITHUB_STEP_SUMMARY, which GitHub renders as markdown
with HTML: record text there shows as the characters it is, as on the pages, never as an image, a
link, emphasis, a heading, an emoji, a mention or a table cell of its own."""

from __future__ import annotations

import html
import re

import pytest

from incident_kb.check.formats import displayable, format_github_summary
from incident_kb.findings import Finding, Severity

from ..conftest import SEED_KNOB

HOSTILE = [
    "![pixel](http://tracker.example/p.png)",
    "[click here](http://evil.example)",
    "<img src=x onerror=alert(1)>",
    "<a href='http://evil.example'>docs</a>",
    "**bold** _em_ ~~gone~~",
    "| all good | error |",
    "x\n## all good\n\nnothing to fix",
    ":white_check_mark: all good",
    "@security-team",
    "$\\mathbf{ok}$",
    "&lt;script&gt;",
    "`code` and `unpaired",
    "\x1b[2J\u202eevil",
    "see www.evil.example/login for the fix",  # GitHub's extended autolink: no scheme, no brackets
]


def cells(row: str) -> list[str]:
    """A table row's cells, split where GitHub splits them: at every '|' not escaped by a backslash."""
    return re.split(r"(?<!\\)\|", row)[1:-1]


@pytest.mark.parametrize("text", HOSTILE)
def test_record_text_in_a_message_is_shown_not_rendered(text):
    summary = format_github_summary([Finding("unknown-field", Severity.ERROR, "knobs/a.yaml", 3, 1, "a",
                                             f"'{text}' is not a field")], "1 knob checked")
    rows = [line for line in summary.splitlines() if line.startswith("| `")]
    assert len(rows) == 1 and len(cells(rows[0])) == 4  # one row, its own four cells
    message = cells(rows[0])[3]
    outside_code = re.sub(r"(`+).*?\1", "", message)
    assert not re.search(r"[<>\[\]()!*_~|:@$\\]", outside_code), message  # nothing markup could read
    assert "www." not in outside_code  # nor GitHub's autolinks
    assert summary.count("\n## ") == 0 and summary.startswith("## kb check\n")
    if "`" not in text:  # what the reader sees: the message's own characters (controls as escapes)
        expected = displayable(f"'{text}' is not a field".replace("\n", " "))
        assert html.unescape(message).strip() == expected


@pytest.mark.parametrize("path", ["knobs/a`b.yaml", "knobs/``x``.yaml", "knobs/a|b.yaml", "knobs/`lead.yaml",
                                  "knobs/[x](y).yaml"])
def test_a_path_is_one_code_span_in_its_own_cell(path):
    summary = format_github_summary([Finding("yaml-syntax", Severity.ERROR, path, 1, 1, None, "bad")], "s")
    row = next(line for line in summary.splitlines() if line.startswith("| `"))
    where = cells(row)[0].strip()
    fence = re.match("`+", where).group(0)
    assert where.endswith(fence) and fence not in where[len(fence):-len(fence)].replace(fence + "`", "")
    assert where[len(fence):-len(fence)].strip().replace("\\|", "|") == f"{path}:1"


def test_hostile_record_text_reaches_the_step_summary_escaped(kb, seed_kb, tmp_path, monkeypatch):
    key = "![x](http://e/x.png) <img src=x> [click](http://evil) | all good :white_check_mark: @team"
    knob = seed_kb / SEED_KNOB
    knob.write_text(knob.read_text() + f'"{key}": 1\n')
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    assert kb("check", "--root", seed_kb, "--format", "github").code == 1
    text = summary.read_text()
    for raw in ("![", "<img", "](", "| all good", ":white_check_mark:", "@team"):
        assert raw not in text, raw
    assert html.unescape(text).count(key) == 1
