"""Setting names as tokens: where a name occurs whole in a text, with its own punctuation.

Settings are not all identifiers: `-XX:MaxGCPauseMillis` (JVM), `net.ipv4.tcp_congestion_control`
(sysctl), `--max-connections` (a command-line flag), `spark.sql.shuffle.partitions` (a dotted key).
A name is found where it stands whole: the text around it does not continue it (a letter, digit or
`_` on either side, or a `.` or `-` that joins it to more of a longer name). So `TIMEOUT_MS` is not in
`SEARCH_UPSTREAM_TIMEOUT_MS`, `net.core.somaxconn` is not in `net.core.somaxconn_max`, and
`--max-connections` is not in `--max-connections-per-host`; `SGLANG_X` is in `export SGLANG_X=512`
and `-XX:MaxGCPauseMillis` in `-XX:MaxGCPauseMillis=200`. The doc references and the deploy-file
readers both ask this module. Text in, positions out.
"""

from __future__ import annotations

from collections.abc import Iterator

_NAME_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_JOINERS = ".-"  # join the parts of one name: net.core.x, max-connections


def is_name_char(char: str) -> bool:
    return char in _NAME_CHARS


def stands_whole(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] (a name) is not continued by the text on either side."""
    name = text[start:end]
    if name[:1] in _NAME_CHARS and start > 0:
        before = text[start - 1]
        if before in _NAME_CHARS or (before in _JOINERS and start > 1 and text[start - 2] in _NAME_CHARS):
            return False
    elif start > 0 and text[start - 1] in _NAME_CHARS:
        return False
    if name[-1:] in _NAME_CHARS and end < len(text):
        after = text[end]
        if after in _NAME_CHARS or (after in _JOINERS and end + 1 < len(text) and text[end + 1] in _NAME_CHARS):
            return False
    return True


def name_positions(text: str, name: str, start: int = 0, end: int | None = None) -> Iterator[int]:
    """Where `name` stands whole in text[start:end]: each start offset."""
    if not name:
        return
    stop = len(text) if end is None else end
    at = text.find(name, start, stop)
    while at != -1:
        if stands_whole(text, at, at + len(name)):
            yield at
        at = text.find(name, at + 1, stop)


def unmatchable_reason(name: str) -> str | None:
    """Why a doc can never name `name` as one token (whitespace in it, no letter or digit at all), or
    None when it can."""
    if name != name.strip() or any(char.isspace() for char in name):
        return "it contains a space or line break, so a doc never writes it as one token"
    if not any(char.isalnum() for char in name):
        return "it has no letter or digit, so no word of a doc can be it"
    return None
