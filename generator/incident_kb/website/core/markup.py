"""Record text made safe for the site: markdown written by many hands in, HTML that cannot run out.

Record fields such as a summary or an evidence note are markdown, but raw HTML in them is shown as
text (`<script>` reads as `<script>`), links keep only http(s)/mailto targets, and images are
dropped (a remote image would break the site's offline promise). Markdown is converted here with
raw HTML switched off, then nh3 (the Ammonia sanitizer) cleans the result: the sanitizer is the
last word. Plain values (names, titles, ids) are escaped for markdown. Must not read records.
"""

from __future__ import annotations

import functools
import html
import re

import markdown  # type: ignore[import-untyped]
import nh3
from markupsafe import Markup

from ...wording import INVISIBLE_CONTROLS

_ALLOWED_TAGS = {
    "a", "abbr", "b", "blockquote", "br", "code", "dd", "del", "dl", "dt", "em", "h1", "h2", "h3", "h4",
    "h5", "h6", "hr", "i", "ins", "kbd", "li", "ol", "p", "pre", "s", "strong", "sub", "sup", "table",
    "tbody", "td", "th", "thead", "tr", "ul",
}
_ALLOWED_ATTRIBUTES = {"a": {"href"}, "td": {"align"}, "th": {"align"}, "ol": {"start"}}
_URL_SCHEMES = {"http", "https", "mailto"}

# Characters that mean something to markdown inside a line. Escaping them in a plain value keeps
# `SGLANG_SM120_MMA_TARGET_CTAS` or `a|b` from turning into emphasis or a table column.
_MARKDOWN_SPECIALS = "\\`*_[]{}|"
# The same characters as entities, for text inside HTML that markdown reads again (a table cell).
_ENTITIES = {"\\": "&#92;", "`": "&#96;", "*": "&#42;", "_": "&#95;", "[": "&#91;", "]": "&#93;",
             "{": "&#123;", "}": "&#125;", "|": "&#124;"}
_ENTITY_TABLE = str.maketrans(_ENTITIES)
_TAG = re.compile(r"(<[^>]*>)")


def _converter() -> markdown.Markdown:
    converter = markdown.Markdown(extensions=["tables", "fenced_code", "sane_lists"], output_format="html")
    converter.preprocessors.deregister("html_block")  # raw HTML blocks become text
    converter.inlinePatterns.deregister("html")  # and so do inline tags
    return converter


_MARKDOWN = _converter()
# One line with nothing markdown or HTML would read: most record text. It is one paragraph of
# escaped text, so converting and sanitizing it can be skipped (a large share of a site's build).
_PLAIN_LINE = re.compile(r"(?![-+*>#=|]|\d+[.)]|\s)[^\n\r*_`\[\]<>&\\]+(?<!\s)")
# Paragraphs of such lines between blank lines, as a block scalar gives them (with its last line
# break): each its own <p>. Tabs (markdown expands them) and `~` (a fence spans a blank line) are left
# to markdown.
_PLAIN_PARAGRAPHS = re.compile(rf"(?:{_PLAIN_LINE.pattern})(?:\n\n+(?:{_PLAIN_LINE.pattern}))*\n*")
_PARAGRAPH_BREAK = re.compile(r"\n\n+")


def sanitized_html(text: str) -> str:
    """Record markdown as clean HTML (paragraphs, lists, code, links); control characters and
    bidirectional overrides written as escapes (\\u202e), as the text formats write them."""
    text = showable(text)
    if _PLAIN_LINE.fullmatch(text):
        return f"<p>{html.escape(text, quote=False)}</p>"
    if "\t" not in text and "~" not in text and _PLAIN_PARAGRAPHS.fullmatch(text):
        parts = _PARAGRAPH_BREAK.split(text.rstrip("\n"))
        return "\n".join(f"<p>{html.escape(part, quote=False)}</p>" for part in parts)
    _MARKDOWN.reset()
    return nh3.clean(_MARKDOWN.convert(text), tags=_ALLOWED_TAGS, attributes=_ALLOWED_ATTRIBUTES,
                     url_schemes=_URL_SCHEMES, link_rel="noopener noreferrer")


def record_block(text: str) -> Markup:
    """Record markdown as one HTML block, to stand between blank lines in a page."""
    return Markup(f'<div class="kb-text">\n{sanitized_html(text)}\n</div>')


def record_inline(text: str) -> Markup:
    """Record markdown on one line, safe inside a table cell or a list item.

    Paragraph breaks become line breaks; characters that markdown would read again in the page are
    written as entities, so nothing is interpreted twice.
    """
    body = sanitized_html(text).strip()
    body = re.sub(r"</p>\s*<p>", "<br><br>", body)
    body = re.sub(r"^<p>|</p>$", "", body)
    body = body.replace("\n", " ")
    return Markup("".join(part if part.startswith("<") else _entities(part) for part in _TAG.split(body)))


