"""The kb command: output formats, exit codes, arguments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import REPO, SEED_KNOB, break_seed_story, edit
from .forked_kb import kb_forked


def test_text_format_is_path_line_column_severity_code_message(kb, seed_kb):
    edit(seed_kb / SEED_KNOB, "summary:", "sumary:")
    result = kb("validate", "--root", seed_kb)
    assert result.code == 1
    assert (f"{SEED_KNOB}:6:1: error unknown-field: 'sumary' is not a field of the record; "
            "did you mean 'summary'?") in result.out
    assert f"{SEED_KNOB}:4:1: error missing-field: 'summary' is required" in result.out
    assert result.out.rstrip().endswith("2 errors, 0 warnings in 1 file (1 knob, 1 incident checked)")


def test_text_format_groups_findings_by_file(kb, seed_kb):
    edit(seed_kb / SEED_KNOB, "summary:", "sumary:")
    (seed_kb / "incidents/b.yaml").write_text("id: [\n")
    (seed_kb / "knobs/a.yaml").write_text("- 1\n")
    lines = kb("validate", "--root", seed_kb).out.splitlines()
    paths = [line.split(":")[0] for line in lines if line.startswith(("knobs/", "incidents/"))]
    assert paths == sorted(paths)
    assert lines.count("") == 3  # a blank line between the three files and before the summary


def test_json_format(kb, seed_kb):
    break_seed_story(seed_kb)
    result = kb("check", "--root", seed_kb, "--format", "json")
    assert result.code == 1
    document = json.loads(result.out)
    assert document["errors"] == 1 and document["warnings"] == 0
    assert set(document["findings"][0]) == {"code", "severity", "path", "line", "column", "subject", "message"}
    assert document["findings"][0]["column"] == 1


def test_github_format_escapes_and_annotates(kb, seed_kb):
    break_seed_story(seed_kb)
    result = kb("check", "--root", seed_kb, "--format", "github")
    first = result.out.splitlines()[0]
    assert first.startswith(f"::error file={SEED_KNOB},line=8,col=1,title=reclaimable-knob::knob ")
    assert "+12.8%25 output throughput" in first  # '%' escaped as GitHub requires
    assert "\n" not in first


def test_warnings_alone_exit_zero(kb, seed_kb):
    break_seed_story(seed_kb)
    (seed_kb / "pyproject.toml").write_text('[tool.incident-kb.severity]\nreclaimable-knob = "warning"\n')
    result = kb("check", "--root", seed_kb)
    assert result.code == 0
    assert "warning reclaimable-knob" in result.out


def test_validate_does_not_apply_the_rules(kb, seed_kb):
    break_seed_story(seed_kb)
    assert kb("validate", "--root", seed_kb).code == 0
    assert kb("check", "--root", seed_kb).code == 1


def test_tool_errors_exit_two_with_one_line(kb, tmp_path):
    for args in (("check", "--root", tmp_path / "missing"), ("check", "--root", tmp_path),
                 ("check", "--format", "xml"), ("frobnicate",), ()):
        result = kb(*args)
        assert result.code == 2, args
        assert result.out == ""
        assert len(result.err.strip().splitlines()) == 1 and result.err.startswith("kb: "), result.err


def test_schema_command_prints_json_schema(kb):
    result = kb("schema", "knob")
    schema = json.loads(result.out)
    assert result.code == 0
    assert schema["$schema"].endswith("2020-12/schema")
    assert {"id", "name", "summary", "value", "status", "history"} <= set(schema["required"])
    assert schema["additionalProperties"] is False


def test_codes_lists_every_code_with_its_default(kb):
    out = kb("codes").out
    assert "reclaimable-knob" in out and "restore-candidate          warning" in out


def test_root_defaults_to_the_repository_containing_the_current_folder(seed_kb):
    subprocess.run(["git", "init", "-q", str(seed_kb)], check=True)
    break_seed_story(seed_kb)
    proc = kb_forked("check", cwd=seed_kb / "docs" / "design")
    assert proc.returncode == 1
    assert "reclaimable-knob" in proc.stdout


@pytest.mark.parametrize("command", ["check", "validate"])
@pytest.mark.parametrize("spelled", [".", "./", "kb", "kb/", "kb/../kb"])
def test_a_relative_root_finds_every_record(kb, seed_kb, monkeypatch, command, spelled):
    """`--root .` and other relative spellings read the same records as the absolute path."""
    break_seed_story(seed_kb)
    whole = kb(command, "--root", seed_kb)
    assert "0 knobs" not in whole.out and "reclaimable-knob" in whole.out or command == "validate"
    monkeypatch.chdir(seed_kb if spelled.startswith(".") else seed_kb.parent)  # seed_kb is .../kb
    assert kb(command, "--root", spelled).out == whole.out


def test_installed_console_script_runs():
    kb_script = os.path.join(os.path.dirname(sys.executable), "kb")
    proc = subprocess.run([kb_script, "check", "--root", str(REPO)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.startswith("all good")


# ---- output that cannot be written, or shown: exit 2 with one line, never a traceback ---------------

def kb_process(*args: object, env: dict[str, str] | None = None, **kwargs) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "incident_kb.cli", *map(str, args)], cwd=REPO,
                            env={**os.environ, **(env or {})}, stderr=subprocess.PIPE, **kwargs)


def assert_could_not_run(code: int, err: bytes, why: str) -> None:
    """Exit 2, and one line that says why (after the usual warning outside git, if any)."""
    lines = [line for line in err.decode().splitlines() if not line.startswith("kb: warning: ")]
    assert code == 2, (code, err.decode())
    assert len(lines) == 1 and lines[0].startswith("kb: ") and why in lines[0], err.decode()


@pytest.mark.parametrize("args", [("check",), ("codes",), ("validate", "--format", "gitlab")])
def test_a_reader_that_closes_the_pipe_gets_exit_2_and_one_line(seed_kb, args):
    break_seed_story(seed_kb)  # output to write: a finding
    process = kb_process(*args, *(("--root", seed_kb) if args[0] in ("check", "validate") else ()),
                         stdout=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()  # `kb check | head -0`
    _, err = process.communicate(timeout=60)
    assert_could_not_run(process.returncode, err, "the reader closed the pipe")


# (kb render on a full disk: commands/test_output_after_changes.py)
@pytest.mark.parametrize("args", [("check",), ("codes",)])
def test_stdout_closed_or_full_exits_2_with_one_line(seed_kb, tmp_path, args):
    args = tuple(a.replace("{out}", str(tmp_path / "out")) for a in args)
    root = ("--root", str(seed_kb)) if args[0] != "codes" else ()
    closed = subprocess.run(["bash", "-c", 'exec "$@" >&-', "kb", sys.executable, "-m", "incident_kb.cli",
                             *args, *root],
                            cwd=REPO, capture_output=True, timeout=120)
    assert_could_not_run(closed.returncode, closed.stderr, "standard output is closed")
    with open("/dev/full", "wb") as full:
        process = kb_process(*args, *root, stdout=full)
        _, err = process.communicate(timeout=120)
    assert_could_not_run(process.returncode, err, "no space left on device")


def hostile_names(root) -> list[str]:
    """Docs whose names are not UTF-8 or hold a newline, each a link out of the repository (so each
    is an unreadable-file finding about that name)."""
    names = [b"docs/caf\xe9.md", b"docs/new\nline.md", b"docs/esc\x1b[2J.md"]
    for name in names:
        os.symlink("/etc/passwd", os.path.join(os.fsencode(root), name))
    return [os.fsdecode(name) for name in names]


@pytest.mark.parametrize("output_format", ["text", "json", "github", "gitlab"])
def test_file_names_that_are_not_utf8_or_hold_a_newline_in_every_format(kb, seed_kb, output_format):
    hostile_names(seed_kb)
    result = kb("check", "--root", seed_kb, "--format", output_format)
    assert result.code == 1, result.err
    assert "\x1b" not in result.out and "\udce9" not in result.out
    if output_format in ("json", "gitlab"):
        document = json.loads(result.out)
        paths = {f["path"] if output_format == "json" else f["location"]["path"]
                 for f in (document["findings"] if output_format == "json" else document)}
        assert paths == {"docs/caf\\xe9.md", "docs/new\nline.md", "docs/esc\x1b[2J.md"}
        assert result.out.isascii()
    else:
        lines = [line for line in result.out.splitlines() if "docs/" in line]
        assert len(lines) == 3 and all("unreadable-file" in line or "title=unreadable-file" in line for line in lines)
        assert any("docs/caf\\xe9.md" in line for line in lines)
        assert any("new\\nline.md" in line or "new%0Aline.md" in line for line in lines)
        assert any("esc\\x1b[2J.md" in line for line in lines)


def test_file_names_that_are_not_utf8_reach_the_rendered_site(kb, seed_kb, tmp_path):
    hostile_names(seed_kb)
    result = kb("render", "--root", seed_kb, "--out", tmp_path / "out")
    assert result.code == 0, result.err
    home = (tmp_path / "out/index.md").read_text(encoding="utf-8")
    assert "caf%E9.md" not in home or "docs/caf\\\\xe9.md" in home
    assert "\x1b" not in home


@pytest.mark.parametrize(("encoding", "output_format"), [
    *(({"PYTHONIOENCODING": "ascii"}, output_format) for output_format in ("text", "json", "github", "gitlab")),
    ({"PYTHONIOENCODING": "latin-1"}, "text"), ({"LANG": "C", "LC_ALL": "C"}, "github")])
def test_output_forced_to_a_narrow_encoding(seed_kb, encoding, output_format):
    edit(seed_kb / SEED_KNOB, "summary:", "sümmary_→:")
    process = kb_process("check", "--root", seed_kb, "--format", output_format, env=encoding, stdout=subprocess.PIPE)
    out, err = process.communicate(timeout=60)
    assert process.returncode == 1, err.decode()
    assert b"Traceback" not in err
    text = out.decode("utf-8" if encoding.get("LANG") == "C" else encoding["PYTHONIOENCODING"])
    assert "mmary_" in text
    if output_format in ("json", "gitlab"):
        assert "sümmary_→" in json.dumps(json.loads(text), ensure_ascii=False)


@pytest.mark.parametrize("summary", ["{tmp}/missing/folder/summary.md", "{tmp}", "/dev/full", "{tmp}/fifo"])
def test_a_step_summary_that_cannot_be_written_exits_2_with_one_line(kb, seed_kb, tmp_path, monkeypatch, summary):
    """The FIFO in a process of its own (were kb to wait on it, the process times out); the rest in this one."""
    os.mkfifo(tmp_path / "fifo")
    break_seed_story(seed_kb)
    env = {"GITHUB_STEP_SUMMARY": summary.replace("{tmp}", str(tmp_path))}
    if summary.endswith("fifo"):
        process = kb_process("check", "--root", seed_kb, "--format", "github", stdout=subprocess.PIPE, env=env)
        out, err = process.communicate(timeout=60)
        code = process.returncode
    else:
        monkeypatch.setenv("GITHUB_STEP_SUMMARY", env["GITHUB_STEP_SUMMARY"])
        result = kb("check", "--root", seed_kb, "--format", "github")
        code, out, err = result.code, result.out.encode(), result.err.encode()
    assert_could_not_run(code, err, "GITHUB_STEP_SUMMARY")
    assert out.startswith(b"::error file=")  # the annotations were printed before


def test_terminal_escapes_in_record_text_are_shown_escaped(kb, seed_kb):
    break_seed_story(seed_kb)
    edit(seed_kb / SEED_KNOB, "name: SGLANG_SM120_MMA_TARGET_CTAS",
         'name: "SGLANG\\e[2J\\e]0;pwned\\a\\u202eX\\u0085Y"')
    result = kb("check", "--root", seed_kb)
    assert result.code == 1
    assert "\x1b" not in result.out and "\x07" not in result.out and "\u202e" not in result.out
    assert "\x85" not in result.out
    assert "SGLANG\\x1b[2J\\x1b]0;pwned\\x07\\u202eX\\x85Y=512" in result.out
    assert len(result.out.strip().split("\n\n")) == 2  # one finding line, then the count


def test_a_deleted_working_folder_exits_2_with_one_line(tmp_path):
    folder = tmp_path / "gone"
    folder.mkdir()
    proc = subprocess.run(["bash", "-c", 'cd "$1" && rmdir "$1" && shift && exec "$@"', "kb", str(folder),
                           sys.executable, "-m", "incident_kb.cli", "check"],
                          capture_output=True, env={**os.environ, "PYTHONPATH": str(REPO)}, timeout=60)
    assert_could_not_run(proc.returncode, proc.stderr, "the current folder no longer exists")


# ---- a crash is not a finding: one line naming a log file with the traceback, exit 3 --------------------

def _check_that_raises(monkeypatch, error: Exception) -> None:
    """`kb check` replaced by a command that raises `error` (a bug, as far as kb knows)."""
    from incident_kb import cli

    def broken(args):
        raise error

    commands = tuple(c if c.words != ("check",) else type(c)(c.words, c.help, c.arguments, broken)
                     for c in cli.COMMANDS)
    monkeypatch.setattr(cli.build_parser, "__defaults__", (commands,))


def test_a_reused_parser_gives_each_run_lists_of_its_own(kb, monkeypatch):
    """main() builds its parser once a process (building it costs more than checking a small knowledge
    base in-process); a command that appends to an option's list changes no later run's default."""
    from incident_kb import cli
    from incident_kb.commands.command import Command

    def arguments(parser):
        parser.add_argument("--item", action="append", default=[])

    def run(args):
        args.item.append("added")
        print(args.item)
        return 0

    commands = (*cli.COMMANDS, Command(("probe",), "appends to its list", arguments, run))
    monkeypatch.setattr(cli.build_parser, "__defaults__", (commands,))
    assert [kb("probe").out for _ in range(2)] == ["['added']\n"] * 2
    assert kb("probe", "--item", "given").out == "['given', 'added']\n"
    assert kb("probe").out == "['added']\n" and cli.build_parser() is cli.build_parser()


def test_a_crash_prints_one_line_naming_its_log_and_exits_3(kb, seed_kb, monkeypatch, user_cache):
    _check_that_raises(monkeypatch, ValueError("an unexpected state\nwith a second line"))
    result = kb("check", "--root", seed_kb)
    assert (result.code, result.out) == (3, "")
    assert result.err.count("\n") == 1 and result.err.startswith("kb: kb crashed (ValueError: an unexpected state)")
    log = user_cache / "kb.log"
    assert result.err.rstrip().endswith(f"the traceback is in {log}")
    text = log.read_text()
    assert "Traceback (most recent call last)" in text and "ValueError: an unexpected state" in text and \
        "in broken" in text


def test_a_crash_never_writes_its_log_inside_the_repository(kb, seed_kb, monkeypatch):
    _check_that_raises(monkeypatch, RuntimeError("boom"))
    (seed_kb / ".git").mkdir()
    monkeypatch.setenv("XDG_CACHE_HOME", str(seed_kb / ".cache"))
    result = kb("check", "--root", seed_kb)
    assert result.code == 3
    where = Path(result.err.rstrip().rsplit(" ", 1)[1])
    assert not where.is_relative_to(seed_kb) and "RuntimeError: boom" in where.read_text()
    where.unlink()
    assert not (seed_kb / ".cache").exists()


def test_a_crash_of_the_installed_command_exits_3(seed_kb, tmp_path):
    """The same through a real process: a bug planted at start-up (sitecustomize) makes `kb check` raise."""
    plant = tmp_path / "plant"
    plant.mkdir()
    (plant / "sitecustomize.py").write_text(
        "import incident_kb.commands as c\n"
        "def boom(args):\n    raise KeyError('planted')\n"
        "c.COMMANDS = tuple(x if x.words != ('check',) else type(x)(x.words, x.help, x.arguments, boom) "
        "for x in c.COMMANDS)\n")
    done = subprocess.run([sys.executable, "-m", "incident_kb.cli", "check", "--root", str(seed_kb)], cwd=REPO,
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": f"{plant}{os.pathsep}{REPO}",
                                                               "XDG_CACHE_HOME": str(tmp_path / "c")})
    assert (done.returncode, done.stdout) == (3, ""), done.stderr
    assert done.stderr.count("\n") == 1 and "KeyError" in done.stderr and str(tmp_path / "c") in done.stderr


@pytest.mark.parametrize("git", [False, True])
def test_the_root_spelled_any_way_prints_the_same(kb, seed_kb, monkeypatch, tmp_path, git):
    """From inside, --root ., --root with a trailing slash or '..', through a link: one run, one output."""
    from .gitrepo import GitRepo

    break_seed_story(seed_kb)
    if git:
        repo = GitRepo(seed_kb)
        repo.commit("the story", "2026-11-07T00:00:00Z")
        repo.git("checkout", "-q", "--detach")  # a note that names the commit
    (tmp_path / "link").symlink_to(seed_kb)
    outputs = set()
    for where, spelled in [(seed_kb, None), (seed_kb / "docs", None), (seed_kb, "."), (seed_kb, "./"),
                           (seed_kb.parent, "kb/../kb"), (tmp_path, "link"), (seed_kb, str(seed_kb))]:
        monkeypatch.chdir(where)
        for cache in ("on", "off"):
            monkeypatch.setenv("INCIDENT_KB_CACHE", cache)
            result = kb("check", *(("--root", spelled) if spelled else ()))
            outputs.add((result.code, result.out, result.err))
    assert len(outputs) == 1, outputs
