"""The remembered result keyed by what git itself reports (issue 29): in each git set-up below, a
cached `kb check` prints exactly what a cold one (`INCIDENT_KB_CACHE=off`) prints, byte for byte on
stdout and stderr, with the same exit code, after every step of a scenario:

1. an alternate index (`GIT_INDEX_FILE`): staging or unstaging a record in it;
2. files kb does not read, under the paths it hands to git (rename pairing with a non-record file);
3. a partial clone whose old record versions are not there (nothing fetched, nothing remembered);
4. relative `core.attributesFile` / `core.excludesFile`, with kb run from a subfolder;
5. notes only one run printed (the cache folder inside the repository; --staged on a first commit).

Each class has one fast case; its variations are slow (`one_fast`)."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from pathlib import Path

import pytest

from incident_kb.cli import main

from ..conftest import one_fast
from ..gitrepo import GitRepo

KNOB = """id: knob-a
name: TEAM_KNOB_A_BLOCKS
summary: Knob A.
value: {value}
status: active
kind: env
default: 256
history:
  - date: 2026-10-01
    status: active
"""
DOC = "# Doc\n\nTEAM_KNOB_A_BLOCKS matters, see knob-a.\n"


class Scene:
    """A small knowledge base in a real repository, and kb run in-process, cached and cold."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.root = folder / "kb"
        self.repo = GitRepo(self.root)
        self.environment: dict[str, str] = {}
        self.cwd: Path | None = None  # kb's current folder (default: where the tests run)
        self.day = 0

    def write(self, rel: str, text: str) -> None:
        self.repo.write(rel, text)

    def git(self, *args: str, check: bool = True) -> str:
        self.day += 1
        result = subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True, env={
            **os.environ, **_git_identity(f"2026-10-{1 + self.day:02d}T00:00:00Z"), **self.environment})
        if check and result.returncode != 0:
            raise AssertionError(f"git {' '.join(args)}: {result.stderr}")
        return result.stdout.strip()

    def commit(self, message: str = "work") -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)

    def story(self) -> None:
        """A knob and a doc about it, then a material change of the knob: the doc is stale."""
        self.write("knobs/knob-a.yaml", KNOB.format(value=256))
        self.write("docs/doc.md", DOC)
        self.write("pyproject.toml", "[tool.incident-kb]\n")
        self.commit("the knowledge base")
        self.write("knobs/knob-a.yaml", KNOB.format(value=512))
        self.commit("512 now")

    def kb(self, *args: str, cache: bool) -> tuple[int, str, str]:
        out, err = io.StringIO(), io.StringIO()
        saved, here = dict(os.environ), os.getcwd()
        os.environ.update(self.environment)
        os.environ["INCIDENT_KB_CACHE"] = "on" if cache else "off"
        try:
            if self.cwd is not None:
                os.chdir(self.cwd)
            root = os.path.relpath(self.root) if self.cwd is not None else str(self.root)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                code = main(["check", "--root", root, *args])
        finally:
            os.chdir(here)
            os.environ.clear()
            os.environ.update(saved)
        return code, out.getvalue(), err.getvalue()

    def same(self, *args: str) -> tuple[int, str, str]:
        """kb check cached (twice: the second from memory) and cold: the same bytes, or the test fails."""
        cached = self.kb(*args, cache=True)
        again = self.kb(*args, cache=True)
        cold = self.kb(*args, cache=False)
        assert cached == cold, f"cached:\n{_shown(cached)}\ncold:\n{_shown(cold)}"
        assert again == cold, f"cached again:\n{_shown(again)}\ncold:\n{_shown(cold)}"
        return cold


def _git_identity(when: str) -> dict[str, str]:
    from ..gitrepo import git_environment

    return {key: value for key, value in git_environment(when).items() if key.startswith("GIT_")}


def _shown(found: tuple[int, str, str]) -> str:
    code, out, err = found
    return f"exit {code}\nstdout:\n{out}stderr:\n{err}"


@pytest.fixture
def scene(tmp_path, git_env) -> Scene:
    return Scene(tmp_path)


# ---- 1. the index git uses ------------------------------------------------------------------------

@pytest.mark.parametrize("where", one_fast(["outside", "inside-git-dir", "relative"]))
def test_an_alternate_index_is_the_one_signed(scene, where):
    scene.story()
    index = {"outside": scene.folder / "other-index", "inside-git-dir": scene.root / ".git" / "hook-index",
             "relative": Path("alt-index")}[where]
    shown = index if index.is_absolute() else scene.root / index
    shown.write_bytes((scene.root / ".git/index").read_bytes())
    if where == "relative":  # relative to the folder git runs in: kb runs git at the top, as hooks do
        scene.cwd = scene.root
    scene.environment["GIT_INDEX_FILE"] = str(index)
    scene.git("mv", "knobs/knob-a.yaml", "knobs/renamed.yaml")  # staged in the alternate index only
    scene.write("knobs/renamed.yaml", KNOB.format(value=512).replace("knob-a", "renamed"))
    scene.same()
    scene.git("rm", "-q", "-f", "--cached", "knobs/renamed.yaml")  # unstaged: no rename for git any more
    scene.same()
    scene.git("add", "knobs/renamed.yaml")
    scene.same()


