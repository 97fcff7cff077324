"""A docs_dir set in an `INHERIT:` parent is the docs folder kb checks, as MkDocs builds it (issue 30):
the parent read relative to the file that names it, mappings merged with the child's values winning,
chains followed; a parent kb cannot read that way (outside the repository, through a link out,
missing, a FIFO, in a loop, too deep, not YAML) is one `bad-config` finding, never `docs/` in silence."""

from __future__ import annotations

import os

import pytest

from incident_kb.settings.docs_folder import docs_folder

from .test_docs_folder import payments_team, stale

pytestmark = pytest.mark.usefixtures("git_env")

RUNBOOK = "site-src/runbooks/pool.md"


def inheriting(kb, tmp_path, files: dict[str, str], child: str = "site_name: Payments\nINHERIT: base.yml\n"):
    repo = payments_team(kb, tmp_path)
    root = repo.root
    (root / "mkdocs.yml").write_text(child)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


READ = [
    ("a parent's docs_dir", {"base.yml": "docs_dir: site-src\n"}, "site-src"),
    ("a grandparent's, each relative to the file naming it",
     {"base.yml": "INHERIT: config/common.yml\n", "config/common.yml": "INHERIT: ../deep/root.yml\n",
      "deep/root.yml": "docs_dir: site-src\ntheme: {name: material}\n"}, "site-src"),
    ("a parent in a folder", {"config/base.yml": "docs_dir: site-src\n"}, "site-src"),
]


@pytest.mark.parametrize("what, files, docs", READ, ids=[r[0] for r in READ])
def test_the_docs_folder_mkdocs_builds_is_the_one_checked(kb, tmp_path, what, files, docs):
    child = "site_name: Payments\nINHERIT: " + ("config/base.yml" if "config/base.yml" in files else "base.yml") + "\n"
    root = inheriting(kb, tmp_path, files, child)
    assert docs_folder(root).rel_path == docs
    assert stale(kb, root) == [("stale-doc", RUNBOOK)]


def test_the_childs_docs_dir_wins_over_the_parents(kb, tmp_path):
    root = inheriting(kb, tmp_path, {"base.yml": "docs_dir: elsewhere\n"},
                      "INHERIT: base.yml\ndocs_dir: site-src\n")
    assert docs_folder(root).rel_path == "site-src" and stale(kb, root) == [("stale-doc", RUNBOOK)]


def test_a_parent_without_docs_dir_leaves_the_default_and_no_finding(kb, tmp_path):
    root = inheriting(kb, tmp_path, {"base.yml": "theme: {name: material}\nmarkdown_extensions: [toc]\n"})
    folder = docs_folder(root)
    assert (folder.rel_path, folder.problem) == ("docs", None)
    assert stale(kb, root) == []


def hostile(root, tmp_path, what):
    outside = tmp_path / "outside.yml"
    outside.write_text("docs_dir: site-src\n")
    if what == "outside by ..":
        return "../outside.yml"
    if what == "absolute":
        return str(outside)
    if what == "a link out":
        (root / "base.yml").symlink_to(outside)
        return "base.yml"
    if what == "missing":
        return "nowhere.yml"
    if what == "a FIFO":
        os.mkfifo(root / "base.yml")
        return "base.yml"
    if what == "a loop":
        (root / "base.yml").write_text("INHERIT: mkdocs.yml\ndocs_dir: site-src\n")
        return "base.yml"
    if what == "too deep":
        for depth in range(12):
            (root / f"p{depth}.yml").write_text(f"INHERIT: p{depth + 1}.yml\n")
        (root / "p12.yml").write_text("docs_dir: site-src\n")
        return "p0.yml"
    if what == "not YAML":
        (root / "base.yml").write_text("docs_dir: [site-src\n")
        return "base.yml"
    if what == "not a name":
        return "[1, 2]"
    raise AssertionError(what)


@pytest.mark.parametrize("what", ["outside by ..", "absolute", "a link out", "missing", "a FIFO", "a loop",
                                  "too deep", "not YAML", "not a name"])
def test_a_parent_kb_cannot_read_is_a_bad_config_finding(kb, tmp_path, what):
    root = inheriting(kb, tmp_path, {})
    value = hostile(root, tmp_path, what)
    (root / "mkdocs.yml").write_text(f"site_name: Payments\nINHERIT: {value}\n")
    folder = docs_folder(root)
    assert folder.problem is not None and folder.problem.startswith("cannot read mkdocs.yml: ")
    assert stale(kb, root) == [("bad-config", "mkdocs.yml")]
