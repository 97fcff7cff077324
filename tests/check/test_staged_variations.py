"""`kb check --staged` says what a check of the commit it would make says, for staged changes the
random mixes of test_staged.py do not make: a renamed knob, a removed incident that a committed knob
names, a doc fixed in the work tree only, a record or doc with spaces or non-ASCII letters in its
name, a submodule (a gitlink staged where a record goes: passed --staged, failed the commit in CI), a
staged link to a record."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from ..conftest import SEED_INCIDENT, SEED_KNOB, edit, one_fast
from ..gitrepo import GitRepo, git_environment
from .test_staged import _committed_seed, _incident, _kb, _knob_naming, _normalized

pytestmark = pytest.mark.usefixtures("git_env")


def _commit_check(root: Path, folder: Path) -> tuple[int, str, str]:
    """The commit made in a copy, its work tree exactly that commit, checked as CI would."""
    import shutil

    shutil.copytree(root, folder / "commit", symlinks=True)
    made = GitRepo(folder / "commit", init=False)
    made.git("commit", "-q", "--no-verify", "--allow-empty", "-m", "the commit being made", when="2026-11-05T10:00:00Z")
    made.git("reset", "-q", "--hard")
    made.git("clean", "-q", "-fdx")
    return _kb("check", "--base", "HEAD~1", "--format", "json", "--root", folder / "commit")


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, env=git_environment("2026-11-04T10:00:00Z"), check=True,
                   capture_output=True)


def _renamed_knob(root: Path) -> None:
    _git(root, "mv", SEED_KNOB, "knobs/renamed.yaml")


def _renamed_knob_with_its_id(root: Path) -> None:
    _git(root, "mv", SEED_KNOB, "knobs/renamed.yaml")
    edit(root / "knobs/renamed.yaml", "id: sglang-sm120-mma-target-ctas", "id: renamed")
    _git(root, "add", "knobs/renamed.yaml")


def _removed_incident_a_knob_names(root: Path) -> None:
    _git(root, "rm", "-q", SEED_INCIDENT)


def _removed_incident_kept_in_the_work_tree(root: Path) -> None:
    _git(root, "rm", "-q", "--cached", SEED_INCIDENT)


def _doc_fixed_in_the_work_tree_only(root: Path) -> None:
    doc = root / "docs/design/DSV4_DECODE_PERF_PLAN.md"
    doc.write_text(doc.read_text() + "\nStaged note.\n")
    _git(root, "add", "docs/design/DSV4_DECODE_PERF_PLAN.md")
    doc.write_text(doc.read_text() + "\nWork tree only.\n")


def _spaces_and_unicode(root: Path) -> None:
    (root / "incidents/proxy outage ü.yaml").write_text(_incident("proxy-outage"))
    (root / "knobs/second knob ☃.yaml").write_text(_knob_naming("proxy-outage"))
    (root / "docs/guide/runbook ö.md").write_text("# Runbook\n\nSGLANG_SM120_MMA_TARGET_CTAS is 512.\n")
    _git(root, "add", "-A")


def _control_characters_in_names(root: Path) -> None:
    (root / "incidents/proxy\noutage.yaml").write_text(_incident("proxy-outage"))
    (root / "docs/guide/tab\tdoc.md").write_text("# Runbook\n\nSGLANG_SM120_MMA_TARGET_CTAS is 512.\n")
    _git(root, "add", "-A")


def _staged_link_to_a_record(root: Path) -> None:
    (root / "shared").mkdir()
    (root / "shared/linked.yaml").write_text(_incident("linked-incident"))
    (root / "incidents/linked.yaml").symlink_to("../shared/linked.yaml")
    _git(root, "add", "incidents/linked.yaml")


def _staged_link_to_a_record_outside(root: Path) -> None:
    (root.parent / "elsewhere.yaml").write_text(_incident("elsewhere"))
    (root / "incidents/elsewhere.yaml").symlink_to("../../elsewhere.yaml")
    _git(root, "add", "incidents/elsewhere.yaml")


def _submodule_at_a_new_record(root: Path) -> None:
    """A gitlink staged where a knob goes: the commit checked out holds an empty folder there."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    _git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},knobs/vendored.yaml")


