"""Pre-commit mode judges the commit being made: exactly what is staged (the index), never the work
tree. An untracked or unstaged file changes nothing; `git rm --cached` is judged; a commit that
removes the whole knowledge base passes with a note. The property under it all: `kb check --staged`
says what a check of the commit it would make says (`kb check --base HEAD~1` in a clean checkout of
that commit), over random mixes of staged, unstaged, untracked, removed, renamed and linked files."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from incident_kb.cli import main

from ..conftest import REPO, SEED_INCIDENT, SEED_KNOB, copy_seed, edit, one_fast
from ..gitrepo import GitRepo, git_environment

pytestmark = pytest.mark.usefixtures("git_env")

NEW_INCIDENT = "incidents/proxy-outage.yaml"


def _kb(*args: str | Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in args])
    return code, out.getvalue(), err.getvalue()


def _committed_seed(root: Path) -> GitRepo:
    copy_seed(root)
    repo = GitRepo(root)
    repo.commit("The knowledge base", "2026-11-01T10:00:00Z")
    return repo


def _incident(record_id: str) -> str:
    return (Path(__file__).parent.parent / "fixtures/seed" / SEED_INCIDENT).read_text().replace(
        "id: multi-round-harness-hang", f"id: {record_id}", 1)


def _knob_naming(incident: str) -> str:
    text = (Path(__file__).parent.parent / "fixtures/seed" / SEED_KNOB).read_text()
    return text.replace("id: sglang-sm120-mma-target-ctas", "id: second-knob", 1).replace(
        "incident: multi-round-harness-hang", f"incident: {incident}")


# ---- the cases the issue names, and their neighbours -------------------------------------------------

def test_an_untracked_incident_does_not_make_a_staged_knob_that_names_it_pass(tmp_path):
    root = tmp_path / "kb"
    repo = _committed_seed(root)
    repo.write(NEW_INCIDENT, _incident("proxy-outage"))  # in the work tree only
    repo.write("knobs/second-knob.yaml", _knob_naming("proxy-outage"))
    repo.git("add", "knobs/second-knob.yaml")
    assert _kb("check", "--root", root)[0] == 0  # the work tree is fine...
    code, out, _ = _kb("check", "--staged", "--root", root)
    assert code == 1, out  # ...the commit is not
    assert "knobs/second-knob.yaml:" in out and "dangling-ref" in out and "proxy-outage" in out
    repo.git("add", NEW_INCIDENT)
    assert _kb("check", "--staged", "--root", root)[0] == 0


def test_git_rm_cached_of_a_knob_is_judged(tmp_path):
    root = tmp_path / "kb"
    repo = _committed_seed(root)
    repo.git("rm", "-q", "--cached", SEED_KNOB)
    assert (root / SEED_KNOB).is_file()
    code, out, _ = _kb("check", "--staged", "--root", root)
    assert code == 1, out
    assert f"{SEED_INCIDENT}:" in out and "dangling-ref" in out and "sglang-sm120-mma-target-ctas" in out


def test_unstaged_changes_neither_rescue_nor_block_the_commit(tmp_path):
    root = tmp_path / "kb"
    repo = _committed_seed(root)
    knob = root / SEED_KNOB
    good = knob.read_text()
    edit(knob, "\nvalue: 512\n", "\nvalue: [512]\n")  # broken, staged
    repo.git("add", SEED_KNOB)
    knob.write_text(good)  # fixed, not staged
    code, out, _ = _kb("check", "--staged", "--root", root)
    assert code == 1 and "knobs/sglang-sm120-mma-target-ctas.yaml:" in out, out
    repo.git("add", SEED_KNOB)  # the other way round: staged good, broken in the work tree only
    edit(knob, "\nvalue: 512\n", "\nvalue: [512]\n")
    (root / "incidents/broken.yaml").write_text("id: broken\nstatus: maybe\n")  # untracked and broken
    repo.write("docs/new.md", "# New\n\nThis page is about knob sglang-sm120-mma-target-ctas.\n")
    repo.git("add", "docs/new.md")
    code, out, err = _kb("check", "--staged", "--root", root)
    assert code == 0, out + err
    assert "broken" not in out and "[512]" not in out


def test_a_file_added_with_intent_to_add_is_not_in_the_commit(tmp_path):
    root = tmp_path / "kb"
    repo = _committed_seed(root)
    repo.write("knobs/later.yaml", "id: later\nvalue: [1]\n")
    repo.git("add", "-N", "knobs/later.yaml")
    repo.write("docs/notes.md", "# Notes\n")
    repo.git("add", "docs/notes.md")
    code, out, _ = _kb("check", "--staged", "--root", root)
    assert code == 0 and "later" not in out, out


@pytest.mark.parametrize("how", ["--cached", "from the work tree too"])
@pytest.mark.parametrize("where", ["", "team/kb"])
def test_a_commit_that_removes_the_whole_knowledge_base_is_allowed_with_a_note(tmp_path, where, how):
    top = tmp_path / "repo"
    root = top / where if where else top
    copy_seed(root)
    (top / "README.md").write_text("# product\n")
    repo = GitRepo(top)
    repo.commit("The knowledge base", "2026-11-01T10:00:00Z")
    if how == "--cached":
        repo.git("rm", "-q", "-r", "--cached", "--", f"{where}/knobs" if where else "knobs",
                 f"{where}/incidents" if where else "incidents")
    else:  # the whole folder gone (the hook still says --root team/kb)
        repo.git("rm", "-q", "-r", "--", where or ".")
        repo.write("README.md", "# product\n")
        repo.git("add", "README.md")
        assert not (root / "knobs").exists()
    code, out, err = _kb("check", "--staged", "--root", root)
    assert code == 0, out + err
    assert out.startswith("kb check --staged: note: the commit removes the whole knowledge base "
                          + (f"in {where}/ " if where else "at the top of the repository ")), out
    assert "allowed" in out and "git restore --staged" in out


def test_an_index_git_cannot_commit_is_one_line(tmp_path):
    root = tmp_path / "kb"
    repo = _committed_seed(root)
    repo.git("switch", "-q", "-c", "other")
    edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: 384\n")
    repo.commit("384", "2026-11-02T10:00:00Z")
    repo.git("switch", "-q", "main")
    edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: 256\n")
    repo.commit("256", "2026-11-02T11:00:00Z")
    repo.git("merge", "-q", "other", check=False)  # a conflict: unmerged paths in the index
    code, out, err = _kb("check", "--staged", "--root", root)
    assert code == 2 and out == "", out
    assert err.startswith("kb: --staged checks the commit being made") and "resolve the conflicts" in err
    assert len(err.strip().splitlines()) == 1, err


def test_staged_mode_writes_nothing_in_the_repository(tmp_path):
    root = tmp_path / "kb"
    repo = _committed_seed(root)
    repo.write("knobs/second-knob.yaml", _knob_naming("multi-round-harness-hang"))
    repo.git("add", "-A")
    git_dir = root / ".git"
    before = {p.relative_to(git_dir): p.stat().st_mtime_ns for p in git_dir.rglob("*")}
    assert _kb("check", "--staged", "--root", root)[0] == 0
    after = {p.relative_to(git_dir): p.stat().st_mtime_ns for p in git_dir.rglob("*")}
    assert after == before  # no tree object, no index rewrite


# pre-commit for real takes seconds: the full suite runs it (tests/check/test_pr_check.py's hook test is the
# one `make test-fast` runs).
@pytest.mark.slow
def test_through_pre_commit_which_stashes_unstaged_changes(tmp_path):
    """Run for real by pre-commit (a `repo: local` hook), which stashes unstaged changes but not
    untracked files: the untracked incident still does not count, nor does an unstaged fix."""
    from ruamel.yaml import YAML

    root = tmp_path / "kb"
    repo = _committed_seed(root)
    hook = dict(YAML(typ="safe").load((REPO / ".pre-commit-hooks.yaml").read_text())[0])
    hook.update(language="system", entry=str(Path(sys.executable).parent / "kb") + hook["entry"][2:])
    (root / ".pre-commit-config.yaml").write_text(json.dumps({"repos": [{"repo": "local", "hooks": [hook]}]}))
    env = {**git_environment("2026-11-03T09:00:00Z"), "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    run = lambda *args: subprocess.run(args, cwd=root, env=env, capture_output=True, text=True)  # noqa: E731
    assert run(str(Path(sys.executable).parent / "pre-commit"), "install").returncode == 0
    repo.commit("pre-commit", "2026-11-02T10:00:00Z")
    repo.write(NEW_INCIDENT, _incident("proxy-outage"))  # untracked
    repo.write("knobs/second-knob.yaml", _knob_naming("proxy-outage"))
    run("git", "add", "knobs/second-knob.yaml")
    edit(root / SEED_KNOB, "\nvalue: 512\n", "\nvalue: 384\n")  # unstaged: pre-commit stashes it
    blocked = run("git", "commit", "-m", "A knob naming an incident not in the commit")
    assert blocked.returncode != 0 and "dangling-ref" in blocked.stdout + blocked.stderr, blocked.stdout
    assert "value: 384" in (root / SEED_KNOB).read_text()  # the unstaged change is back
    run("git", "add", NEW_INCIDENT)
    passed = run("git", "commit", "-m", "With its incident")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    # git commit -a and git commit PATH give the hook an index of their own (GIT_INDEX_FILE): judged too.
    edit(root / SEED_KNOB, "\nvalue: 384\n", "\nvalue: [384]\n")
    for args in (["-a"], ["--", SEED_KNOB]):
        broken = run("git", "commit", "-m", "Broken", *args)
        assert broken.returncode != 0 and "error bad-type" in broken.stdout + broken.stderr, (args, broken.stdout)
    repo.write("docs/notes.md", "# Notes\n")
    run("git", "add", "docs/notes.md")
    other = run("git", "commit", "-m", "Notes only", "--", "docs/notes.md")  # the broken knob is not in it
    assert other.returncode == 0, other.stdout + other.stderr


# ---- the property: --staged agrees with a check of the commit it would make --------------------------

_MOMENT = re.compile(r"commit [0-9a-f]{7} \([^)]*\)|the commit being made")
_BASE = re.compile(r"pre-existing at HEAD(~1)?( \([0-9a-f]{7}\))?")


def _normalized(output: str, root: Path) -> dict:
    found = json.loads(output.replace(str(root), "ROOT"))
    return {"findings": sorted((f["code"], f["severity"], f["path"], f["line"], f["column"], f["subject"],
                                _BASE.sub("pre-existing at BASE", _MOMENT.sub("MOMENT", f["message"])))
                               for f in found["findings"]),
            "counts": (found["errors"], found["warnings"])}


class _Mix:
    """A knowledge base with a random mix of differences between HEAD, the index and the work tree."""

    def __init__(self, folder: Path, seed: int) -> None:
        self.rng = random.Random(seed)
        top = folder / "repo"
        self.root = top / "team/kb" if seed % 3 == 2 else top  # a knowledge base in a subfolder too
        copy_seed(self.root)
        (top / "src").mkdir()
        (top / "src/main.py").write_text("print('product')\n")
        self.repo = GitRepo(top)
        self.repo.commit("The knowledge base", "2026-11-01T10:00:00Z")
        self.kb_path = "" if self.root == top else "team/kb/"
        (self.root / "docs/design/DSV4_DECODE_PERF_PLAN.md").write_text(
            (self.root / "docs/design/DSV4_DECODE_PERF_PLAN.md").read_text() + "\nReviewed again.\n")
        self.repo.commit("Docs reviewed", "2026-11-02T10:00:00Z")

    def records(self) -> list[str]:
        return sorted(p.relative_to(self.root).as_posix() for folder in ("knobs", "incidents")
                      for p in (self.root / folder).glob("*.yaml") if p.is_file() and not p.is_symlink())

    def git(self, *args: str) -> None:
        """git in the knowledge base's folder (paths relative to it)."""
        subprocess.run(["git", *args], cwd=self.root, env=git_environment("2026-11-04T10:00:00Z"),
                       capture_output=True, text=True)

    def write(self, rel: str, text: str) -> None:
        (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.root / rel).write_text(text)

    def op_untracked_reference(self) -> None:
        self.write(NEW_INCIDENT, _incident("proxy-outage"))
        self.write("knobs/second-knob.yaml", _knob_naming("proxy-outage"))
        self.git("add", "knobs/second-knob.yaml")
        if self.rng.random() < 0.4:
            self.git("add", NEW_INCIDENT)

    def op_rm_cached(self) -> None:
        self.git("rm", "-q", "--cached", "--", self.rng.choice(self.records()))

    def op_delete_unstaged(self) -> None:
        (self.root / self.rng.choice(self.records())).unlink()

    def op_break(self) -> None:
        path = self.rng.choice(self.records())
        (self.root / path).write_text((self.root / path).read_text().replace("\nstatus: ", "\nstatus: maybe-", 1))
        if self.rng.random() < 0.6:
            self.git("add", "--", path)

    def op_restore_work_tree(self) -> None:
        self.git("checkout", "--", ".")  # the work tree back to the index: unstaged fixes and breaks gone

    def op_material(self) -> None:
        knob = self.root / SEED_KNOB
        if knob.is_file():
            value = self.rng.choice(("384", "1024", "512"))
            knob.write_text(re.sub(r"\nvalue: \d+\n", f"\nvalue: {value}\n", knob.read_text(), count=1))
            if self.rng.random() < 0.7:
                self.git("add", "--", SEED_KNOB)

    def op_doc(self) -> None:
        doc = self.rng.choice(sorted((self.root / "docs").rglob("*.md")))
        doc.write_text(doc.read_text() + f"\nEdited {self.rng.random()}.\n")
        if self.rng.random() < 0.5:
            self.git("add", "--", doc.relative_to(self.root).as_posix())

    def op_deploy(self) -> None:
        deploy = self.root / "deploy/decode.sh"
        deploy.write_text(re.sub(r"TARGET_CTAS=\d+", f"TARGET_CTAS={self.rng.choice(('512', '64'))}",
                                 deploy.read_text()))
        if self.rng.random() < 0.5:
            self.git("add", "deploy/decode.sh")

    def op_intent_to_add(self) -> None:
        self.write("knobs/later.yaml", "id: later\nvalue: [1]\n")
        self.git("add", "-N", "knobs/later.yaml")

    def op_rename(self) -> None:
        records = self.records()
        path = self.rng.choice(records)
        self.git("mv", "--", path, path.replace(".yaml", "-moved.yaml"))

    def op_link(self) -> None:
        self.write("shared/linked-incident.yaml", _incident("linked-incident"))
        link = self.root / "incidents/linked-incident.yaml"
        if not link.is_symlink() and not link.exists():
            link.symlink_to("../shared/linked-incident.yaml")
        self.git("add", "incidents/linked-incident.yaml")
        if self.rng.random() < 0.6:
            self.git("add", "shared/linked-incident.yaml")

    def op_linked_docs(self) -> None:
        self.write("runbooks/tuning.md", "# Tuning\n\nSGLANG_SM120_MMA_TARGET_CTAS matters here.\n")
        link = self.root / "docs/ops"
        if not link.is_symlink():
            link.symlink_to("../runbooks")
        self.git("add", "docs/ops")
        if self.rng.random() < 0.6:
            self.git("add", "runbooks")

    def op_settings(self) -> None:
        """pyproject.toml's severities and docs folder, staged or not."""
        self.write("pyproject.toml", self.rng.choice((
            "[tool.incident-kb.severity]\ndangling-ref = 'warning'\nknob-drift = 'off'\n",
            "[tool.incident-kb]\ndocs-dir = 'runbooks'\n", "[tool.incident-kb]\n")))
        if self.rng.random() < 0.6:
            self.git("add", "pyproject.toml")

    def op_outside_the_knowledge_base(self) -> None:
        if self.kb_path:  # a file of the product, outside the knowledge base's folder
            (self.root.parent.parent / "src/main.py").write_text(f"print({self.rng.random()})\n")
            self.git("add", "-A", "--", "../../src")

    def op_commit(self) -> None:
        self.git("commit", "-q", "--no-verify", "--allow-empty", "-m", "along the way")


