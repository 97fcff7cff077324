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

import re
from collections.abc import Iterator

_JOINERS = ".-"  # join the parts of one name: net.core.x, max-connections


def is_name_char(char: str) -> bool:
    """A letter (of any script), a digit or '_': what continues a name (`Größe` is one name)."""
    return char == "_" or char.isalnum()


def stands_whole(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] (a name) is not continued by the text on either side."""
    name = text[start:end]
    if start > 0 and is_name_char(name[:1]):
        before = text[start - 1]
        if is_name_char(before) or (before in _JOINERS and start > 1 and is_name_char(text[start - 2])):
            return False
    elif start > 0 and is_name_char(text[start - 1]):
        return False
    if end < len(text) and is_name_char(name[-1:]):
        after = text[end]
        if is_name_char(after) or (after in _JOINERS and end + 1 < len(text) and is_name_char(text[end + 1])):
            return False
    return True


# JVM options whose value follows the name with no separator: -Xmx4g, -Xss512k.
_ATTACHED = re.compile(r"^-X[a-z]+$")


def takes_attached_value(name: str) -> bool:
    """Whether the setting is written with its value glued on (`-Xmx4g` names `-Xmx`)."""
    return bool(_ATTACHED.match(name))


def stands_with_value(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] (a name that takes an attached value) stands whole or is followed by
    its value (a digit): `-Xmx4g`, `-Xmx`, not `-Xmxfoo`."""
    if end < len(text) and text[end].isdigit():
        return start == 0 or not is_name_char(text[start - 1])
    return stands_whole(text, start, end)


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
