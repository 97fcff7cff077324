"""Which docs stale-doc leaves alone: history pages (a changelog, release notes, news: they tell what
was true then, and are never updated when a record changes) and the patterns a team excludes (a blog,
an archive). Patterns are globs over the doc's path in the knowledge base (`docs/blog/**`); one with
no `/` matches the file's name in any folder (`CHANGELOG*`). Matching ignores case.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from .path_globs import glob_source

# [tool.incident-kb] history-pages, when not set: changelogs, release notes, news and history files by
# their usual names, and folders of them.
# A name alone or with a suffix (CHANGELOG.md, NEWS.rst, CHANGELOG-2025.md), never a word that only
# starts so (newsletter-plan.md, history-of-the-pool.md, changes-to-the-pool.md).
HISTORY_PAGES = ("CHANGELOG", "CHANGELOG.*", "CHANGELOG[-_]*", "CHANGES", "CHANGES.*", "HISTORY", "HISTORY.*",
                 "NEWS", "NEWS.*", "RELEASE-NOTES*", "RELEASE_NOTES*", "RELEASENOTES*", "**/changelog/**",
                 "**/changelogs/**", "**/release-notes/**", "**/releases/**", "**/news/**")


def matching_pattern(doc: str, patterns: Iterable[str]) -> str | None:
    """The first of `patterns` that `doc` (a '/'-separated path in the knowledge base) matches."""
    name = doc.rsplit("/", 1)[-1]
    for pattern in patterns:
        if _compiled(pattern).fullmatch(doc if "/" in pattern else name):
            return pattern
    return None


@lru_cache(maxsize=256)
def _compiled(pattern: str) -> re.Pattern[str]:
    return re.compile(glob_source(pattern), re.IGNORECASE | re.DOTALL)