OPERATIONS = sorted(name for name in vars(_Mix) if name.startswith("op_"))


def _check_of_the_commit(mix: _Mix, folder: Path) -> tuple[int, str, str]:
    """Make the commit in a copy of the repository, make the copy's work tree exactly that commit, and
    check it as CI would (against the commit before)."""
    top = mix.root.parent.parent if mix.kb_path else mix.root
    shutil.copytree(top, folder / "commit", symlinks=True)
    copy = folder / "commit" / mix.kb_path
    made = GitRepo(folder / "commit", init=False)
    made.git("commit", "-q", "--no-verify", "--allow-empty", "-m", "the commit being made", when="2026-11-05T10:00:00Z")
    made.git("reset", "-q", "--hard")
    made.git("clean", "-q", "-fdx")
    return _kb("check", "--base", "HEAD~1", "--format", "json", "--root", copy)


@pytest.mark.parametrize("seed", one_fast(range(18)))
def test_staged_mode_agrees_with_a_check_of_the_commit_it_would_make(tmp_path, seed):
    mix = _Mix(tmp_path, seed)
    done = []
    for name in mix.rng.sample(OPERATIONS, 5):
        getattr(mix, name)()
        done.append(name.removeprefix("op_"))
    code, out, err = _kb("check", "--staged", "--format", "json", "--root", mix.root)
    assert "Traceback" not in err
    made_code, made_out, made_err = _check_of_the_commit(mix, tmp_path)
    context = (f"seed {seed}, after: {', '.join(done)}\n--- staged ---\n{out}{err}\n"
               f"--- the commit ---\n{made_out}{made_err}")
    if out.startswith("kb check --staged:"):  # nothing to check: the commit introduces nothing
        assert code == 0, context
        if "removes the whole" not in out:
            assert made_code == 0, context
        return
    assert code == made_code, context
    assert _normalized(out, mix.root) == _normalized(made_out, tmp_path / "commit" / mix.kb_path), context


