"""PR mode: `kb check --base REF` fails only on what the change introduced."""

from __future__ import annotations

import json
import shutil
import tempfile
import uuid
from pathlib import Path

import pytest

from ..conftest import SEED_INCIDENT, SEED_KNOB, edit
from ..story import DEADLOCK, INCIDENT, KNOB, PERF_PLAN, story_until

pytestmark = pytest.mark.usefixtures("git_env")


def check(kb, root, *extra):
    result = kb("check", "--root", root, "--format", "json", *extra)
    return result.code, json.loads(result.out)["findings"]


def test_the_commit_that_records_the_root_cause_fails_until_the_docs_are_updated(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 3)
    code, found = check(kb, root, "--base", ids[2])
    assert code == 1
    assert [(f["code"], f["severity"], f["path"]) for f in found] == [
        ("stale-doc", "error", PERF_PLAN), ("stale-doc", "error", DEADLOCK), ("reclaimable-knob", "error", SEED_KNOB)]
    assert not any(f["message"].startswith("pre-existing") for f in found)


def test_findings_already_at_the_base_do_not_fail_the_run(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 3)
    repo.write("docs/index.md", (root / "docs/index.md").read_text() + "\nAn unrelated edit.\n")
    repo.commit("Unrelated", "2026-11-07T12:00:00Z")
    result = kb("check", "--root", root, "--base", ids[3])
    assert result.code == 0
    assert f"{PERF_PLAN}:8:1: warning stale-doc: pre-existing at {ids[3]} (error): this doc refers" in result.out
    assert f"{SEED_KNOB}:8:1: warning reclaimable-knob: pre-existing at {ids[3]} (error): knob" in result.out
    assert result.out.endswith(f"0 errors, 3 warnings in 3 files (1 knob, 1 incident checked; 3 findings "
                               f"pre-existing at {ids[3]} do not fail the run)\n")


def test_a_new_change_to_a_record_a_stale_doc_refers_to_is_new(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 4)
    code, found = check(kb, root, "--base", ids[3])
    assert code == 1
    new = [(f["path"], f["subject"]) for f in found if f["severity"] == "error"]
    old = [(f["path"], f["subject"]) for f in found if f["message"].startswith(f"pre-existing at {ids[3]}")]
    assert new == [(PERF_PLAN, KNOB), (DEADLOCK, KNOB)]  # the restore is this change's doing
    assert old == [(PERF_PLAN, INCIDENT), (DEADLOCK, INCIDENT)]  # the root cause was recorded before


def test_a_finding_that_only_moved_is_still_pre_existing(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 3)
    knob = root / SEED_KNOB
    knob.write_text(knob.read_text().replace("\nkind: env\n", "\n# The setting:\nkind: env\n", 1)
                    .replace("\nvalue: 512\n", "\n# tuned\nvalue: 512\n"))
    repo.commit("Comments", "2026-11-07T12:00:00Z")
    code, found = check(kb, root, "--base", ids[3])
    reclaimable = [f for f in found if f["code"] == "reclaimable-knob"]
    assert reclaimable[0]["line"] == 9 and reclaimable[0]["severity"] == "warning"
    assert code == 0


def test_a_base_without_a_knowledge_base_makes_everything_new(kb, tmp_path):
    root = tmp_path / "kb"
    from ..gitrepo import GitRepo

    repo = GitRepo(root)
    repo.write("README.md", "# A service\n")
    first = repo.commit("Start", "2026-11-01T10:00:00Z")
    from ..story import step

    for number in (1, 2, 3):
        step(repo, number)
    code, found = check(kb, root, "--base", first)
    assert code == 1 and all(f["severity"] == "error" for f in found if f["code"] != "correlation-only-revert")


def test_the_work_tree_is_untouched_by_the_base_check(kb, tmp_path):
    root = tmp_path / "kb"
    repo, ids = story_until(root, 4)
    before = repo.git("status", "--porcelain", "--ignored")
    worktrees = repo.git("worktree", "list")
    check(kb, root, "--base", ids[1])
    assert repo.git("status", "--porcelain", "--ignored") == before
    assert repo.git("worktree", "list") == worktrees


# ---- matching: by code, file, record and field ------------------------------------------------

