"""A doc that refers to a record but has no history in git here (ignored, in a submodule, in a nested
clone) cannot be judged by stale-doc: kb says so on the doc (unjudged-doc, a warning naming the
records and why), never a silent pass; a cached run says what a cold one says, through edits and
commits."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from ..conftest import SEED_KNOB
from ..gitrepo import GitRepo
from ..test_cache import cold

pytestmark = pytest.mark.usefixtures("git_env")

KNOB_ID = "sglang-sm120-mma-target-ctas"
RUNBOOK = "# Private runbook\n\nWe run\n`SGLANG_SM120_MMA_TARGET_CTAS=512` on decode.\n"  # the name on line 4


def unjudged(kb, root: Path, *extra) -> list[tuple[str, int, str]]:
    found = json.loads(kb("check", "--root", root, "--format", "json", *extra).out)["findings"]
    return [(f["path"], f["line"], f["message"]) for f in found if f["code"] == "unjudged-doc"]


def committed(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.commit("seed", "2026-11-01T00:00:00Z")
    return repo


@pytest.mark.parametrize("ignored_by", [".gitignore", "docs/.gitignore", ".git/info/exclude"])
def test_an_ignored_doc_that_refers_to_a_record_is_a_warning_on_it(kb, seed_kb, ignored_by):
    repo = committed(seed_kb)
    (seed_kb / ignored_by).write_text("private/\n" if ignored_by.startswith("docs") else "docs/private/\n")
    repo.write("docs/private/runbook.md", RUNBOOK)
    [(path, line, message)] = unjudged(kb, seed_kb)
    assert (path, line) == ("docs/private/runbook.md", 4)
    assert message.startswith(f"this doc refers to knob '{KNOB_ID}', but git has no history of it here: git "
                              "ignores it (`git check-ignore -v docs/private/runbook.md` shows the rule); so "
                              "stale-doc cannot tell whether it is stale.")
    result = kb("check", "--root", seed_kb)
    assert result.code == 0 and "warning unjudged-doc" in result.out  # a warning: the check still passes


def test_a_doc_in_a_submodule_names_the_submodule(kb, seed_kb, tmp_path):
    shared = GitRepo(tmp_path / "shared")
    shared.write("runbook.md", RUNBOOK)
    shared.commit("runbook", "2026-11-01T00:00:00Z")
    repo = committed(seed_kb)
    repo.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(shared.root), "docs/shared")
    repo.commit("the shared runbooks", "2026-11-02T00:00:00Z")
    [(path, line, message)] = unjudged(kb, seed_kb)
    assert (path, line) == ("docs/shared/runbook.md", 4)
    assert "it lies in docs/shared/, a repository of its own (a submodule or a nested clone)" in message


def test_a_doc_in_a_nested_clone_names_the_clone(kb, seed_kb):
    committed(seed_kb)
    nested = GitRepo(seed_kb / "docs/vendor/team")
    nested.write("how-to.md", "---\nknobs: [sglang-sm120-mma-target-ctas]\n---\n# How to\n")
    nested.commit("how-to", "2026-11-01T00:00:00Z")
    [(path, line, message)] = unjudged(kb, seed_kb)
    assert (path, line) == ("docs/vendor/team/how-to.md", 1)  # no mention in the text: line 1
    assert "it lies in docs/vendor/team/, a repository of its own" in message


def test_docs_git_can_judge_or_that_refer_to_nothing_are_no_alarm(kb, seed_kb):
    repo = committed(seed_kb)
    (seed_kb / ".gitignore").write_text("docs/private/\n")
    repo.write("docs/private/about.md", "# About\n\nNothing kb knows of.\n")
    repo.write("docs/private/aside.md", "---\nmentions: false\n---\n" + RUNBOOK)
    repo.write("docs/untracked.md", RUNBOOK)  # not ignored: its uncommitted state is its newest change
    repo.write("docs/private/runbook.md", RUNBOOK)
    repo.git("add", "-f", "docs/private/runbook.md")  # ignored, but tracked: git has its history
    assert unjudged(kb, seed_kb) == []


def test_a_cached_check_says_what_a_cold_one_says(kb, seed_kb, monkeypatch):
    repo = committed(seed_kb)
    (seed_kb / ".gitignore").write_text("docs/private/\n")
    repo.write("docs/private/runbook.md", RUNBOOK)

    def both() -> list[str]:
        cached = [kb("check", "--root", seed_kb).out for _ in range(2)]
        assert cached == [cold(kb, seed_kb, monkeypatch).out] * 2
        return [line for line in cached[0].splitlines() if "unjudged-doc" in line]

    assert len(both()) == 1
    knob = seed_kb / SEED_KNOB  # a prose edit of the record the doc refers to: a re-check keeps the warning
    knob.write_text(knob.read_text().replace("\nsummary: ", "\nsummary: Tuned. ", 1))
    assert len(both()) == 1
    repo.commit("the prose edit", "2026-11-03T00:00:00Z")  # git's view moves: decided again
    assert len(both()) == 1
    repo.git("add", "-f", "docs/private/runbook.md")
    repo.commit("the runbook is committed after all", "2026-11-04T00:00:00Z")
    assert both() == []
    (seed_kb / ".gitignore").write_text("")
    os.utime(seed_kb / ".gitignore", (1, 1))
    assert both() == []