def test_the_commits_record_files_are_read_from_memory_and_what_else_it_reads_is_written(tmp_path):
    """--staged lays the commit out without writing its record files (their bytes are read from
    memory: most of its cost over a plain check was creating them); docs and configuration are files."""
    from incident_kb.check import pr_mode
    from incident_kb.history.gitio import index_tree, open_repository

    root = tmp_path / "kb"
    _committed_seed(root)
    edit(root / SEED_KNOB, "\nsummary: ", "\nsummary: Edited. ")
    subprocess.run(["git", "add", SEED_KNOB], cwd=root, check=True, capture_output=True)
    dest = tmp_path / "laid-out"
    dest.mkdir()
    with open_repository(root) as repo, index_tree(repo) as pending:
        read, layout = pr_mode._lay_out(repo, pending.tree, "", dest, "--staged", pending.env, root,
                                        with_facts=True, in_memory=True)
    assert read is not None
    assert sorted(layout.unwritten) == sorted([SEED_INCIDENT, SEED_KNOB])
    assert not (dest / SEED_KNOB).exists() and (dest / "knobs").is_dir()
    assert layout.unwritten[SEED_KNOB] == (root / SEED_KNOB).read_bytes()
    assert sorted(source.rel_path for source in read.catalog.sources.values()) == sorted([SEED_INCIDENT, SEED_KNOB])
    assert (dest / "docs/design/DSV4_DECODE_PERF_PLAN.md").is_file()


