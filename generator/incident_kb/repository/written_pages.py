"""`kb render`'s manifest: the file it keeps in a folder it writes, naming each file it wrote with
the SHA-256 of the bytes it wrote. Read here, for the renderer (which files it may remove) and for
the check (which files under the docs folder are kb's pages, not docs).

A manifest vouches only for what can be verified: a line with a digest names a plain relative path,
and the file there counts as kb's while its bytes still match. A manifest at the docs folder's top
vouches for nothing (kb render never writes there), nor does one that cannot be read, a line
without a digest, or a file changed since: a file named `.incident-kb-render` turns no checking off.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from pathlib import Path

from .files import UnreadableFile, read_bounded

MANIFEST = ".incident-kb-render"
MAX_MANIFEST = 64 << 20  # 64 MiB: a manifest line per page, at ~100 bytes a line
_ENTRY = re.compile(r"^([0-9a-f]{64}) (.+)$")


def parse_manifest(text: str) -> dict[str, str]:
    """Path -> the SHA-256 kb wrote it with; a line without a digest names nothing."""
    return {match.group(2): match.group(1) for match in map(_ENTRY.match, text.splitlines()) if match}


def named_in_manifest(text: str) -> set[str]:
    """Every path a manifest names, with a digest or without (an older kb's manifest)."""
    return {match.group(2) if (match := _ENTRY.match(line)) else line.strip() for line in text.splitlines()}


def plain_parts(rel_path: str) -> list[str] | None:
    """The names along a manifest path; None unless it is a plain relative path ('a/b.md')."""
    parts = rel_path.split("/")
    if rel_path.startswith("/") or "\\" in rel_path or "\0" in rel_path or re.match(r"^[a-zA-Z]:", rel_path) \
            or any(part in ("", ".", "..") for part in parts):
        return None
    return parts


def rendered_files(root: Path, folder: str, entries: Iterable[str], limit: int) -> frozenset[str]:
    """The files among `entries` (paths relative to `folder`, the docs folder relative to `root`)
    that kb render wrote and that still hold what it wrote: each named with its bytes' digest by the
    manifest of a folder below `folder`'s top that holds it (see the module's docstring). Files over
    `limit` bytes, or that cannot be read, are not kb's."""
    listed = set(entries)
    found: set[str] = set()
    for manifest in sorted(rel for rel in listed if rel.endswith("/" + MANIFEST)):
        base = manifest[:-len(MANIFEST)]
        try:
            text = read_bounded(root / folder / manifest, MAX_MANIFEST, root).decode("utf-8", errors="surrogateescape")
        except UnreadableFile:
            continue
        for rel, digest in parse_manifest(text).items():
            doc = base + rel
            if plain_parts(rel) is None or doc not in listed or doc in found:
                continue
            try:
                data = read_bounded(root / folder / doc, limit, root)
            except UnreadableFile:
                continue
            if hashlib.sha256(data).hexdigest() == digest:
                found.add(doc)
    return frozenset(found)
