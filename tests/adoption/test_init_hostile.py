"""`kb init` in a folder someone else prepared: links in and out of the repository, dangling links,
FIFOs, devices, huge files, read-only files and folders, names that are not UTF-8 or hold a line
break, a bidirectional control or HTML. It checks everything first, then writes all or nothing,
never through a link that leaves the repository, and ends in one line, never a traceback or a hang.
"""

from __future__ import annotations

import errno
import os
import shlex
import signal
import stat
import subprocess
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from incident_kb.adoption import init as init_module
from incident_kb.wording import shell_word

from ..gitrepo import GitRepo

pytestmark = pytest.mark.usefixtures("git_env")
STARTER = ("knobs/.gitkeep", "incidents/.gitkeep", "docs/about.md", "schemas/knob.schema.json",
           "schemas/incident.schema.json", "mkdocs.yml", ".gitignore")
AT_TOP = (".github/workflows/kb-check.yml", ".pre-commit-config.yaml")


def snapshot(folder: Path) -> dict[str, object]:
    """Every name under `folder` (links not followed): its kind, mode, and a file's bytes or a link's target."""
    found: dict[str, object] = {}
    for dirpath, dirnames, filenames in os.walk(folder):
        for name in dirnames + filenames:
            path = os.path.join(dirpath, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                what: object = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                what = ("file", stat.S_IMODE(info.st_mode), Path(path).read_bytes())
            else:
                what = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode))
            found[os.path.relpath(path, folder)] = what
    return found


@pytest.fixture
def place(tmp_path, monkeypatch):
    """A repository (`repo/`, the current folder) beside a folder that is not in it (`outside/`)."""
    outside = tmp_path / "outside"
    (outside / "folder").mkdir(parents=True)
    (outside / "file").write_text("theirs\n")
    GitRepo(tmp_path / "repo")
    monkeypatch.chdir(tmp_path / "repo")
    return tmp_path


def init_refused(kb, place, *args: str) -> str:
    """Run `kb init`, which must refuse with one line and write nothing, in or out of the repository."""
    before = snapshot(place)
    result = kb("init", *args)
    assert result.code == 2, result.out
    assert result.out == "" and result.err.count("\n") == 1 and result.err.startswith("kb: "), result.err
    assert snapshot(place) == before
    return result.err


@pytest.mark.parametrize("name, target", [
    ("mkdocs.yml", "../outside/missing.yml"),
    ("mkdocs.yml", "/nonexistent/mkdocs.yml"),
    ("docs", "../outside/missing"),
    (".gitignore", "../outside/missing"),
    (".pre-commit-config.yaml", "../outside/missing"),
])
def test_a_dangling_link_is_never_written_through(kb, place, name, target):
    (place / "repo/docs").mkdir(exist_ok=True)
    (place / "repo" / name).unlink(missing_ok=True) if name != "docs" else (place / "repo/docs").rmdir()
    (place / "repo" / name).symlink_to(target)
    err = init_refused(kb, place)
    assert f"kb: {name} " in err and "nothing was written" in err
    assert sorted(os.listdir(place / "outside")) == ["file", "folder"]


def test_a_dangling_link_inside_a_folder_is_never_written_through(kb, place):
    (place / "repo/docs").mkdir()
    (place / "repo/docs/about.md").symlink_to("../../outside/about.md")
    err = init_refused(kb, place)
    assert err == ("kb: docs/about.md is a symbolic link to ../../outside/about.md, which leads nowhere; kb writes "
                   "through no dangling link; nothing was written\n")


@pytest.mark.parametrize("name", [".github", ".github/workflows", "schemas", "knobs"])
def test_a_folder_linked_out_of_the_repository_is_never_written_into(kb, place, name):
    (place / "repo" / name).parent.mkdir(parents=True, exist_ok=True)
    (place / "repo" / name).symlink_to(place / "outside/folder", target_is_directory=True)
    err = init_refused(kb, place)
    assert err.startswith(f"kb: {name} is a symbolic link to {place / 'outside/folder'}, outside ")
    assert os.listdir(place / "outside/folder") == []


def test_a_gitignore_linked_out_of_the_repository_is_neither_read_nor_appended_to(kb, place):
    (place / "repo/.gitignore").symlink_to(place / "outside/file")
    err = init_refused(kb, place)
    assert err == (f"kb: .gitignore is a symbolic link to {place / 'outside/file'}, outside {place / 'repo'}; kb "
                   "writes nothing through a link that leaves it; nothing was written\n")
    assert (place / "outside/file").read_text() == "theirs\n"


