"""`kb init [DIR]`: a knowledge base that checks, builds and commits from the first minute, at the
top of a repository or in a subfolder of a larger one, and never a file overwritten."""

from __future__ import annotations

import json
import os

import pytest
from ruamel.yaml import YAML

from incident_kb.records.schema import json_schema

from ..conftest import REPO
from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_init_writes_a_knowledge_base_that_checks_and_says_what_next(kb, here):
    GitRepo(here / "team-kb")
    os.chdir(here / "team-kb")
    result = kb("init")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == "kb init: a knowledge base in . (site 'team-kb')"
    for path in ("knobs/.gitkeep", "incidents/.gitkeep", "docs/about.md", "schemas/knob.schema.json",
                 "schemas/incident.schema.json", "mkdocs.yml", ".github/workflows/kb-check.yml",
                 ".pre-commit-config.yaml", ".gitignore"):
        assert f"  created {path}" in lines
        assert (here / "team-kb" / path).is_file()
    assert "next:" in lines and "  kb check" in lines
    root = here / "team-kb"
    assert json.loads((root / "schemas/knob.schema.json").read_text()) == json_schema("knob")
    assert (root / ".gitignore").read_text() == "site/\n.cache/\n.*.tmp\n"  # what a killed edit leaves, too
    site = YAML(typ="safe").load((root / "mkdocs.yml").read_text())
    assert site["site_name"] == "team-kb"
    assert "incident-kb" in site["plugins"]
    assert [next(iter(item.values())) for item in site["nav"]][:4] == \
        ["index.md", "knobs/index.md", "incidents/index.md", "tags.md"]
    assert kb("check").out == "all good: 0 knobs, 0 incidents checked\n"
    # The scaffolded record's modeline finds the schema kb init wrote.
    assert kb("new", "knob", "batch-size", "--name", "BATCH", "--summary", "s", "--value", "8").code == 0
    modeline = (root / "knobs/batch-size.yaml").read_text().splitlines()[0]
    assert modeline.endswith("$schema=../schemas/knob.schema.json")
    assert (root / "knobs" / modeline.split("=", 1)[1]).resolve() == (root / "schemas/knob.schema.json")


def test_init_twice_keeps_every_file_and_adds_only_missing_ignores(kb, here):
    (here / ".gitignore").write_text("*.pyc\nsite/")
    (here / "mkdocs.yml").write_text("site_name: ours\n")
    first = kb("init")
    assert "  kept    mkdocs.yml (kb init --merge adds the knowledge base to it)" in first.out.splitlines()
    assert (here / "mkdocs.yml").read_text() == "site_name: ours\n"
    assert "  added   .cache/, .*.tmp to .gitignore" in first.out.splitlines()
    assert (here / ".gitignore").read_text() == "*.pyc\nsite/\n.cache/\n.*.tmp\n"
    written = {p: p.read_bytes() for p in here.rglob("*") if p.is_file()}
    second = kb("init")
    assert second.code == 0
    assert not any(line.startswith("  created") or line.startswith("  added") for line in second.out.splitlines())
    assert {p: p.read_bytes() for p in here.rglob("*") if p.is_file()} == written
    assert "git init" in second.out  # not a repository yet: the next steps say so


def test_init_in_a_subfolder_puts_workflow_and_hook_at_the_top(kb, here):
    repo = GitRepo(here / "product")
    repo.write("src/main.py", "print('hello')\n")
    repo.commit("The product", "2026-11-01T00:00:00Z")
    os.chdir(here / "product")
    assert kb("init", "kb").code == 0
    top = here / "product"
    assert (top / "kb/mkdocs.yml").is_file() and (top / "kb/.gitignore").is_file()
    assert not (top / "kb/.github").exists() and not (top / "kb/.pre-commit-config.yaml").exists()
    workflow = YAML(typ="safe").load((top / ".github/workflows/kb-check.yml").read_text())
    assert workflow["jobs"]["kb-check"]["defaults"]["run"]["working-directory"] == "kb"
    hook = YAML(typ="safe").load((top / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"][0]
    assert hook["entry"] == "kb check --staged --root kb"
    assert kb("new", "knob", "batch-size", "--name", "BATCH", "--summary", "s", "--value", "8",
              "--root", "kb").code == 0
    repo.commit("A knowledge base", "2026-11-02T00:00:00Z")
    # PR mode on the commit that adds the knowledge base: everything in it is new, nothing fails.
    result = kb("check", "--root", "kb", "--base", "HEAD~1")
    assert result.code == 0, result.err
    assert result.out.startswith("all good: 1 knob, 0 incidents checked; 0 findings pre-existing at HEAD~1")
    os.chdir(top / "kb/knobs")  # kb finds the knowledge base from inside it
    assert kb("check").out == "all good: 1 knob, 0 incidents checked\n"


def test_the_generated_hook_is_the_published_one_run_locally():
    published = YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())[0]
    local = YAML(typ="safe").load((REPO / "generator/incident_kb/adoption/starter/pre-commit-config.yaml").read_text())
    hook = local["repos"][0]["hooks"][0]
    assert hook["id"] == published["id"] == "kb-check"
    assert hook["entry"] == "@entry@" and published["entry"] == "kb check --staged"
    for key in ("always_run", "pass_filenames", "require_serial"):
        assert hook[key] == published[key], key


def test_the_generated_workflow_checks_like_this_repositorys_own():
    ours = YAML(typ="safe").load((REPO / ".github/workflows/kb-check.yml").read_text())
    theirs = YAML(typ="safe").load((REPO / "generator/incident_kb/adoption/starter/kb-check.yml").read_text())
    run_of = lambda w: [s.get("run") for s in w["jobs"]["kb-check"]["steps"] if s.get("name") != "Install incident-kb"]  # noqa: E731
    assert run_of(ours) == run_of(theirs)
    assert ours["jobs"]["kb-check"]["steps"][0] == theirs["jobs"]["kb-check"]["steps"][0]  # fetch-depth: 0


def test_init_refuses_a_file_with_one_line(kb, here):
    (here / "kb").write_text("not a folder\n")
    result = kb("init", "kb")
    assert result.code == 2 and result.err == "kb: kb is a file; kb init needs a folder (it is created if missing)\n"


def test_staged_mode_in_a_subfolder_looks_only_at_the_knowledge_base(kb, here):
    repo = GitRepo(here / "product")
    os.chdir(here / "product")
    assert kb("init", "kb").code == 0
    # Before the first commit there is no HEAD: everything staged is new.
    repo.git("add", "-A")
    assert kb("check", "--staged", "--root", "kb").out == "all good: 0 knobs, 0 incidents checked\n"
    repo.commit("A knowledge base", "2026-11-01T00:00:00Z")
    repo.write("src/main.py", "print('hello')\n")
    repo.git("add", "-A")
    skipped = kb("check", "--staged", "--root", "kb")
    assert (skipped.code, skipped.out) == (0, "kb check --staged: the commit touches no file of the knowledge base; "
                                              "nothing to check\n")
    repo.commit("The product", "2026-11-02T00:00:00Z")
    repo.write("kb/knobs/broken.yaml", "id: broken\n")
    repo.git("add", "-A")
    blocked = kb("check", "--staged", "--root", "kb")
    assert blocked.code == 1 and "kb/knobs/broken.yaml" not in blocked.out and "knobs/broken.yaml:" in blocked.out