MEASUREMENT_0 = "    delta_pct: 12.8\n    date: 2026-11-02\n"
MEASUREMENT_1 = "    delta_pct: 5.7\n    date: 2026-11-02\n"


def line_of(path, text: str) -> int:
    return next(i for i, line in enumerate(path.read_text().splitlines(), 1) if text in line)


def seed_repo(seed_kb):
    from ..gitrepo import GitRepo

    repo = GitRepo(seed_kb)
    return repo, repo.commit("The seed", "2026-11-08T10:00:00Z")


def test_fixing_one_field_does_not_excuse_the_same_error_in_another(kb, seed_kb):
    repo, _ = seed_repo(seed_kb)
    knob = seed_kb / SEED_KNOB
    edit(knob, MEASUREMENT_0, MEASUREMENT_0.replace("12.8", "'12'"))
    base = repo.commit("A quoted gain", "2026-11-09T10:00:00Z")
    edit(knob, MEASUREMENT_0.replace("12.8", "'12'"), MEASUREMENT_0)  # fixed here...
    edit(knob, MEASUREMENT_1, MEASUREMENT_1.replace("5.7", "'57'"))  # ...and the same mistake made there
    repo.commit("Fix one, break another", "2026-11-10T10:00:00Z")
    code, found = check(kb, seed_kb, "--base", base)
    assert code == 1
    assert [(f["code"], f["severity"], f["line"]) for f in found] == [("bad-type", "error", line_of(knob, "'57'"))]


def test_a_second_date_order_error_is_new(kb, seed_kb):
    repo, _ = seed_repo(seed_kb)
    incident = seed_kb / SEED_INCIDENT
    edit(incident, "  - at: 2026-11-03\n", "  - at: 2026-11-01\n")  # out of order
    base = repo.commit("One out of order", "2026-11-09T10:00:00Z")
    edit(incident, "  - at: 2026-11-01\n", "  - at: 2026-11-03\n")
    edit(incident, "  - at: 2026-11-05\n", "  - at: 2026-11-01\n")
    repo.commit("Another out of order", "2026-11-10T10:00:00Z")
    code, found = check(kb, seed_kb, "--base", base)
    assert code == 1 and [(f["code"], f["severity"]) for f in found] == [("date-order", "error")]


def test_an_old_error_that_moved_down_a_list_and_the_file_stays_pre_existing(kb, seed_kb):
    repo, _ = seed_repo(seed_kb)
    knob = seed_kb / SEED_KNOB
    edit(knob, MEASUREMENT_1, MEASUREMENT_1.replace("5.7", "'57'"))
    base = repo.commit("A quoted gain", "2026-11-09T10:00:00Z")
    edit(knob, "measurements:\n", "measurements:\n  # the first one\n  - metric: latency\n    delta_pct: 1\n")
    edit(knob, "\nkind: env\n", "\n# comments push every line down\n\nkind: env\n")
    repo.commit("Another measurement above it", "2026-11-10T10:00:00Z")
    code, found = check(kb, seed_kb, "--base", base)
    assert code == 0
    assert [(f["code"], f["severity"], f["line"]) for f in found] == [("bad-type", "warning", line_of(knob, "'57'"))]
    assert found[0]["message"].startswith(f"pre-existing at {base} (error): 'measurements[2].delta_pct'")


def test_the_same_field_still_wrong_in_another_way_stays_pre_existing(kb, seed_kb):
    repo, _ = seed_repo(seed_kb)
    knob = seed_kb / SEED_KNOB
    edit(knob, MEASUREMENT_1, MEASUREMENT_1.replace("5.7", "'57'"))
    base = repo.commit("A quoted gain", "2026-11-09T10:00:00Z")
    edit(knob, "delta_pct: '57'", "delta_pct: 'fifty-seven'")
    repo.commit("Still quoted", "2026-11-10T10:00:00Z")
    code, found = check(kb, seed_kb, "--base", base)
    assert code == 0 and [f["severity"] for f in found] == ["warning"]


# ---- reading the base: only the knowledge base, from git's objects -----------------------------