@pytest.mark.parametrize("make, why", [
    (lambda p: p.symlink_to("/dev/zero"), "kb: .gitignore is a symbolic link to /dev/zero, outside "),
    (lambda p: p.symlink_to(p.name), "kb: .gitignore is a symbolic link to .gitignore, which leads nowhere"),
    (lambda p: os.mkfifo(p), "kb: .gitignore: kb init cannot read it (it is a named pipe (FIFO), not a regular file)"),
    (lambda p: p.write_bytes(b"#" * (2 << 20)), "kb: .gitignore: kb init cannot read it (it is 2.0 MiB, over the "
                                                "limit of 1.0 MiB)"),
    (lambda p: p.mkdir(), "kb: .gitignore: kb init cannot read it (it is a folder, not a regular file)"),
])
def test_a_gitignore_kb_init_cannot_read_is_one_line_never_a_hang(kb, place, make, why):
    make(place / "repo/.gitignore")
    signal.alarm(20)  # a FIFO opened for reading would wait forever for a writer
    try:
        err = init_refused(kb, place)
    finally:
        signal.alarm(0)
    assert err.startswith(why), err


@pytest.mark.parametrize("name, make", [
    ("mkdocs.yml", lambda p: os.mkfifo(p)),
    ("mkdocs.yml", lambda p: p.symlink_to("/dev/null")),
    ("docs/about.md", lambda p: p.mkdir()),
    ("docs", lambda p: p.write_text("a file where a folder belongs")),
    (".github", lambda p: p.write_text("a file where a folder belongs")),
])
def test_something_else_where_a_file_or_folder_goes_is_refused(kb, place, name, make):
    (place / "repo" / name).parent.mkdir(parents=True, exist_ok=True)
    make(place / "repo" / name)
    err = init_refused(kb, place)
    assert err.startswith(f"kb: {name} is ")


def test_links_that_stay_inside_the_repository_are_followed(kb, place):
    repo = place / "repo"
    (repo / "ci/github").mkdir(parents=True)
    (repo / ".github").symlink_to("ci/github", target_is_directory=True)
    (repo / "shared").mkdir()
    (repo / "shared/ignore").write_text("*.pyc\n")
    (repo / ".gitignore").symlink_to("shared/ignore")
    (repo / "notes.md").write_text("ours\n")
    (repo / "docs").mkdir()
    (repo / "docs/about.md").symlink_to("../notes.md")
    result = kb("init")
    assert result.code == 0, result.err
    assert (repo / "ci/github/workflows/kb-check.yml").is_file() and (repo / ".github").is_symlink()
    assert (repo / "shared/ignore").read_text() == "*.pyc\nsite/\n.cache/\n.*.tmp\n" and \
        (repo / ".gitignore").is_symlink()
    assert "  kept    docs/about.md (it exists)" in result.out.splitlines()
    assert (repo / "notes.md").read_text() == "ours\n"


def test_read_only_places_are_refused_before_anything_is_written(kb, place):
    repo = place / "repo"
    (repo / "docs").mkdir()
    (repo / "docs").chmod(0o555)  # whoever runs kb, root included: the owner's choice stands
    try:
        err = init_refused(kb, place)
    finally:
        (repo / "docs").chmod(0o755)
    assert err.startswith("kb: docs is read-only; kb init writes nothing into it")
    (repo / ".gitignore").write_text("*.pyc\n")
    (repo / ".gitignore").chmod(0o444)
    err = init_refused(kb, place)
    assert err.startswith("kb: .gitignore is read-only; kb init does not change it (add site/, .cache/, .*.tmp")


def test_a_write_that_fails_midway_takes_back_what_was_written(kb, place, monkeypatch):
    (place / "repo/.gitignore").write_text("*.pyc\n")
    before = snapshot(place)
    real_write, calls = init_module.write_file, []

    def failing(*args, **kwargs):
        calls.append(args[1])
        if len(calls) == 6:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_write(*args, **kwargs)

    monkeypatch.setattr(init_module, "write_file", failing)
    result = kb("init")
    assert result.code == 2 and result.err == ("kb: cannot write the knowledge base into .: No space left on device; "
                                               "nothing was written\n")
    assert snapshot(place) == before


@pytest.mark.parametrize("folder", [".git", ".git/hooks", ".git/kb", "/"])
def test_init_refuses_the_git_folder_and_the_file_system_root(kb, place, folder):
    err = init_refused(kb, place, folder)
    assert ".git folder" in err if folder != "/" else "the file system's root" in err


def test_a_folder_name_that_is_not_utf8_is_refused_before_anything_is_written(kb, place):
    name = os.fsdecode(b"caf\xe9")
    (place / "repo" / name).mkdir()
    err = init_refused(kb, place, name)
    assert err == ("kb: the folder's name (caf\\xe9) is not UTF-8; mkdocs.yml, the workflow and the hook name it, and "
                   "they are read as UTF-8: rename the folder; nothing was written\n")


