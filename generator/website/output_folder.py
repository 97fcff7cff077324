"""`kb render --out DIR`: the site's generated files written to a folder, without MkDocs.

The same pages the mkdocs-gen-files build generates, so the knowledge base is not locked to
MkDocs 1.x: any generator that reads markdown can use them. A manifest of what was written lets a
later run remove pages of records that no longer exist, without touching anything else.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..findings import KbError
from ..pipeline import check_knowledge_base
from .pages import CHART_CACHE, render_site
from .mkdocs_config import read_site_settings

MANIFEST = ".incident-kb-render"


def write_rendered_site(root: Path, out: Path) -> tuple[int, int]:
    """Write the rendered site under `out`; returns (files written, findings shown)."""
    kb = check_knowledge_base(root, timelines=True, allow_shallow=True)
    site = render_site(kb, read_site_settings(root), chart_cache=root / CHART_CACHE)
    manifest = out / MANIFEST
    try:
        out.mkdir(parents=True, exist_ok=True)
        previous = set(manifest.read_text(encoding="utf-8").splitlines()) if manifest.is_file() else set()
        if not previous and any(out.iterdir()):
            raise KbError(f"{out} is not empty and was not written by kb render; choose an empty or new folder")
        for rel_path in sorted(previous - set(site.files)):
            if rel_path and ".." not in Path(rel_path).parts:
                (out / rel_path).unlink(missing_ok=True)
        for rel_path, text in site.files.items():
            _write_atomically(out / rel_path, text)
        _write_atomically(manifest, "\n".join(sorted(site.files)) + "\n")
    except OSError as exc:
        raise KbError(f"cannot write to {out}: {exc.strerror or exc}") from None
    return len(site.files), len(kb.findings)


def _write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)