# ---- 2. every file under the paths kb hands to git, by content ----------------------------------------

@pytest.mark.parametrize("case", one_fast(["doc-twin-not-a-doc", "notes-beside-records"]))
def test_a_file_kb_does_not_read_pairs_renames_by_its_content(scene, case):
    scene.story()
    scene.git("rm", "-q", "knobs/knob-a.yaml")
    record = KNOB.format(value=512)
    if case == "notes-beside-records":
        scene.write("knobs/notes.txt", record)  # git pairs the deleted record with it
        scene.git("add", "knobs/notes.txt")
        scene.write("knobs/knob-b.yaml", record.replace("knob-a", "knob-b"))
        scene.same()
        scene.write("knobs/notes.txt", "nothing like it\n")  # now with the new record: its history moves
        scene.same()
    else:
        scene.write("docs/doc.txt", record)  # under docs/, not a doc kb reads
        scene.write("knobs/knob-b.yaml", record.replace("knob-a", "knob-b"))
        scene.git("add", "-A")
        scene.same()
        scene.write("docs/doc.txt", "nothing like it either\n")
        scene.same()


# ---- 4. relative attributes and excludes files --------------------------------------------------------

@pytest.mark.parametrize("case", one_fast(["attributes-from-a-subfolder", "excludes-from-a-subfolder",
                                           "attributes-from-elsewhere"]))
def test_relative_attributes_and_excludes_files_are_read_from_the_top(scene, case):
    scene.story()
    scene.write("docs/doc.md", DOC + "More.\n")  # an uncommitted doc edit: the doc is not stale now
    if case.startswith("attributes"):
        scene.git("config", "core.attributesFile", "my-attributes")
        scene.write("my-attributes", "")
        change = ("my-attributes", "docs/*.md -diff\n*.md text eol=crlf\n")
    else:
        scene.git("config", "core.excludesFile", "my-excludes")
        scene.write("my-excludes", "")
        scene.write("docs/new.md", DOC)
        change = ("my-excludes", "docs/new.md\n")
    scene.cwd = scene.root / "docs" if "subfolder" in case else scene.folder
    scene.same()
    (scene.root / change[0]).write_text(change[1])
    scene.same()


# ---- 5. what only one of the runs printed -----------------------------------------------------------

def test_a_cache_folder_inside_the_repository_is_said_by_both_runs(scene):
    scene.story()
    scene.environment["XDG_CACHE_HOME"] = str(scene.root / ".cache")
    code, _, err = scene.same()
    assert "inside the repository" in err


@pytest.mark.parametrize("case", one_fast(["checked-before", "first"]))
def test_staged_on_a_first_commit_prints_the_same(scene, case):
    scene.write("knobs/knob-a.yaml", KNOB.format(value=256))
    scene.write("docs/doc.md", DOC)
    scene.git("add", "-A")
    if case == "checked-before":
        scene.kb(cache=True)
    scene.same("--staged")


# ---- 3. a partial clone -------------------------------------------------------------------------------

def _partial_clone(scene: Scene) -> Path:
    """The story's repository cloned with --filter=blob:none (old record versions left behind)."""
    scene.git("config", "uploadpack.allowFilter", "true")
    scene.git("config", "uploadpack.allowAnySHA1InWant", "true")
    clone = scene.folder / "partial"
    scene.git("clone", "-q", "--filter=blob:none", f"file://{scene.root}", str(clone))
    return clone


def _packs(clone: Path) -> list[str]:
    return sorted(os.listdir(clone / ".git/objects/pack"))


@pytest.mark.parametrize("case", one_fast(["missing-version", "missing-with-a-rename", "base"]))
def test_a_partial_clone_is_never_all_good_in_silence_and_nothing_is_fetched(scene, case):
    scene.story()
    if case == "missing-with-a-rename":  # rename pairing needs the contents the clone lacks
        scene.git("mv", "knobs/knob-a.yaml", "knobs/knob-b.yaml")
        scene.write("knobs/knob-b.yaml", KNOB.format(value=512).replace("knob-a", "knob-b") + "# moved\n")
        scene.commit("renamed")
    clone = _partial_clone(scene)
    packs = _packs(clone)
    scene.root = clone
    if case == "base":
        scene.git("commit", "-q", "--allow-empty", "-m", "more")
        code, out, err = scene.same("--base", "HEAD~2")
        assert (code, out) == (2, "") and len(err.splitlines()) == 1 and "git fetch --refetch" in err, err
    else:
        code, out, err = scene.same()
        if case == "missing-version":
            assert code == 1 and "missing-history" in out and "knobs/knob-a.yaml" in out, out
        else:
            assert code in (1, 2) and "git fetch --refetch" in out + err, out + err
        assert "Traceback" not in err
    assert _packs(clone) == packs  # nothing fetched, nothing written into .git
