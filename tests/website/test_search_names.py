"""The records' names index written early (site_search.StreamedIndex.write_names_early, by a Pagefind
process of its own while MkDocs converts the pages): put in place when the build's named pages are
those it was given; written after the pages otherwise, and no fresh folder left behind."""

from __future__ import annotations

from pathlib import Path

import pytest

from incident_kb.website.core.bundle import SearchKind
from incident_kb.website.mkdocs.site_search import NAMES_FOLDER, NamedPage, StreamedIndex, pagefind_program

from ..site_support import search_pages

pytestmark = pytest.mark.skipif(pagefind_program() is None, reason="Pagefind (pagefind-bin) is not installed")


def _site(folder: Path, pages: tuple[str, ...] = ("index.html", "knobs/pool/index.html")) -> Path:
    for name in pages:
        page = folder / name
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(f"<html><body><main data-pagefind-body><h1>{name}</h1><p>Words.</p></main></body></html>")
    return folder


def _index(site: Path, early: tuple[NamedPage, ...], named: tuple[NamedPage, ...]) -> dict[str, dict[str, object]]:
    index = StreamedIndex()
    index.write_names_early(site, early)
    for page in sorted(site.rglob("*.html")):
        index.add(page.relative_to(site).as_posix(), page.read_text())
    _, streamed = index.finish(site, named)
    assert streamed
    assert not [path.name for path in site.iterdir() if path.name.startswith(".")]
    return search_pages(site, NAMES_FOLDER)


def test_the_early_names_index_is_put_in_place_when_the_names_are_the_same(tmp_path):
    named = (NamedPage("knobs/pool/index.html", "POOL_SIZE", SearchKind.KNOB, ("pool", "POOL_SIZE")),)
    names = _index(_site(tmp_path / "site"), named, named)
    assert names["/knobs/pool/"]["meta"]["title"] == "POOL_SIZE"


def test_names_that_changed_since_are_indexed_after_the_pages(tmp_path):
    early = (NamedPage("knobs/pool/index.html", "OLD_NAME", SearchKind.KNOB, ("pool", "OLD_NAME")),)
    named = (NamedPage("knobs/pool/index.html", "POOL_SIZE", SearchKind.KNOB, ("pool", "POOL_SIZE")),)
    names = _index(_site(tmp_path / "site"), early, named)
    assert names["/knobs/pool/"]["meta"]["title"] == "POOL_SIZE"
    assert "OLD_NAME" not in str(names)


@pytest.mark.parametrize("count", [1, 3, 40])
def test_an_early_index_of_other_names_leaves_nothing_in_the_one_put_in_place(tmp_path, count):
    """The early Pagefind run may still be writing when the names are written again: its files must
    not land in the index put in place (there they mixed in: two indexes' metadata, the old names' or
    half-written fragments)."""
    site = _site(tmp_path / "site", tuple(f"knobs/k{number}/index.html" for number in range(count)))
    early, named = ([NamedPage(f"knobs/k{number}/index.html", f"{prefix}_{number}", SearchKind.KNOB, (f"k{number}",))
                     for number in range(count)] for prefix in ("OLD", "NEW"))
    names = _index(site, tuple(early), tuple(named))
    assert sorted(page["meta"]["title"] for page in names.values()) == sorted(f"NEW_{n}" for n in range(count))
    written = site / NAMES_FOLDER
    assert len(list(written.glob("*.pf_meta"))) == 1, "two indexes' metadata in one folder"
    assert all(fragment.stat().st_size for fragment in (written / "fragment").iterdir())


def test_a_build_that_fails_leaves_no_early_names_behind(tmp_path):
    site = _site(tmp_path / "site")
    index = StreamedIndex()
    index.write_names_early(site, (NamedPage("knobs/pool/index.html", "POOL_SIZE", SearchKind.KNOB, ("pool",)),))
    index.close()
    assert sorted(path.name for path in site.iterdir()) == ["index.html", "knobs"]