def _submodule_in_place_of_a_record(root: Path) -> None:
    """A committed incident replaced by a gitlink in the index (its file kept in the work tree)."""
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True).stdout.strip()
    _git(root, "rm", "-q", "--cached", SEED_INCIDENT)
    _git(root, "update-index", "--add", "--cacheinfo", f"160000,{head},{SEED_INCIDENT}")


SCENARIOS = [_renamed_knob, _renamed_knob_with_its_id, _removed_incident_a_knob_names,
             _removed_incident_kept_in_the_work_tree, _doc_fixed_in_the_work_tree_only, _spaces_and_unicode,
             _control_characters_in_names,
             _staged_link_to_a_record, _staged_link_to_a_record_outside,
             _submodule_at_a_new_record, _submodule_in_place_of_a_record]


@pytest.mark.parametrize("scenario", one_fast(SCENARIOS), ids=[s.__name__.strip("_") for s in SCENARIOS])
def test_staged_says_what_a_check_of_the_commit_says(tmp_path, scenario):
    root = tmp_path / "kb"
    _committed_seed(root)
    scenario(root)
    code, out, err = _kb("check", "--staged", "--format", "json", "--root", root)
    assert "Traceback" not in err and "crashed" not in err, err
    made_code, made_out, made_err = _commit_check(root, tmp_path)
    context = f"--- staged ---\n{out}{err}\n--- the commit ---\n{made_out}{made_err}"
    assert code == made_code, context
    staged, made = _normalized(out, root), _normalized(made_out, tmp_path / "commit")
    if scenario is _staged_link_to_a_record_outside:  # the commit's copy still reaches the file outside: the
        staged, made = ([f[:3] for f in found["findings"]] for found in (staged, made))  # wording differs
    assert staged == made, context


def test_records_loaded_in_a_shared_scope_are_one_parse_per_path_and_bytes(tmp_path):
    """--staged loads the commit's and HEAD's records twice each; within `loads_shared` a file with the
    same kind, path and bytes is parsed once, and one with other bytes (or at another path) anew."""
    from incident_kb.records.record_cache import RecordCache, loads_shared
    from incident_kb.records.vocabulary import RecordKind

    root = tmp_path / "kb"
    _committed_seed(root)
    path = str(root / SEED_KNOB)
    with loads_shared():
        first = RecordCache(root, enabled=False).load(RecordKind.KNOB, SEED_KNOB, path)
        assert RecordCache(tmp_path, enabled=False).load(RecordKind.KNOB, SEED_KNOB, path) is first
        edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: 384\n")
        changed = RecordCache(root, enabled=False).load(RecordKind.KNOB, SEED_KNOB, path)
        assert changed is not first and changed.record.value != first.record.value
        other = RecordCache(root, enabled=False).load(RecordKind.KNOB, "knobs/other.yaml", path)
        assert other is not changed and other.record == changed.record
    assert RecordCache(root, enabled=False).load(RecordKind.KNOB, SEED_KNOB, path) is not changed  # scope over


def test_a_work_tree_file_git_takes_for_the_staged_one_is_not_read_for_it(tmp_path):
    """--staged takes a file's bytes from the work tree only where they hash to the index's blob: an
    unstaged edit git's stat information does not show (racy git: same size and times, ctime not
    trusted) is not the commit's content."""
    import os

    root = tmp_path / "kb"
    repo = _committed_seed(root)
    repo.git("config", "core.trustctime", "false")
    knob = root / SEED_KNOB
    edit(knob, "\nvalue: 512\n", "\nvalue: [512]\n")  # broken, staged
    long_ago = (1_700_000_000, 1_700_000_000)  # older than the index: git compares no content
    os.utime(knob, long_ago)
    repo.git("add", SEED_KNOB)
    edit(knob, "\nvalue: [512]\n", "\nvalue: 512  \n")  # fixed in the work tree only, the same size
    os.utime(knob, long_ago)
    assert subprocess.run(["git", "diff-files", "--quiet"], cwd=root).returncode == 0  # git sees no change
    code, out, _ = _kb("check", "--staged", "--root", root)
    assert code == 1 and f"{SEED_KNOB}:" in out and "bad-type" in out, out
