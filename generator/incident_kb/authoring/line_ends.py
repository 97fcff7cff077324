"""Each line's own ending, kept through an edit.

Edits work on text with '\\n' line ends. A file read with '\\r\\n' (or lone '\\r', which YAML also
reads as a line break) gets each ending back where its line is unchanged: a line kept from the
file keeps its own ending, and only new lines take the file's most common one, so one CRLF line in
a file does not make an edit rewrite every line. Knows nothing of YAML or records.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from difflib import SequenceMatcher

_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class LineEnds:
    """The text as read, with '\\n' line ends, and the ending each of its lines had."""

    text: str
    ends: tuple[str, ...]  # ends[i] ended line i; the text after the last break has none

    @classmethod
    def of(cls, raw: str) -> LineEnds:
        return cls(_BREAK.sub("\n", raw), tuple(_BREAK.findall(raw)))

    @property
    def usual(self) -> str:
        """The ending new lines get: the file's most common one ('\\n' on a tie or in an empty file)."""
        counts = Counter(self.ends)
        return max(("\n", "\r\n", "\r"), key=lambda end: (counts[end], end == "\n"))

    @property
    def is_plain(self) -> bool:
        return all(end == "\n" for end in self.ends)

    def restore(self, edited: str) -> str:
        """`edited` (a changed copy of `text`) with the ending each kept line had in the file."""
        if self.is_plain:
            return edited
        old, new = self.text.split("\n"), edited.split("\n")
        usual = self.usual
        ends = [usual] * (len(new) - 1)
        matcher = SequenceMatcher(None, old, new, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag == "equal" or (tag == "replace" and i2 - i1 == j2 - j1):  # kept, or changed in place
                for i, j in zip(range(i1, i2), range(j1, j2)):
                    if i < len(self.ends) and j < len(ends):
                        ends[j] = self.ends[i]
        return "".join(line + end for line, end in zip(new, [*ends, ""]))
