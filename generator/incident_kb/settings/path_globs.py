"""Path globs as regular expressions, one reading for every place that takes them (CODEOWNERS, the
docs stale-doc leaves alone): `**/` any folders (none too), `**` anything, `*` and `?` within one
name, `[...]` a set where the syntax has sets; everything else literal."""

from __future__ import annotations

import re


def glob_source(pattern: str, sets: bool = True) -> str:
    """`pattern` as a regular expression's source (unanchored: the caller says where it matches)."""
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        elif sets and pattern[i] == "[" and (end := pattern.find("]", i + 2)) != -1:
            body = pattern[i + 1:end]
            out.append("[" + ("^" + re.escape(body[1:]) if body.startswith("!") else re.escape(body)) + "]")
            i = end + 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return "".join(out)