def test_git_walks_history_ahead_for_a_commit_of_the_knowledge_base_and_not_for_one_of_other_files(
        tmp_path, monkeypatch):
    """--staged starts git's walk up to HEAD while the records load, as a plain check does, and the
    history pass uses its output; a commit of no file the knowledge base reads starts none."""
    from incident_kb.check import pr_mode
    from incident_kb.history.gitio import LogAhead

    started: list[str] = []
    used: list[bool] = []
    start, output = LogAhead.__init__, LogAhead.output

    def spied_start(self, repo, rev, paths):
        started.append(rev)
        start(self, repo, rev, paths)

    def spied(self, *args):
        found = output(self, *args)
        used.append(found is not None)
        return found

    monkeypatch.setattr(LogAhead, "__init__", spied_start)
    monkeypatch.setattr(LogAhead, "output", spied)
    root = tmp_path / "kb"
    _committed_seed(root)
    (root / "NOTES.txt").write_text("not the knowledge base's\n")
    subprocess.run(["git", "add", "NOTES.txt"], cwd=root, check=True, capture_output=True)
    assert pr_mode.check_staged(root).note is not None and started == []
    edit(root / SEED_KNOB, "\nsummary: ", "\nsummary: Edited. ")
    subprocess.run(["git", "add", SEED_KNOB], cwd=root, check=True, capture_output=True)
    assert pr_mode.check_staged(root).note is None and len(started) == 1 and used == [True]
