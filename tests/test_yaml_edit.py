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
    'quote " and \' both',
]


@pytest.mark.parametrize("value", TRICKY)
def test_any_text_reads_back_as_itself(value):
    editor = Editor("a: 1\nlist:\n  - x\n")
    editor.set((), "a", value)
    editor.set((), "b", {"nested": value, "flow": Flow(k=value)})
    editor.append(("list",), value)
    editor.append(("list",), {"k": value, "other": value})
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