@pytest.mark.parametrize("name", ["team kb", "it's", "a\nb", "x\u202ey", "$(touch pwned)", "yes", "null", "1.0",
                                  "#hash", "- dash", "<img src=x onerror=alert(1)>", "a: b",
                                  "\u00e9t\u00e9 \U0001f600"])
def test_odd_folder_names_give_files_that_read_back_and_commands_that_run(kb, place, name):
    repo = place / "repo"
    result = kb("init", name)
    assert result.code == 0, result.err
    root = repo / name
    hook = YAML(typ="safe").load((repo / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"][0]
    as_typed = f"./{name}" if name.startswith("-") else name  # a word starting with '-' reads as no option
    assert shlex.split(hook["entry"]) == ["kb", "check", "--staged", "--root", as_typed]
    workflow = YAML(typ="safe").load((repo / ".github/workflows/kb-check.yml").read_text())
    assert workflow["jobs"]["kb-check"]["defaults"]["run"]["working-directory"] == name
    import yaml  # PyYAML: what MkDocs reads mkdocs.yml with (YAML 1.1: yes, null and 1.0 are not text there)

    site_name = yaml.safe_load((root / "mkdocs.yml").read_text())["site_name"]
    assert isinstance(site_name, str) and site_name and not set("<>&\n\u202e") & set(site_name)
    # What is printed stays on one line per command, shows no control, and runs as printed.
    lines = result.out.splitlines()
    assert f"  kb check --root {shell_word(as_typed)}" in lines
    assert not any(char in result.out for char in "\u202e\x1b")
    echoed = subprocess.run(["bash", "-c", f"printf %s {shell_word(name)}"], capture_output=True, check=True).stdout
    assert echoed == os.fsencode(name)
    assert not (place / "repo/pwned").exists()
    # The hook's command finds the knowledge base it names.
    assert kb(*shlex.split(hook["entry"])[1:]).code == 0


@pytest.mark.parametrize("name", ["-dir", "--root", "-new kb"])
def test_a_folder_whose_name_starts_with_a_dash_is_no_option_in_any_command(kb, place, name):
    """`--root -dir` in the hook and the printed commands was read as an option: exit 2 on every commit."""
    repo = place / "repo"
    result = kb("init", "--", name)
    assert result.code == 0, result.err
    hook = YAML(typ="safe").load((repo / ".pre-commit-config.yaml").read_text())["repos"][0]["hooks"][0]
    assert shlex.split(hook["entry"]) == ["kb", "check", "--staged", "--root", f"./{name}"]
    assert kb(*shlex.split(hook["entry"])[1:]).code == 0
    printed = [line.split("#")[0].strip() for line in result.out.splitlines() if line.startswith("  kb check")]
    assert printed == [f"kb check --root {shell_word('./' + name)}"]
    assert kb(*shlex.split(printed[0])[1:]).code == 0


def test_the_words_of_printed_commands_are_read_back_by_bash_as_given():
    for word in ["plain", "team kb", "it's", "a\nb\tc", "x\u202ey\u2066", os.fsdecode(b"caf\xe9"), "\x1b[2J", "\u0085",
                 "$HOME", "`id`", "!x", "\\"]:
        printed = shell_word(word)
        assert "\n" not in printed and "\x1b" not in printed and "\u202e" not in printed
        out = subprocess.run(["bash", "-c", f"printf %s {printed}"], capture_output=True, check=True).stdout
        assert out == os.fsencode(word), word


@pytest.mark.slow
@pytest.mark.parametrize("name", ["<img src=x onerror=alert(1)>", "a\nb \u202e & \"q\" 'yes'"])
def test_a_site_named_after_a_hostile_folder_builds_and_runs_no_markup(kb, place, name):
    from ..site_support import build_site

    assert kb("init", name).code == 0
    root = place / "repo" / name
    GitRepo(place / "repo", init=False).commit("A knowledge base", "2026-11-01T00:00:00Z")
    build_site(root, place / "site")
    pages = {p: p.read_text() for p in (place / "site").rglob("*.html")}
    assert pages
    for path, page in pages.items():
        assert "<img src=x" not in page and "onerror=alert" not in page.replace("onerror=alert(1)›", ""), path
        assert "\u202e" not in page and "\nb" not in page.split("<title>")[1].split("</title>")[0], path


@pytest.mark.parametrize("name", ["it's", 'say "hi"', "back\\slash", "a'b\"c"])
def test_a_zensical_site_named_after_a_folder_with_quotes_reads_back_and_renders(kb, place, name):
    """A TOML literal string cannot hold `'`: `kb init --site zensical` in `it's` crashed (exit 3)."""
    import tomllib

    result = kb("init", "--site", "zensical", name)
    assert result.code == 0, result.err
    root = place / "repo" / name
    site_name = tomllib.loads((root / "zensical.toml").read_text())["project"]["site_name"]
    assert site_name == name.replace('"', "\u201d")
    assert kb("render", "--root", str(root)).code == 0
