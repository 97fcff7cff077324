"""Text-level YAML edits: any value reads back as itself, new lines follow the file's indentation,
and nothing else in the text moves."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from generator.authoring.yaml_splice import Editor, EditError
from generator.authoring.yaml_emit import Flow, FlowList, Quoted
from generator.records.yaml_source import parse_yaml

TRICKY = [
    "plain words", "yes", "no", "null", "~", "512", "12.8", "1e3", "0x1F", "true", "2026-11-05", "", " leading",
    "trailing ", "it's", 'say "hi"', "a: b", "a #b", "#hash", "- dash", "? q", "{x}", "[x]", "a, b", "@at", "`tick",
    "%pct", "!bang", "*star", "&amp", "|pipe", ">gt", "tab\there", "bell\x07", "ünïcödé ✓", "x" * 150,
    "word " * 40 + "end", "two\nlines", "ends with newline\n", "blank\n\nline\n\n", " indented\nfirst line",
    'quote " and \' both', "next\x85line", "line\u2028separator", "para\u2029separator", "lone\rcr",
    "lone cr at the end\r", "crlf\r\ninside", "del\x7f", "nbsp\xa0", "bom\ufeff", "zero\u200bwidth", "\U0001f600 emoji",
]
KEYS = [value for value in TRICKY if "\n" not in value and len(value) < 100] + [
    "a: b", "true", "*a", "&a", "!tag", "? q", "?q", "-", ":", "1", "1.5", "null", "~", "2026-11-05", "x'y", "k,v"]


@pytest.mark.parametrize("value", TRICKY)
def test_any_text_reads_back_as_itself(value):
    editor = Editor("a: 1\nlist:\n  - x\n")
    editor.set((), "a", value)
    editor.set((), "b", {"nested": value, "flow": Flow(k=value)})
    editor.append(("list",), value)
    editor.append(("list",), {"k": value, "other": value})
    editor.check()


@pytest.mark.parametrize("key", KEYS)
def test_any_key_reads_back_as_itself(key):
    editor = Editor("a: 1\nlist:\n  - x\n")
    editor.set((), "conditions", Flow({key: 1, "other": key}))
    editor.set((), "block", {key: key})
    editor.append(("list",), {key: 2})
    editor.check()


@pytest.mark.parametrize("value", [512, 12.8, -1, True, False, None, date(2026, 11, 5), datetime(2026, 11, 5, 20, 25),
                                   Quoted("^\\s*x #y"), FlowList(["a", "b,c"]), {}, []])
def test_other_values_read_back_as_themselves(value):
    editor = Editor("a: 1\n")
    editor.set((), "a", value)
    editor.set((), "b", value)
    editor.check()
    assert parse_yaml(editor.text).value == {"a": value, "b": value}


def test_new_lines_follow_the_files_indentation():
    text = "history:\n- date: 2026-11-02\n  status: active\nscope:\n    model: x\n"
    editor = Editor(text)
    editor.append(("history",), {"date": date(2026, 11, 4), "status": "reverted", "extra": {"a": 1}})
    editor.check()
    assert editor.text == text.replace("scope:", "- date: 2026-11-04\n  status: reverted\n  extra:\n      a: 1\nscope:")


def test_a_file_without_a_final_newline():
    editor = Editor("a: 1\nlist:\n  - x")
    editor.append(("list",), "y")
    editor.set((), "z", "last")
    editor.check()
    assert editor.text == "a: 1\nlist:\n  - x\n  - y\nz: last\n"


def test_a_key_that_sorts_first_goes_before_the_first_key_even_on_a_dash_line():
    editor = Editor("items:\n  - b: 2  # two\n    c: 3\n")
    editor.set(("items", 0), "a", 1, order=["a", "b", "c"])
    editor.check()
    assert editor.text == "items:\n  - a: 1\n    b: 2  # two\n    c: 3\n"


def test_comments_inside_the_last_item_stay_inside_it():
    editor = Editor("list:\n  - a: 1\n    # about a\n  # about the list\nnext: 1\n")
    editor.append(("list",), {"a": 2})
    assert editor.text == "list:\n  - a: 1\n    # about a\n  - a: 2\n  # about the list\nnext: 1\n"


def test_nested_blocks_are_not_replaced():
    editor = Editor("a:\n  b: 1\n")
    with pytest.raises(EditError, match="'a' holds nested lines"):
        editor.set((), "a", "flat")


def test_blank_lines_kept_by_a_block_scalar_stay_with_it():
    editor = Editor("list:\n  - |+\n    kept\n\n\nnext: 1\n")
    editor.append(("list",), "new")
    editor.check()
    assert editor.text == "list:\n  - |+\n    kept\n\n\n  - new\nnext: 1\n"


@pytest.mark.parametrize("value", ["reverted", "two\nlines\n", "x" * 150, {"nested": 1}])
def test_a_comment_between_a_key_and_its_value_stays(value):
    text = "id: x\nstatus:  # ask #perf-team before changing this\n  active   # since May\nnext: 1\n"
    editor = Editor(text)
    editor.set((), "status", value)
    editor.check()
    assert "status:  # ask #perf-team before changing this\n" in editor.text
    assert editor.text.endswith("next: 1\n")


def test_only_the_value_below_its_key_changes():
    editor = Editor("status:  # ask first\n\n  # really\n  active  # now\nnext: 1\n")
    editor.set((), "status", "reverted")
    assert editor.text == "status:  # ask first\n\n  # really\n  reverted  # now\nnext: 1\n"


@pytest.mark.parametrize("block", ["|", "|-", ">", "|2"])
def test_a_block_whose_last_line_is_spaces_keeps_them(block):
    text = f"a: 1\nlist:\n  - {block}\n    text\n     \n  - |\n    more\n      \nnext: 1\n"
    editor = Editor(text)
    editor.append(("list",), "new")
    editor.set((), "next", 2)
    editor.check()
    assert editor.text == text.replace("      \nnext: 1", "      \n  - new\nnext: 2")
