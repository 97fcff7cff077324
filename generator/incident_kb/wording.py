"""How the tool says counts, dates, articles and commands in its messages: one way, everywhere.

`plural(3, "finding")` is "3 findings", `plural(1, "finding")` "1 finding"; `day()` writes a date
as 2026-11-05 and a date-time with its zone, one way everywhere (messages and pages): as the record
wrote it (2021-10-30 15:51:00 -07:00), or in UTC and labelled so (2026-11-30 13:50:00 UTC) for a
time written without a zone and for times from git; `article()` picks "a" or "an" by the word ("an
incident", "a knob"); `shell_word()` writes a word of a command printed for a user to copy, so that
pasting it runs exactly that (`--root 'team kb'`).
"""

from __future__ import annotations

import re
import shlex
from datetime import date, datetime, timedelta


def plural(count: int, word: str, many: str | None = None) -> str:
    """'1 finding', '2 findings' ('many' for words whose plural is not word + 's')."""
    return f"{count} {word if count == 1 else many or word + 's'}"


def day(moment: date | datetime) -> str:
    """A date as 2026-11-05; a date-time as 2026-11-05 20:25:00 with its zone: '-07:00' as written,
    'UTC' for UTC and for a date-time that carries no zone."""
    if not isinstance(moment, datetime):
        return moment.isoformat()
    text = moment.replace(tzinfo=None).isoformat(sep=" ")
    return f"{text} {zone_text(moment.utcoffset())}"


def zone_text(offset: timedelta | None) -> str:
    """'UTC' for no offset, else the offset as ISO 8601 writes it: '-07:00', '+05:30'."""
    if not offset:
        return "UTC"
    minutes = round(offset.total_seconds() / 60)
    sign = "-" if minutes < 0 else "+"
    hours, rest = divmod(abs(minutes), 60)
    return f"{sign}{hours:02d}:{rest:02d}"


def article(word: object) -> str:
    """`word` after its indefinite article: 'an incident', 'a knob', 'an int' (by its first letter:
    the words kb says this of are kinds and type names, none of them 'unit' or 'hour')."""
    text = str(word)
    return f"{'an' if text[:1].lower() in 'aeiou' and text[:1] else 'a'} {text}"


# What a terminal would not simply show (control characters, line and paragraph separators,
# bidirectional controls, and the lone surrogates that stand for bytes of a name that is not UTF-8).
# The invisible ones beyond the control characters, as a character class's body: every place that
# shows text (terminal output, site pages, printed commands) escapes these.
INVISIBLE_CONTROLS = "\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069"
_UNSHOWABLE = re.compile(f"[\x00-\x1f\x7f-\x9f{INVISIBLE_CONTROLS}\ud800-\udfff]")


def shell_word(text: str) -> str:
    """`text` as one word of a POSIX shell command: bare when nothing in it is special, else in
    single quotes; a word with something a terminal would not show (a newline, a bidirectional
    control, a byte that is not UTF-8) is written `$'...'` with escapes, which bash, zsh and ksh read
    back as the same bytes, so the printed command stays on one line and shows what it runs."""
    if not _UNSHOWABLE.search(text):
        return shlex.quote(text)
    return "$'" + "".join(_escaped(char) for char in text) + "'"


def yaml_quoted(text: str) -> str:
    """`text` as a YAML single-quoted scalar, as a user writes it in mkdocs.yml (backslashes as they are)."""
    return "'" + text.replace("'", "''") + "'"


def path_word(path: str) -> str:
    """A relative path as one word of a command: `shell_word`, and `./` before one that starts with
    '-', which every command (kb's --root, git, chmod) would read as an option."""
    return shell_word(f"./{path}" if path.startswith("-") else path)


def _escaped(char: str) -> str:
    code = ord(char)
    if char in "\\'":
        return "\\" + char
    if char == "\n":
        return "\\n"
    if char == "\t":
        return "\\t"
    if 0xDC80 <= code <= 0xDCFF:  # a byte that was not UTF-8, kept by surrogateescape
        return f"\\x{code - 0xDC00:02x}"
    if code < 0x80 and _UNSHOWABLE.match(char):
        return f"\\x{code:02x}"
    if _UNSHOWABLE.match(char):
        return f"\\u{code:04x}"
    return char
