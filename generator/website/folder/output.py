"""`kb render --out DIR`: the site's generated files written to a folder, without MkDocs.

The same pages the mkdocs-gen-files build generates, so the knowledge base is not locked to
MkDocs 1.x: any generator that reads markdown can use them. A manifest of what was written (each
file's path and SHA-256) lets a later run remove pages of records that no longer exist, without
touching anything else: only a plain relative path inside OUT is removed, only a regular file that
still holds what kb wrote, and never through a link. Files are written only inside OUT, never
through a linked subfolder.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

from ...findings import KbError
from ...pipeline import check_knowledge_base
from ..core.pages import render_site
from ..core.site_config import read_site_settings

MANIFEST = ".incident-kb-render"
_ENTRY = re.compile(r"^([0-9a-f]{64}) (.+)$")


def write_rendered_site(root: Path, out: Path) -> tuple[int, int]:
    """Write the rendered site under `out`; returns (files written, findings shown)."""
    kb = check_knowledge_base(root, timelines=True, allow_shallow=True)
    site = render_site(kb, read_site_settings(root))
    manifest = out / MANIFEST
    try:
        out.mkdir(parents=True, exist_ok=True)
        previous = _read_manifest(manifest)
        if not previous and any(out.iterdir()):
            raise KbError(f"{out} is not empty and was not written by kb render; choose an empty or new folder")
        for rel_path in sorted(set(previous) - set(site.files)):
            _remove_if_written(out, rel_path, previous[rel_path])
        digests = {}
        for rel_path, text in site.files.items():
            data = text.encode("utf-8")
            _write_atomically(out, rel_path, data)
            digests[rel_path] = hashlib.sha256(data).hexdigest()
        _write_atomically(out, MANIFEST, "".join(f"{digests[p]} {p}\n" for p in sorted(digests)).encode())
    except OSError as exc:
        raise KbError(f"cannot write to {out}: {exc.strerror or exc}") from None
    return len(site.files), len(kb.findings)


def _read_manifest(manifest: Path) -> dict[str, str | None]:
    """Path -> the SHA-256 kb wrote it with (None in a manifest from before digests were kept)."""
    if manifest.is_symlink() or not manifest.is_file():
        return {}
    entries: dict[str, str | None] = {}
    for line in manifest.read_text(encoding="utf-8", errors="replace").splitlines():
        match = _ENTRY.match(line)
        if match:
            entries[match.group(2)] = match.group(1)
        elif line:
            entries[line] = None
    return entries


def _parts(rel_path: str) -> list[str] | None:
    """The names along a manifest path; None unless it is a plain relative path ('a/b.md')."""
    parts = rel_path.split("/")
    if rel_path.startswith("/") or "\\" in rel_path or "\0" in rel_path or re.match(r"^[a-zA-Z]:", rel_path) \
            or any(part in ("", ".", "..") for part in parts):
        return None
    return parts


def _remove_if_written(out: Path, rel_path: str, digest: str | None) -> None:
    """Remove a page kb wrote earlier: a regular file inside `out`, reached through no link, that
    still holds what kb wrote; anything else named in the manifest is left alone."""
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
    if digest is not None and hashlib.sha256(target.read_bytes()).hexdigest() != digest:
        return  # changed since kb wrote it: someone's work, not kb's
    target.unlink()


def _write_atomically(out: Path, rel_path: str, data: bytes) -> None:
    """Write `out/rel_path` through a temporary file, creating folders, never through a link."""
    parts = _parts(rel_path)
    if parts is None:  # pragma: no cover - kb names its pages itself
        raise KbError(f"kb render: {rel_path!r} is not a plain relative path; this is a bug in kb")
    folder = out
    for part in parts[:-1]:
        folder = folder / part
        if folder.is_symlink():
            raise KbError(f"{folder} is a symbolic link; kb render writes only inside {out}, never through a link")
        folder.mkdir(exist_ok=True)
    path = folder / parts[-1]
    temporary = folder / f".{parts[-1]}.{os.getpid()}.tmp"
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_NOFOLLOW", 0), 0o644)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    os.replace(temporary, path)  # replaces a link at `path` itself, never what it points to
