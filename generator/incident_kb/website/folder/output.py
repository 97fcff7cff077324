"""`kb render`: the core's bundle written to a folder, without MkDocs.

The same pages the MkDocs build generates, so the knowledge base is not locked to MkDocs 1.x: any
generator that reads markdown can use them, Zensical among them. Where the folder goes decides
what is written:
- inside the site's docs folder (`--out docs/kb`): the generated pages only, beside the
  hand-written docs, their links to those docs made from that place;
- anywhere else (a Zensical set-up's `kb-site/docs`, any `--out DIR`): the whole docs folder of a
  site, the generated pages and a copy of each hand-written doc, the stale ones with their banner
  written on top (what the MkDocs plugin adds when it builds them).
Record pages name the URL that edits their YAML in their front matter (`kb_edit_url`), for the
Zensical theme override written beside (see zensical.py).

A manifest of what was written (each file's path and SHA-256) lets a later run remove files of
records that no longer exist, without touching anything else: only a plain relative path inside
OUT is removed, only a regular file whose bytes match the digest recorded for it (a line without
one removes nothing), and never through a link. A file kb did not write is never replaced. Files
are written through `repository/writes.py`, only inside OUT, never through a link.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from ...check.pipeline import SITE, check_knowledge_base
from ...findings import KbError
from ...repository.files import UnreadableFile, read_bounded
from ...repository.writes import Unwritable, remove_file, write_file
from ...repository.written_pages import MANIFEST, MAX_MANIFEST, named_in_manifest, parse_manifest, plain_parts
from ...settings.config_files import ZENSICAL_TOML
from ...settings.docs_folder import ZENSICAL_DOCS
from ...settings.kb_settings import read_settings
from ..core.bundle import Bundle
from ..core.links import SiteSettings
from ..core.pages import render_site
from ..core.placement import kept_pages_message, place_bundle, place_settings
from ..core.site_config import KB_STYLESHEET, ZENSICAL_THEME, read_site_settings, read_zensical_setup
from .zensical import theme_files

_MAX_DOC_BYTES = 10 << 20  # a hand-written doc or image copied into the site
_HOW_TO_PLACE = ("Move those pages, or add the knowledge base's home to the site's nav; a site with a home page of "
                 "its own can also take the generated pages as a folder of its docs (kb render --out DOCS/kb).")


@dataclass(frozen=True)
class Rendered:
    out: Path
    written: int  # files in the folder kb wrote
    findings: int  # kb check's findings, shown on the pages
    theme: Path | None = None  # where the theme overrides went
    notes: tuple[str, ...] = ()  # what the user should know: docs that could not be copied, the site's needs


def write_rendered_site(root: Path, out: Path | None = None) -> Rendered:
    """Check the knowledge base at `root` and write its site's files under `out` (None: where the
    repository's Zensical set-up expects them)."""
    kb_settings = read_settings(root)
    setup = read_zensical_setup(root, kb_settings.files)
    if out is None:
        if setup is None:
            raise KbError(f"kb render: say where with --out DIR; without it kb render writes where a Zensical set-up "
                          f"expects the pages, and {root / ZENSICAL_TOML} does not exist (kb init --site zensical "
                          "writes one)")
        if isinstance(setup.docs_folder, str):
            raise KbError(setup.docs_folder)
        out = setup.docs_folder
        if setup.prefix:  # a team's Zensical site: the knowledge base in a folder of its docs (kb init --merge)
            out = out / setup.prefix
        elif setup.prefix is None and (root / ZENSICAL_DOCS).resolve() != out.resolve():
            raise KbError(f"kb render: {root / ZENSICAL_TOML} does not show the knowledge base (its extra_css loads "
                          f"no {KB_STYLESHEET}), so kb render does not know where in {out} its pages go: run "
                          "kb init --site zensical to see the change it needs (kb init --site zensical --merge "
                          "makes it), or say where with --out DIR")
    # The theme overrides go with the set-up's own pages: into its custom_dir when kb render writes the
    # whole docs folder, or, beside a team's pages, when that custom_dir is kb's own folder.
    theme = setup.theme_folder if setup is not None and isinstance(setup.docs_folder, Path) \
        and (out.resolve() == setup.docs_folder.resolve()
             or setup.prefix and out.resolve() == (setup.docs_folder / setup.prefix).resolve()
             and isinstance(setup.theme_folder, Path) and setup.theme_folder == root / ZENSICAL_THEME) else None
    if isinstance(theme, str):
        raise KbError(theme)
    settings = read_site_settings(root, kb_settings)
    docs = (root / settings.docs_dir).resolve()
    try:
        prefix = out.resolve().relative_to(docs).as_posix()
    except ValueError:
        prefix = None  # outside the docs folder: a whole docs folder, with copies of the docs
    if prefix == ".":
        raise KbError(f"kb render: {out} is the docs folder itself; write into a folder of its own inside it "
                      f"(e.g. --out {out / 'kb'}), so that generated pages never mix with hand-written ones")
    kb = check_knowledge_base(root, SITE)
    notes: list[str] = []
    if prefix is None:  # a whole docs folder: the generated pages beside copies of the docs, never over one
        hand_written, asked = _docs_files(docs), settings
        settings = place_settings(asked, hand_written)
        placed = place_bundle(render_site(kb, settings), settings, hand_written, asked)
        bundle = placed.bundle
        kept = kept_pages_message(placed, settings.docs_dir, _HOW_TO_PLACE)
        notes += [kept] if kept is not None else []
    else:  # a folder of its own inside the docs folder (which kb render refuses to share with a doc)
        settings = replace(settings, prefix=prefix)
        bundle = render_site(kb, settings)
        notes += _needs_in_subfolder(bundle, prefix, loaded=setup is not None and setup.prefix == prefix)
    files = {path: text.encode("utf-8") for path, text in _with_edit_urls(bundle, settings).items()}
    if prefix is None:
        files.update(_copied_docs(root, docs, bundle, files, notes))
    write_folder(out, files)
    if theme is not None:
        write_folder(theme, theme_files())
    return Rendered(out, len(files), len(kb.findings), theme, tuple(notes))


