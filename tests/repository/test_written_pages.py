"""A file named `.incident-kb-render` turns no checking off (issue 30): the check skips only the
pages a manifest kb render wrote lists with the digest of their bytes, in a folder below the docs
folder's top; an empty, digest-less, tampered or top-level manifest hides nothing, in the working
tree and in a pull request (`--base`). Real `kb render --out docs/kb` output is still no doc."""

from __future__ import annotations

import hashlib
import json

import pytest

from incident_kb.repository.written_pages import rendered_files

from ..story import KNOB, WHEN, step, story_until

pytestmark = pytest.mark.usefixtures("git_env")

MANIFEST = ".incident-kb-render"
RUNBOOK = "docs/ops/runbook.md"  # named by no record: found only by walking the docs folder
STALE = ("stale-doc", RUNBOOK, KNOB)


def restored_with_a_stale_runbook(root):
    """The seed story to the knob's restore, with a runbook (written before it) that names the knob."""
    repo, ids = story_until(root, 3)
    repo.write(RUNBOOK, "# Decode runbook\n\nSGLANG_SM120_MMA_TARGET_CTAS stays at its default.\n")
    repo.git("add", "-A")
    repo.commit("A runbook", WHEN[3].replace("09:", "10:"))
    ids[4] = step(repo, 4)
    return repo, ids


def findings(kb, root, *extra):
    result = kb("check", "--root", root, "--format", "json", *extra)
    assert "Traceback" not in result.err
    return sorted((f["code"], f["path"], f["subject"]) for f in json.loads(result.out)["findings"])


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def runbook_line(root, digest=None, name="runbook.md"):
    return f"{digest or sha((root / RUNBOOK).read_bytes())} {name}\n"


# (where, what it holds): none of these may hide the stale runbook.
HOSTILE = [
    ("docs", lambda root: ""),  # an empty marker at the docs folder's top
    ("docs", lambda root: runbook_line(root, name="ops/runbook.md")),  # the top, even with a digest that matches
    ("docs/ops", lambda root: ""),  # an empty marker beside the doc
    ("docs/ops", lambda root: "runbook.md\n"),  # a line without a digest
    ("docs/ops", lambda root: runbook_line(root, sha(b"other bytes"))),  # a digest that does not match
    ("docs/ops", lambda root: runbook_line(root).upper()),
    ("docs/ops", lambda root: "x" * 64 + " *\n"),
    ("docs/ops", lambda root: runbook_line(root, name="./runbook.md")),
    ("docs/ops/sub", lambda root: runbook_line(root, name="../runbook.md")),
]


@pytest.mark.parametrize("where, holds", HOSTILE, ids=[f"{w} {i}" for i, (w, _) in enumerate(HOSTILE)])
def test_a_marker_kb_cannot_verify_hides_no_doc(kb, tmp_path, where, holds):
    root = tmp_path / "kb"
    restored_with_a_stale_runbook(root)
    before = findings(kb, root)
    assert STALE in before
    (root / where).mkdir(parents=True, exist_ok=True)
    (root / where / MANIFEST).write_text(holds(root))
    assert findings(kb, root) == before


@pytest.mark.parametrize("make", [lambda path: path.mkdir(), lambda path: path.symlink_to("/dev/zero")])
def test_a_marker_that_is_no_file_hides_nothing_and_hangs_nothing(kb, tmp_path, make):
    root = tmp_path / "kb"
    restored_with_a_stale_runbook(root)
    make(root / "docs/ops" / MANIFEST)
    assert STALE in findings(kb, root)


def test_a_marker_in_a_pull_request_hides_no_stale_doc_from_the_base_check(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = restored_with_a_stale_runbook(root)
    base = repo.git("rev-parse", "HEAD~1").strip()
    repo.write("docs/" + MANIFEST, "")
    repo.write("docs/ops/" + MANIFEST, runbook_line(root, sha(b"x")))
    repo.git("add", "-A")
    repo.commit("Hide the docs", WHEN[5])
    assert STALE in findings(kb, root, "--base", base)


def test_pages_kb_render_wrote_are_no_docs_until_someone_edits_one(kb, tmp_path):
    root = tmp_path / "kb"
    repo, _ = story_until(root, 5)
    assert findings(kb, root) == []
    assert kb("render", "--root", root, "--out", root / "docs/kb").code == 0
    assert (root / "docs/kb" / MANIFEST).is_file()
    repo.git("add", "-A")
    repo.commit("The generated pages", WHEN[5])
    assert findings(kb, root) == []  # the pages name the records on every line: not docs
    pages = [str(path.relative_to(root / "docs")) for path in (root / "docs/kb").rglob("*.md")]
    assert rendered_files(root, "docs", [*pages, "kb/" + MANIFEST], 5 << 20) == frozenset(pages)
    page = root / "docs/kb/knobs" / f"{KNOB}.md"
    page.write_text(page.read_text() + "\nA note by hand.\n")  # no longer what kb wrote: a doc now
    assert f"kb/knobs/{KNOB}.md" not in rendered_files(root, "docs", [*pages, "kb/" + MANIFEST], 5 << 20)
