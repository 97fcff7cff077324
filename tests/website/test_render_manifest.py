"""`kb render --out DIR` removes a stale page only when its bytes match the digest its manifest
recorded: a manifest line with no digest (an older manifest, or a tampered one), a wrong digest or
a path that is not plain deletes nothing. And OUT that is a file is said so in one line."""

from __future__ import annotations

import hashlib

import pytest

from ..conftest import SEED_INCIDENT

PAGE = "incidents/multi-round-harness-hang.md"
MANIFEST = ".incident-kb-render"


def render(kb, root, out):
    result = kb("render", "--root", root, "--out", out)
    assert result.code == 0, result.err
    return result


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize("line", [
    "{page}",  # a manifest from before digests were kept
    "{page} ",
    "  {page}",
    "{wrong} {page}",  # tampered: the digest of other bytes
    "{short} {page}",
    "{upper} {page}",
    "{right}  {page}",  # two spaces: the path would be ' notes/mine.md'
])
def test_only_a_recorded_digest_that_matches_removes_a_file(kb, seed_kb, tmp_path, line):
    out = tmp_path / "out"
    render(kb, seed_kb, out)
    mine = b"my notes, kept beside the pages\n"
    (out / "notes").mkdir()
    (out / "notes/mine.md").write_bytes(mine)
    text = line.format(page="notes/mine.md", wrong=digest(b"other"), short=digest(mine)[:63],
                       upper=digest(mine).upper(), right=digest(mine))
    (out / MANIFEST).write_text((out / MANIFEST).read_text() + text + "\n")
    render(kb, seed_kb, out)
    assert (out / "notes/mine.md").read_bytes() == mine


def test_a_manifest_without_digests_removes_nothing_and_is_replaced_by_one_with_them(kb, seed_kb, tmp_path):
    out = tmp_path / "out"
    render(kb, seed_kb, out)
    pages = [line.split(" ", 1)[1] for line in (out / MANIFEST).read_text().splitlines()]
    (out / MANIFEST).write_text("".join(f"{page}\n" for page in pages))  # as an older kb wrote it
    (seed_kb / SEED_INCIDENT).unlink()
    render(kb, seed_kb, out)
    assert (out / PAGE).is_file()  # stale now, but its manifest line vouches for nothing
    assert all(len(line.split(" ", 1)[0]) == 64 for line in (out / MANIFEST).read_text().splitlines())


def test_a_recorded_digest_that_matches_removes_the_stale_page(kb, seed_kb, tmp_path):
    out = tmp_path / "out"
    render(kb, seed_kb, out)
    assert f"{digest((out / PAGE).read_bytes())} {PAGE}\n" in (out / MANIFEST).read_text()
    (seed_kb / SEED_INCIDENT).unlink()
    render(kb, seed_kb, out)
    assert not (out / PAGE).exists()


@pytest.mark.parametrize("make, said", [
    (lambda out: out.write_text("a file"), "kb: {out} is a file; kb render --out needs a folder"),
    (lambda out: out.symlink_to("nowhere"), "kb: {out} is a symbolic link that leads nowhere; kb render --out needs"),
])
def test_out_that_is_not_a_folder_is_said_so(kb, seed_kb, tmp_path, make, said):
    out = tmp_path / "out"
    make(out)
    result = kb("render", "--root", seed_kb, "--out", out)
    assert result.code == 2 and result.err.startswith(said.format(out=out)) and result.err.count("\n") == 1
    assert "File exists" not in result.err
    inner = kb("render", "--root", seed_kb, "--out", out / "site")
    assert inner.code == 2 and "File exists" not in inner.err and "Not a directory" not in inner.err


def test_a_doc_whose_file_name_is_not_utf8_is_rendered_and_removed_again(kb, seed_kb, tmp_path):
    """A doc named with a byte that is not UTF-8 crashed `kb render --out` writing the manifest (exit 3)."""
    import os

    name = os.fsdecode(b"caf\xe9.md")
    (seed_kb / "docs" / name).write_text("# Caf\n")
    out = tmp_path / "out"
    render(kb, seed_kb, out)
    assert (out / name).read_text().startswith("# Caf")
    render(kb, seed_kb, out)  # the manifest it wrote reads back
    (seed_kb / "docs" / name).unlink()
    render(kb, seed_kb, out)
    assert not os.path.lexists(out / name)