def _with_edit_urls(bundle: Bundle, settings: SiteSettings) -> dict[str, str]:
    """The bundle's files, each record page naming in its front matter the URL that edits its YAML."""
    files = dict(bundle.files)
    for path, meta in bundle.pages.items():
        url = settings.edit_url_of(meta.edit_path) if meta.generated and meta.edit_path is not None else None
        if url is not None and files[path].startswith("---\n"):
            files[path] = f"---\nkb_edit_url: {_yaml_string(url)}\n" + files[path][4:]
    return files


def _yaml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _docs_files(docs: Path) -> frozenset[str]:
    """The docs folder's files as a site built from it has them (hidden ones aside), docs-relative."""
    rel_paths = ((path.relative_to(docs).as_posix() for path in docs.rglob("*") if not path.is_dir())
                 if docs.is_dir() else ())
    return frozenset(rel for rel in rel_paths if not any(part.startswith(".") for part in PurePosixPath(rel).parts))


def _copied_docs(root: Path, docs: Path, bundle: Bundle, generated: dict[str, bytes],
                 notes: list[str]) -> dict[str, bytes]:
    """Every file of the docs folder (hidden ones aside), a stale doc with its banner on top. A
    generated page never takes a doc's place (see core.placement): every doc is copied."""
    copies: dict[str, bytes] = {}
    banners = bundle.banners
    for path in sorted(docs.rglob("*")) if docs.is_dir() else ():
        rel = path.relative_to(docs).as_posix()
        if any(part.startswith(".") for part in PurePosixPath(rel).parts) or path.is_dir():
            continue
        assert rel not in generated, f"placement left a generated file over {rel}"
        try:
            data = read_bounded(path, _MAX_DOC_BYTES, root)
        except UnreadableFile as exc:
            notes.append(f"{path.relative_to(root).as_posix()} was not copied: {exc}")
            continue
        if rel in banners:
            data = _with_banner(data.decode("utf-8", errors="replace"), banners[rel]).encode("utf-8")
        copies[rel] = data
    return copies


def _with_banner(markdown: str, banner: str) -> str:
    """The banner on top of a doc's text, below its front matter (HTML marked data-search-exclude:
    it stays out of the search index)."""
    match = re.match(r"---\r?\n.*?\r?\n(?:---|\.\.\.)\r?\n", markdown, re.DOTALL)
    cut = match.end() if match else 0
    return markdown[:cut] + banner + "\n" + markdown[cut:]


