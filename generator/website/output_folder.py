"""`kb render --out DIR`: the site's generated files written to a folder, without MkDocs.

The same pages the mkdocs-gen-files build generates, so the knowledge base is not locked to
MkDocs 1.x: any generator that reads markdown can use them. A manifest of what was written (each
file's path and SHA-256) lets a later run remove pages of records that no longer exist, without
touching anything else: only a plain relative path inside OUT is removed, only a regular file whose
bytes match the digest recorded for it (a line without one removes nothing), and never through a
link. Files are written through `records/writes.py`, only inside OUT, never through a link.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from pathlib import Path

from ..findings import KbError
from ..records.files import UnreadableFile, read_bounded
from ..records.writes import Unwritable, remove_file, write_file
from ..pipeline import check_knowledge_base
from .pages import render_site
from .mkdocs_config import read_site_settings

MANIFEST = ".incident-kb-render"
_ENTRY = re.compile(r"^([0-9a-f]{64}) (.+)$")
_MAX_MANIFEST = 64 << 20  # 64 MiB: a manifest line per page, at ~100 bytes a line


def write_rendered_site(root: Path, out: Path) -> tuple[int, int]:
    """Write the rendered site under `out`; returns (files written, findings shown)."""
    kb = check_knowledge_base(root, timelines=True, allow_shallow=True)
    site = render_site(kb, read_site_settings(root))
    manifest = out / MANIFEST
    try:
        _make_folder(out)
        previous = _read_manifest(manifest)
        if previous is None and any(out.iterdir()):
            raise KbError(f"{out} is not empty and was not written by kb render; choose an empty or new folder")
        for rel_path, digest in sorted((previous or {}).items()):
            if rel_path not in site.files:
                _remove_if_written(out, rel_path, digest)
        digests = {}
        for rel_path, text in site.files.items():
            data = text.encode("utf-8")
            _write_atomically(out, rel_path, data)
            digests[rel_path] = hashlib.sha256(data).hexdigest()
        _write_atomically(out, MANIFEST, "".join(f"{digests[p]} {p}\n" for p in sorted(digests)).encode())
    except OSError as exc:
        raise KbError(f"cannot write to {out}: {exc.strerror or exc}") from None
    return len(site.files), len(kb.findings)


def _make_folder(out: Path) -> None:
    """`out` as a folder (made if missing); a file in its place (or on its way) is one clear line."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        what = next((p for p in (out, *out.parents) if os.path.lexists(p) and not p.is_dir()), out)
        kind = "a symbolic link that leads nowhere" if not os.path.exists(what) else "a file"
        where = f"{what} is {kind}" if what == out else f"{what}, on the way to {out}, is {kind}"
        raise KbError(f"{where}; kb render --out needs a folder (it is created if missing)") from None


def _read_manifest(manifest: Path) -> dict[str, str] | None:
    """Path -> the SHA-256 kb wrote it with; None when there is no manifest. A line without a digest
    (a manifest from before digests were kept, or a tampered one) names nothing kb may remove."""
    if manifest.is_symlink() or not manifest.is_file():
        return None
    try:
        text = read_bounded(manifest, _MAX_MANIFEST).decode("utf-8", errors="replace")
    except UnreadableFile as exc:
        raise KbError(f"{manifest}: cannot read kb render's manifest ({exc}); remove it, or choose an empty or "
                      "new folder") from None
    return {match.group(2): match.group(1) for match in map(_ENTRY.match, text.splitlines()) if match}


def _parts(rel_path: str) -> list[str] | None:
    """The names along a manifest path; None unless it is a plain relative path ('a/b.md')."""
    parts = rel_path.split("/")
    if rel_path.startswith("/") or "\\" in rel_path or "\0" in rel_path or re.match(r"^[a-zA-Z]:", rel_path) \
            or any(part in ("", ".", "..") for part in parts):
        return None
    return parts


def _remove_if_written(out: Path, rel_path: str, digest: str) -> None:
    """Remove a page kb wrote earlier: a regular file inside `out`, reached through no link, whose
    bytes still match the digest kb recorded; anything else named in the manifest is left alone."""
    parts = _parts(rel_path)
    if parts is None:
        return
    folder = out
    for part in parts[:-1]:
        folder = folder / part
        if folder.is_symlink() or not folder.is_dir():
            return
    target = folder / parts[-1]
    if target.is_symlink() or not target.is_file():
        return
    if _sha256(target) != digest:
        return  # changed since kb wrote it: someone's work, not kb's
    remove_file(out, target, links=False)


def _sha256(path: Path) -> str | None:
    """The SHA-256 of the regular file at `path` (not through a link), read in chunks; None if it is not one."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _write_atomically(out: Path, rel_path: str, data: bytes) -> None:
    """Write `out/rel_path` through a temporary file, creating folders, never through a link."""
    parts = _parts(rel_path)
    if parts is None:  # pragma: no cover - kb names its pages itself
        raise KbError(f"kb render: {rel_path!r} is not a plain relative path; this is a bug in kb")
    try:
        write_file(out, out.joinpath(*parts), data, replace=True, links=False, durable=False)
    except Unwritable as exc:
        if exc.why.startswith("is a symbolic link"):
            raise KbError(f"{exc.path} is a symbolic link; kb render writes only inside {out}, never through a "
                          "link") from None
        raise KbError(f"cannot write to {out}: {exc.path} {exc.why}") from None