def test_the_first_pr_that_adds_a_knowledge_base_in_a_subfolder(kb, seed_kb, tmp_path):
    from ..gitrepo import GitRepo

    top = tmp_path / "service"
    repo = GitRepo(top)
    repo.write("README.md", "# A service\n")
    base = repo.commit("Start", "2026-11-01T10:00:00Z")
    shutil.copytree(seed_kb, top / "kb")
    repo.commit("Add a knowledge base", "2026-11-02T10:00:00Z")
    result = kb("check", "--root", top / "kb", "--base", base)
    assert result.code == 0, result.err
    assert "0 findings pre-existing" in result.out


def hostile_commit(repo, parent: str, path: str) -> str:
    """A commit on `parent` with a file at `path`, whose parts may be '..': git mktree makes trees
    that git checkout refuses."""
    blob = repo.git("hash-object", "-w", "--stdin", input_text="pwned\n")

    def add(tree: str | None, parts: list[str]) -> str:
        lines = repo.git("ls-tree", tree).splitlines() if tree else []
        name, sub = parts[0], None
        for line in lines:
            meta, entry_name = line.split("\t", 1)
            if entry_name == name and meta.split()[1] == "tree":
                sub = meta.split()[2]
        lines = [line for line in lines if line.split("\t", 1)[1] != name]
        if len(parts) == 1:
            lines.append(f"100644 blob {blob}\t{name}")
        else:
            lines.append(f"040000 tree {add(sub, parts[1:])}\t{name}")
        return repo.git("mktree", input_text="\n".join(lines) + "\n")

    tree = add(repo.git("rev-parse", f"{parent}^{{tree}}"), path.split("/"))
    return repo.git("commit-tree", tree, "-p", parent, "-m", "hostile", when="2026-11-09T10:00:00Z")


@pytest.mark.parametrize("path", ["knobs/../../pwned.txt", "docs/design/../../../pwned.txt", "incidents/..",
                                  "knobs/../pyproject.toml"])
def test_a_base_tree_entry_that_leaves_its_folder_is_refused(kb, seed_kb, path):
    path = path.replace("pwned", f"pwned-{uuid.uuid4().hex}")  # a name nothing else could have made
    repo, head = seed_repo(seed_kb)
    hostile = hostile_commit(repo, head, path)
    before = sorted(p.name for p in seed_kb.parent.iterdir())
    result = kb("check", "--root", seed_kb, "--base", hostile)
    assert result.code == 2 and result.out == ""
    assert result.err == (f"kb: --base {hostile}: the commit's tree holds a file named {path!r}, which would leave "
                          "its folder; git refuses to check such a tree out, and so does kb\n")
    assert sorted(p.name for p in seed_kb.parent.iterdir()) == before
    name = path.rsplit("/", 1)[-1]
    assert name == ".." or not (Path(tempfile.gettempdir()) / name).exists()


@pytest.mark.parametrize("path", ["/tmp/pwned.txt", "knobs//x.yaml", "./knobs/x.yaml"])
def test_absolute_and_empty_parts_are_refused_too(path):
    from incident_kb.findings import KbError
    from incident_kb.history.tree_layout import _refuse_escaping  # (moved from pr_mode: --staged lays out trees too)

    with pytest.raises(KbError, match="which would leave its folder"):
        _refuse_escaping(path, "--base main")


def test_files_the_knowledge_base_does_not_read_are_not_read_at_the_base(kb, seed_kb):
    repo, head = seed_repo(seed_kb)
    hostile = hostile_commit(repo, head, "vendor/../../pwned.txt")  # would stop the run if it were read
    result = kb("check", "--root", seed_kb, "--base", hostile)
    assert result.code == 0, result.err


def test_links_in_the_base_tree_are_not_followed(kb, seed_kb):
    repo, _ = seed_repo(seed_kb)
    (seed_kb / "docs" / "passwd.md").symlink_to("/etc/passwd")
    (seed_kb / "knobs" / "leak.yaml").symlink_to("/etc/hostname")
    base = repo.commit("Links out of the repository", "2026-11-09T10:00:00Z")
    (seed_kb / "docs" / "passwd.md").unlink()
    (seed_kb / "knobs" / "leak.yaml").unlink()
    repo.commit("Links removed", "2026-11-10T10:00:00Z")
    result = kb("check", "--root", seed_kb, "--base", base, "--format", "json")
    assert result.code == 0, result.err
    assert "root:" not in result.out and Path("/etc/hostname").read_text().strip() not in result.out
