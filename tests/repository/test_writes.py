"""The one way kb writes a file (`records/writes.py`): inside the boundary, through no link that leaves
it (none at all where asked), all at once, never over a file that appeared or changed meanwhile.
And the commands that write records use it: a records folder linked out of the knowledge base is
never written into."""

from __future__ import annotations

import os

import pytest

from incident_kb.repository.writes import Changed, Unwritable, remove_file, way_out, write_file

from ..conftest import SEED_KNOB


@pytest.fixture
def top(tmp_path):
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside/theirs.txt").write_text("theirs\n")
    (tmp_path / "repo/docs").mkdir(parents=True)
    return tmp_path / "repo"


def test_a_new_file_is_written_with_its_folders_and_nothing_else(top):
    made: list = []
    write_file(top, top / "a/b/c.txt", b"hello\n", made=made)
    assert (top / "a/b/c.txt").read_bytes() == b"hello\n"
    assert made == [top / "a", top / "a/b"]
    assert sorted(os.listdir(top / "a/b")) == ["c.txt"]  # no temporary file left


def open_descriptors() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def test_writes_and_refusals_leave_no_folder_open(top):
    """Each folder on the way is opened from the one before: a long-lived process (the live preview)
    that writes pages must not keep one descriptor per folder per write."""
    before = open_descriptors()
    write_file(top, top / "a/b/c/d.txt", b"1\n")
    write_file(top, top / "a/b/c/d.txt", b"2\n", replace=True)
    remove_file(top, top / "a/b/c/d.txt")
    (top / "a/b/file").write_text("x")
    with pytest.raises(Unwritable):
        write_file(top, top / "a/b/file/e.txt", b"x")
    assert open_descriptors() == before


@pytest.mark.parametrize("link, target", [("docs", "../outside"), ("docs", "/nonexistent"), ("docs", "docs")])
def test_no_write_follows_a_link_out_or_nowhere(top, link, target):
    os.rmdir(top / link)
    (top / link).symlink_to(target)
    with pytest.raises(Unwritable) as refused:
        write_file(top, top / "docs/new/page.md", b"x")
    assert refused.value.path == top / "docs"
    assert sorted(os.listdir(top.parent / "outside")) == ["theirs.txt"]


def test_a_link_that_stays_inside_is_followed_unless_links_are_refused(top):
    (top / "real").mkdir()
    (top / "alias").symlink_to("real", target_is_directory=True)
    write_file(top, top / "alias/page.md", b"x")
    assert (top / "real/page.md").read_bytes() == b"x"
    with pytest.raises(Unwritable, match="is a symbolic link; kb writes through none here"):
        write_file(top, top / "alias/other.md", b"x", links=False)
    assert way_out(top, top / "alias/page.md") is None


def test_a_link_at_the_file_itself_is_replaced_never_written_through(top):
    (top / "docs/page.md").symlink_to(top.parent / "outside/theirs.txt")
    with pytest.raises(Unwritable):  # a new file never stands in for what is there
        write_file(top, top / "docs/page.md", b"x")
    write_file(top, top / "docs/page.md", b"mine\n", replace=True, links=False)
    assert not (top / "docs/page.md").is_symlink() and (top / "docs/page.md").read_bytes() == b"mine\n"
    assert (top.parent / "outside/theirs.txt").read_text() == "theirs\n"


def test_a_file_changed_meanwhile_or_created_meanwhile_is_kept(top):
    (top / "docs/page.md").write_bytes(b"now\n")
    with pytest.raises(Changed):
        write_file(top, top / "docs/page.md", b"x", replace=True, expected=b"then\n")
    with pytest.raises(Unwritable, match="exists"):
        write_file(top, top / "docs/page.md", b"x")
    assert (top / "docs/page.md").read_bytes() == b"now\n"
    assert os.listdir(top / "docs") == ["page.md"]


def test_a_path_outside_the_boundary_is_refused(top):
    with pytest.raises(Unwritable, match="is outside"):
        write_file(top, top.parent / "outside/new.txt", b"x")
    with pytest.raises(Unwritable, match="is outside"):
        remove_file(top, top / "../outside/theirs.txt")
    assert (top.parent / "outside/theirs.txt").read_text() == "theirs\n"


@pytest.mark.usefixtures("git_env")
def test_editing_commands_never_write_into_a_records_folder_linked_out(kb, seed_kb, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    (seed_kb / "knobs").rename(elsewhere)
    (seed_kb / "knobs").symlink_to(elsewhere, target_is_directory=True)
    (elsewhere / ".batch-size.yaml.1234.tmp").write_text("not kb's to remove\n")  # looks like a leftover
    before = {p.name: p.read_bytes() for p in elsewhere.iterdir()}
    created = kb("new", "knob", "batch-size", "--name", "BATCH", "--summary", "s", "--value", "8", "--root", seed_kb)
    assert created.code == 2 and "knobs" in created.err and created.err.count("\n") == 1
    knob_id = SEED_KNOB.split("/")[1].removesuffix(".yaml")
    edited = kb("set", knob_id, "1024", "--note", "n", "--root", seed_kb)
    assert edited.code == 2 and edited.err.count("\n") == 1
    assert {p.name: p.read_bytes() for p in elsewhere.iterdir()} == before
