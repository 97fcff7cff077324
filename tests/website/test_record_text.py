"""Record text is markdown, but nothing in it can run in a reader's browser."""

from __future__ import annotations

import pytest

from incident_kb.website.core.markup import code, label, plain, record_block, record_inline


@pytest.mark.parametrize("text, shown", [
    ("<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;"),
    ("<img src=x onerror=alert(1)>", "&lt;img src=x onerror=alert(1)&gt;"),
    ("<iframe src='https://evil.example'></iframe>", "&lt;iframe src='https://evil.example'&gt;&lt;/iframe&gt;"),
    ("```\n<b>bold?</b>\n```", "&lt;b&gt;bold?&lt;/b&gt;"),
])
def test_raw_html_in_record_text_is_shown_as_text(text, shown):
    html = str(record_block(text))
    assert shown in html
    assert "<script" not in html and "<img" not in html and "<iframe" not in html and "<b>" not in html


def test_links_keep_only_web_targets_and_images_are_dropped():
    html = str(record_block("[a](javascript:alert(1)) [b](https://ok.example/x) ![c](https://cdn.example/x.png)"))
    assert "javascript:" not in html
    assert '<a href="https://ok.example/x" rel="noopener noreferrer">b</a>' in html
    assert "cdn.example" not in html  # a remote image would load from another host


def test_markdown_still_works():
    html = str(record_block("Some *emphasis*, `a<b`, and a list:\n\n- one\n- two"))
    assert "<em>emphasis</em>" in html and "<code>a&lt;b</code>" in html and "<li>one</li>" in html


def test_inline_text_stays_on_one_line_and_cannot_split_a_table_cell():
    inline = str(record_inline("first | second\n\nnext *paragraph* with `x_y*z*`"))
    assert "\n" not in inline
    assert "|" not in inline  # a pipe would start a new table column
    assert "<em>paragraph</em>" in inline
    assert "<code>x&#95;y&#42;z&#42;</code>" in inline  # markdown will not read the code again


def test_plain_values_are_escaped_for_markdown():
    assert str(plain("SGLANG_SM120_MMA_TARGET_CTAS")) == r"SGLANG\_SM120\_MMA\_TARGET\_CTAS"
    assert str(plain("a|b <i>c</i> [d](e)")) == r"a\|b &lt;i&gt;c&lt;/i&gt; \[d\](e)"
    assert str(code("x<y_z")) == "<code>x&lt;y&#95;z</code>"


def test_titles_and_tags_get_look_alikes_because_the_theme_prints_them_raw():
    assert label('</title><script>alert("x")</script> &lt;') == "‹/title›‹script›alert(”x”)‹/script› ＆lt;"
    assert label("user's proxy") == "user's proxy"


BIDI = ["\u202e", "\u202d", "\u202a", "\u2066", "\u2067", "\u2068", "\u2069", "\u200f", "\u2028"]


@pytest.mark.parametrize("char", BIDI, ids=[f"U+{ord(c):04X}" for c in BIDI])
def test_bidirectional_overrides_are_shown_as_the_text_formats_show_them(char):
    """U+202E and kin in record text reached site pages raw: `abc\u202egnp.exe` reads as `abcexe.png`."""
    from incident_kb.check.formats import displayable

    escaped = displayable(char)
    assert escaped == f"\\u{ord(char):04x}"
    for shown in (record_block(f"abc{char}gnp.exe\n\n- item {char}"), record_inline(f"a {char} *b*"),
                  plain(f"x{char}y"), code(f"x{char}y"), label(f"t{char}t")):
        as_read = str(shown).replace("&#92;", "\\").replace("\\\\", "\\")  # a backslash as markdown shows it
        assert char not in str(shown) and escaped in as_read, shown


def test_no_page_kb_render_writes_holds_a_bidirectional_override(kb, seed_kb, tmp_path):
    from ..conftest import SEED_INCIDENT, SEED_KNOB, edit

    edit(seed_kb / SEED_KNOB, "summary: Target", "summary: \"Target \\u202e\\u2066 evil\\u2069\"  # was: Target")
    edit(seed_kb / SEED_INCIDENT, "title: Multi-round", "title: \"\\u202eMulti-round\"  #")
    out = tmp_path / "out"
    result = kb("render", "--root", seed_kb, "--out", out)
    assert result.code == 0, result.err
    pages = {path: path.read_text() for path in out.rglob("*.md")}
    assert not [path for path, text in pages.items() if any(char in text for char in BIDI)]
    assert any("\\u202e" in text for text in pages.values())


@pytest.mark.parametrize("text", [
    "Deployed after benchmarking.\n\nThe queue stalls under load.\n",
    "One.\n\n\nTwo, after two blank lines.",
    "A \"quoted\" word and it's fine.\n\nSecond, 12.8% faster.\n\n",
    "~~~\n\n~~~",  # a fence around a blank line: code, not two paragraphs
    "Tabs\tare expanded.\n\nBy markdown.",
    "First.\n\n    indented: code",
    "First.\n\n- a list",
    "First.\n\n1. a numbered list",
    "Heading below.\n\n# heading",
])
def test_paragraphs_of_plain_text_render_as_markdown_renders_them(text):
    """Plain paragraphs skip markdown (most record text): the HTML must be what markdown and the
    sanitizer make of them."""
    import nh3

    from incident_kb.website.core import markup

    markup._MARKDOWN.reset()
    expected = nh3.clean(markup._MARKDOWN.convert(text), tags=markup._ALLOWED_TAGS,
                         attributes=markup._ALLOWED_ATTRIBUTES, url_schemes=markup._URL_SCHEMES,
                         link_rel="noopener noreferrer")
    assert markup.sanitized_html(text) == expected
