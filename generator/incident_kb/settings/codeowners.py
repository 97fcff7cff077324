"""CODEOWNERS as GitHub and GitLab read it: which file counts, its rules parsed once, and who owns
a path. It reads the file through the repository's reader and nothing else; it judges no finding.

Which file: the first of `.github/CODEOWNERS`, `CODEOWNERS`, `docs/CODEOWNERS` that exists (the
order GitHub looks in) in the knowledge base's folder; for a knowledge base in a subfolder of its
repository (a monorepo) that holds none, the first at the repository's top, as the hosts read it: its
patterns then match paths from that top (`/services/payments/docs/`).

Rules, both hosts: one pattern and its owners per line, `#` comments, `\\#` and `\\ ` escapes. A
pattern follows gitignore's shape: a leading or inner `/` anchors it at the root, else it matches
at any depth; a trailing `/` means a folder and everything in it; `*` and `?` stay inside one path
part, `**` crosses them; `docs/*` owns the files directly in docs/ only; a pattern that names a
folder owns what lies below it. The last matching line wins, and a matching line with no owners
leaves the path owned by nobody.

GitLab's additions: `[Section]`, `^[Optional section]`, `[Section][2]` headers, each optionally
followed by the section's default owners (for its lines that name none); lines before the first
header form one unnamed section; headers with the same name (any case) are one section; `!pattern`
excludes a path from its section. The last match wins within a section, and the owners of every
section that owns a path are combined, as GitLab decides.
"""

from __future__ import annotations

import os
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from ..places import repository_top
from ..repository.files import UnreadableFile, lexists, read_bounded
from .path_globs import glob_source

CODEOWNERS_FILES = (".github/CODEOWNERS", "CODEOWNERS", "docs/CODEOWNERS")  # the order GitHub looks in
MAX_CODEOWNERS_BYTES = 3 << 20  # GitHub ignores a CODEOWNERS file over 3 MB
_SECTION = re.compile(r"^\^?\[(?P<name>[^\]]+)\](?:\[\d+\])?(?P<owners>(?:\s+.*)?)$")


@dataclass(frozen=True, slots=True)
class Rule:
    pattern: str  # as written (without the `!` of an exclusion)
    line: int
    owners: tuple[str, ...]
    excludes: bool = False  # GitLab's `!pattern`

    def matches(self, rel_path: str) -> bool:
        return _compiled(self.pattern).match(rel_path) is not None


@dataclass(frozen=True, slots=True)
class Section:
    name: str  # "" for the lines before the first header
    rules: tuple[Rule, ...]


@dataclass(frozen=True, slots=True)
class CodeOwners:
    """The CODEOWNERS file that counts (None: there is none), its sections, and why it could not be read."""

    rel_path: str | None = None  # relative to the knowledge base ('../../.github/CODEOWNERS' for the top's)
    sections: tuple[Section, ...] = ()
    problem: str | None = None
    base: str = ""  # the knowledge base's folder as the file's patterns see it ('services/payments'), '' its own

    def owners_of(self, rel_path: str) -> tuple[str, ...]:
        """Who owns `rel_path` (relative to the knowledge base, `/`-separated): () when nobody does."""
        path = posixpath.join(self.base, rel_path) if self.base else rel_path
        found: list[str] = []
        for section in self.sections:
            last = next((rule for rule in reversed(section.rules) if rule.matches(path)), None)
            if last is not None and not last.excludes:
                found.extend(owner for owner in last.owners if owner not in found)
        return tuple(found)

    @property
    def where(self) -> str:
        """How a message names the file: 'no CODEOWNERS file' when there is none."""
        return self.rel_path if self.rel_path is not None else "no CODEOWNERS file"


def read_codeowners(root: Path) -> CodeOwners:
    """The knowledge base's CODEOWNERS, read once (bounded) and parsed: its own folder's, else its
    repository's top's (a knowledge base in a subfolder)."""
    return _first_codeowners(root, root) or read_top_codeowners(root)


def read_top_codeowners(root: Path) -> CodeOwners:
    """The CODEOWNERS of the repository's top, for a knowledge base at `root` in a subfolder of it
    (none when `root` is the top)."""
    here = Path(os.path.abspath(root))
    top = repository_top(here)
    if top is None or top == here:
        return CodeOwners()
    return _first_codeowners(top, here) or CodeOwners()


def _first_codeowners(folder: Path, root: Path) -> CodeOwners | None:
    """The first CODEOWNERS file of `folder` (the knowledge base's `root` or its repository's top)."""
    for name in CODEOWNERS_FILES:
        path = folder / name
        if not lexists(path):  # a look written down even when missing: adding one changes the owners
            continue
        shown = name if folder == root else posixpath.relpath(path.as_posix(), root.as_posix())
        base = "" if folder == root else root.relative_to(folder).as_posix()
        try:
            text = read_bounded(path, MAX_CODEOWNERS_BYTES, folder).decode("utf-8")
        except (UnreadableFile, UnicodeDecodeError) as exc:
            why = "it is not UTF-8" if isinstance(exc, UnicodeDecodeError) else str(exc)
            return CodeOwners(shown, (), f"cannot read {shown}: {why}", base)
        return CodeOwners(shown, parse_codeowners(text), base=base)
    return None


def parse_codeowners(text: str) -> tuple[Section, ...]:
    """The sections of a CODEOWNERS file's text, in order, same-named ones merged."""
    order: list[str] = []
    rules: dict[str, list[Rule]] = {"": []}
    names: dict[str, str] = {"": ""}
    current, defaults = "", tuple[str, ...]()
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        header = _SECTION.match(line)
        if header is not None:
            current = header.group("name").strip().lower()
            names.setdefault(current, header.group("name").strip())
            rules.setdefault(current, [])
            if current not in order:
                order.append(current)
            defaults = tuple(_owners(header.group("owners")))
            continue
        words = _split(line)
        pattern, owners = words[0], tuple(words[1:])
        excludes = pattern.startswith("!")
        rules[current].append(Rule(pattern[1:] if excludes else pattern, number, owners or defaults, excludes))
    return tuple(Section(names[key], tuple(rules[key])) for key in ("", *order) if rules[key])


def _owners(text: str) -> list[str]:
    return [word for word in text.split() if not word.startswith("#")]


def _split(line: str) -> list[str]:
    """A rule line's words: backslash escapes a space or '#'; an unescaped '#' starts a comment."""
    words: list[str] = []
    word = ""
    escaped = False
    for char in line:
        if escaped:
            word += char
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "#" and not word:
            break
        elif char.isspace():
            if word:
                words.append(word)
            word = ""
        else:
            word += char
    if word:
        words.append(word)
    return words


@lru_cache(maxsize=4096)
def _compiled(pattern: str) -> re.Pattern[str]:
    folder_only = pattern.endswith("/")
    direct_children = pattern.endswith("/*") and not pattern.endswith("/**/*")
    body = pattern.strip("/")
    anchored = pattern.startswith("/") or "/" in body
    start = "" if anchored else "(?:.*/)?"
    end = "/.+" if folder_only else "" if direct_children else "(?:/.+)?"
    # GitHub's and GitLab's CODEOWNERS take no [...] sets (gitignore's do).
    return re.compile(f"{start}{glob_source(body, sets=False)}{end}\\Z", re.DOTALL)