def showable(value: object) -> str:
    """`str(value)` as a page can show it: control characters (an escape sequence, a DEL),
    bidirectional overrides and line separators (\\u202e), and the bytes of a file name that is not
    UTF-8 (lone surrogates, which no page encoding can write) written as \\xNN."""
    text = str(value)
    return _UNSHOWABLE.sub(_escape, text) if _UNSHOWABLE.search(text) else text


# As the text formats escape (check/formats.py), but for tab and line breaks, which record text keeps.
_UNSHOWABLE = re.compile(f"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f{INVISIBLE_CONTROLS}\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    char = ord(match.group(0))
    if 0xDC80 <= char <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        char -= 0xDC00
    return f"\\x{char:02x}" if char <= 0xFF else f"\\u{char:04x}"


def plain(value: object) -> Markup:
    """A plain value (a name, a title, an id) as markdown that shows exactly that text."""
    return Markup(showable(value).translate(_PLAIN_TABLE))


# plain() in one pass: html.escape's three characters, a line break as a space, markdown's specials
# behind a backslash (the entities hold none of them).
_PLAIN_TABLE = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "\n": " ",
                              **{char: "\\" + char for char in _MARKDOWN_SPECIALS}})


# The markdown the site's own inline markup holds (see plain() and Links.to): a link, and a special
# character escaped with a backslash. Everything else in it is HTML already.
_LINK = re.compile(r"\[((?:\\.|[^\\\]])*)\]\(([^()\s]*)\)")
_ESCAPED = re.compile(r"\\([\\`*_\[\]{}|])")


@functools.lru_cache(maxsize=1 << 16, typed=True)  # a long index's every cell after each save of a live preview
def inline_html(value: Markup) -> str:
    """The site's inline markup (plain text, code, badges, links made here) as the HTML markdown
    makes of it, for a page's script to show without markdown: links keep their `.md` targets."""
    text = _LINK.sub(lambda link: f'<a href="{link.group(2)}">{link.group(1)}</a>', str(value))
    return _ESCAPED.sub(r"\1", text)


def breakable(value: object) -> Markup:
    """plain() for a long identifier (SGLANG_SM120_MMA_TARGET_CTAS, a file name, a host name): a
    narrow column may break it after an underscore or a dot, never inside a word."""
    return Markup("<wbr>").join(plain(part) for part in re.split(r"(?<=[_.])", str(value)))


def code(value: object, nowrap: bool = False) -> Markup:
    """A value in code type (a setting name, a path), safe anywhere in a line. `nowrap` keeps a
    short name (a finding code) on one line in a narrow table column."""
    css = ' class="kb-nowrap"' if nowrap else ""
    return Markup(f"<code{css}>{_entities(html.escape(showable(value), quote=False))}</code>")


def finding_message(text: str, in_markdown: bool = True) -> Markup:
    """A `kb check` message: text in `backticks` as code, the rest as text. `in_markdown`: the
    result stands in a markdown line (a table cell), so markdown's characters are written as
    entities; otherwise it goes into HTML that markdown does not read (a finding box, a banner)."""
    parts = showable(text).split("`")
    if len(parts) % 2 == 0:  # an unpaired backtick is just a character
        parts[-2:] = [parts[-2] + "`" + parts[-1]]
    escape = (lambda t: _entities(html.escape(t, quote=False))) if in_markdown else \
        (lambda t: html.escape(t, quote=False))
    return Markup("".join(f"<code>{escape(part)}</code>" if i % 2 else escape(part) for i, part in enumerate(parts)))


_LOOK_ALIKES = str.maketrans({"<": "‹", ">": "›", "&": "＆", '"': "”"})


def label(value: object) -> str:
    """A page title or a tag name, as MkDocs and Material print them.

    Their templates print titles and tags without escaping, and `striptags` turns `&lt;` back into
    `<`: no escaping survives that, so the characters that could open markup are replaced by
    look-alikes.
    """
    return " ".join(showable(value).translate(_LOOK_ALIKES).split())


def attribute(value: object) -> str:
    """A value for an HTML attribute in double quotes."""
    return _entities(html.escape(showable(value), quote=True))


def _entities(text: str) -> str:
    return text.translate(_ENTITY_TABLE)


# How much a word weighs in the site's search (Pagefind reads data-pagefind-weight; a page's title
# weighs 7, other text 1): the words that name a record, and an incident's root cause, so that the
# record's own page ranks first for them, above pages that merely mention it.
NAME_WEIGHT = 10
CAUSE_WEIGHT = 5


def search_weight(content: Markup, weight: int, block: bool = False) -> Markup:
    """Markup whose words weigh `weight` in search (an attribute other generators ignore); `block`
    for block HTML (record_block's)."""
    tag = "div" if block else "span"
    return Markup(f'<{tag} data-pagefind-weight="{int(weight)}">') + content + Markup(f"</{tag}>")