def _needs_in_subfolder(bundle: Bundle, prefix: str, loaded: bool) -> list[str]:
    """Beside hand-written docs, the site's own configuration must load the pages' style sheet and
    script (`loaded`: zensical.toml does, from this folder), and banners on the hand-written docs
    cannot be written: say so."""
    needs = bundle.needs
    sheets = ", ".join(f"{prefix}/{p}" for p in needs.stylesheets)
    scripts = ", ".join(f"{prefix}/{p}" for p in needs.scripts)
    extensions = ", ".join(needs.markdown_extensions)
    lines = [] if loaded else [f"the site's configuration must load {sheets} (extra_css) and {scripts} "
                               f"(extra_javascript), with the markdown extensions {extensions}"]
    if bundle.banners:
        lines.append(f"{len(bundle.banners)} hand-written page(s) have findings whose banners only the MkDocs "
                     f"plugin or a whole rendered docs folder shows: {', '.join(sorted(bundle.banners))}")
    return lines


def _make_folder(out: Path) -> None:
    """`out` as a folder (made if missing); a file in its place (or on its way) is one clear line."""
    try:
        out.mkdir(parents=True, exist_ok=True)
    except (FileExistsError, NotADirectoryError):
        what = next((p for p in (out, *out.parents) if os.path.lexists(p) and not p.is_dir()), out)
        kind = "a symbolic link that leads nowhere" if not os.path.exists(what) else "a file"
        where = f"{what} is {kind}" if what == out else f"{what}, on the way to {out}, is {kind}"
        raise KbError(f"{where}; kb render --out needs a folder (it is created if missing)") from None


def write_folder(out: Path, files: dict[str, bytes]) -> None:
    """Write `files` under `out` with a manifest, removing what an earlier run wrote and no longer
    writes; never replaces a file kb did not write."""
    manifest = out / MANIFEST
    try:
        _make_folder(out)
        previous = _read_manifest(manifest)
        if previous is None and any(out.iterdir()):
            raise KbError(f"{out} is not empty and was not written by kb render; choose an empty or new folder")
        written_before = _named(manifest) if previous is not None else set()
        for rel_path in sorted(files):
            if rel_path not in written_before and os.path.lexists(out / rel_path):
                raise KbError(f"kb render: {out / rel_path} exists and was not written by kb render; it is never "
                              "replaced: move it, or write elsewhere")
        for rel_path, digest in sorted((previous or {}).items()):
            if rel_path not in files:
                _remove_if_written(out, rel_path, digest)
        digests = {}
        for rel_path, data in files.items():
            _write_atomically(out, rel_path, data)
            digests[rel_path] = hashlib.sha256(data).hexdigest()
        manifest_text = "".join(f"{digests[p]} {p}\n" for p in sorted(digests))
        # A file name that is not UTF-8 is written as its own bytes (read back with surrogateescape).
        _write_atomically(out, MANIFEST, manifest_text.encode("utf-8", "surrogateescape"))
    except OSError as exc:
        raise KbError(f"cannot write to {out}: {exc.strerror or exc}") from None


def _read_manifest(manifest: Path) -> dict[str, str] | None:
    """Path -> the SHA-256 kb wrote it with; None when there is no manifest. A line without a digest
    (a manifest from before digests were kept, or a tampered one) names nothing kb may remove."""
    if manifest.is_symlink() or not manifest.is_file():
        return None
    try:
        text = read_bounded(manifest, MAX_MANIFEST).decode("utf-8", errors="surrogateescape")
    except UnreadableFile as exc:
        raise KbError(f"{manifest}: cannot read kb render's manifest ({exc}); remove it, or choose an empty or "
                      "new folder") from None
    return parse_manifest(text)


def _named(manifest: Path) -> set[str]:
    """Every path the manifest names, with a digest or without (an older kb's manifest): files kb
    wrote, which it may write again (though it removes only those whose digest matches)."""
    return named_in_manifest(read_bounded(manifest, MAX_MANIFEST).decode("utf-8", errors="surrogateescape"))


def _remove_if_written(out: Path, rel_path: str, digest: str) -> None:
    """Remove a page kb wrote earlier: a regular file inside `out`, reached through no link, whose
    bytes still match the digest kb recorded; anything else named in the manifest is left alone."""
    parts = plain_parts(rel_path)
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
    parts = plain_parts(rel_path)
    if parts is None:  # pragma: no cover - kb names its pages itself
        raise KbError(f"kb render: {rel_path!r} is not a plain relative path; this is a bug in kb")
    try:
        write_file(out, out.joinpath(*parts), data, replace=True, links=False, durable=False)
    except Unwritable as exc:
        if exc.why.startswith("is a symbolic link"):
            raise KbError(f"{exc.path} is a symbolic link; kb render writes only inside {out}, never through a "
                          "link") from None
        raise KbError(f"cannot write to {out}: {exc.path} {exc.why}") from None
