"""Editing commands refuse what would leave the records invalid, and then change nothing; what they
write, they write atomically and in the file's own conventions."""

from __future__ import annotations

import os
import stat
from datetime import date
from pathlib import Path

import pytest

from incident_kb.authoring.record_files import write_atomically
from incident_kb.findings import KbError

from ..conftest import REPO, edit
from .test_authoring import HYP, INCIDENT, KNOB, PROXY, commented_kb  # noqa: F401 - a fixture

KNOB_FILE = f"knobs/{KNOB}.yaml"
INCIDENT_FILE = f"incidents/{INCIDENT}.yaml"


def files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def refused(kb, root: Path, *args: str) -> tuple[int, str]:
    """Run a command that must be refused; the whole tree must be byte-identical afterwards."""
    before = files(root)
    result = kb(*args, "--root", root)
    assert files(root) == before, "a refused command changed files (or left a temporary file)"
    assert result.out == ""
    return result.code, result.err


def test_an_unknown_hypothesis_is_refused_in_one_line_like_every_command(kb, commented_kb):
    before = (commented_kb / KNOB_FILE).read_bytes()
    code, err = refused(kb, commented_kb, "revert", KNOB, "--incident", INCIDENT, "--hypothesis", "gpu-driver-bug")
    assert code == 2
    assert err == (f"kb: incident '{INCIDENT}' has no hypothesis 'gpu-driver-bug' (it has: target-ctas-causes-hang, "
                   "client-proxy-fault); add it with "
                   f"`kb hypothesis add {INCIDENT} gpu-driver-bug --statement '...'`\n")
    assert (commented_kb / KNOB_FILE).read_bytes() == before


def test_an_unknown_incident_is_refused_in_one_line_like_every_command(kb, commented_kb):
    code, err = refused(kb, commented_kb, "revert", KNOB, "--incident", "no-such-incident", "--hypothesis", HYP)
    assert code == 2
    assert err == ("kb: there is no incident 'no-such-incident' (incidents/no-such-incident.yaml does not exist); "
                   "`kb new incident no-such-incident` creates it\n")


def test_refuting_the_root_cause_is_refused(kb, commented_kb):
    assert kb("confirm", INCIDENT, PROXY, "--resolve", "--date", "2026-11-07", "--root", commented_kb).code == 0
    code, err = refused(kb, commented_kb, "refute", INCIDENT, PROXY)
    assert code == 1
    assert "error root-cause: the root cause is hypothesis 'client-proxy-fault', but its status is 'refuted'" in err


def test_a_hypothesis_id_that_is_not_a_slug_is_refused(kb, commented_kb):
    code, err = refused(kb, commented_kb, "hypothesis", "add", INCIDENT, "Proxy Fault", "--statement", "x")
    assert code == 1
    assert "error bad-value: 'hypotheses[2].id' is the text 'Proxy Fault'; an id is a slug" in err


def test_a_timeline_event_out_of_order_is_refused(kb, commented_kb):
    code, err = refused(kb, commented_kb, "timeline", "add", INCIDENT, "--at", "2026-11-01", "--event", "x")
    assert code == 1
    assert "error date-order: timeline entries are out of order" in err


def test_a_record_that_is_already_invalid_must_be_fixed_first(kb, commented_kb):
    edit(commented_kb / INCIDENT_FILE, "status: open   # still investigating", "staus: open")
    code, err = refused(kb, commented_kb, "refute", INCIDENT, HYP)
    assert code == 1
    assert err.startswith(f"kb: {INCIDENT_FILE} has errors; fix them first (nothing was changed):\n")
    assert "'staus' is not a field of the record; did you mean 'status'?" in err


def test_errors_elsewhere_that_the_change_did_not_cause_do_not_block_it(kb, commented_kb):
    edit(commented_kb / INCIDENT_FILE, "lessons: []", "lesons: []")
    result = kb("revert", KNOB, "--incident", INCIDENT, "--hypothesis", HYP, "--date", "2026-11-04", "--root",
                commented_kb)
    assert result.code == 0, result.err
    assert "status: reverted" in (commented_kb / KNOB_FILE).read_text()


@pytest.mark.parametrize("args, message", [
    (("evidence", "add", INCIDENT, "gpu-bug", "--kind", "report", "--stance", "for", "--text", "x"),
     "kb: incident 'multi-round-harness-hang' has no hypothesis 'gpu-bug' (it has: target-ctas-causes-hang, "
     "client-proxy-fault); add it with `kb hypothesis add multi-round-harness-hang gpu-bug --statement '...'`"),
    (("hypothesis", "add", INCIDENT, HYP, "--statement", "again"),
     f"kb: incident '{INCIDENT}' already has a hypothesis '{HYP}'; pick another id"),
    (("restore", KNOB), f"kb: knob '{KNOB}' is active, not reverted; only a reverted knob can be restored"),
    (("refute", "no-such-incident", HYP),
     "kb: there is no incident 'no-such-incident' (incidents/no-such-incident.yaml does not exist); "
     "`kb new incident no-such-incident` creates it"),
    (("new", "knob", KNOB, "--name", "X", "--summary", "x", "--value", "1"),
     f"kb: {KNOB_FILE} already exists; kb new never overwrites a record"),
    (("evidence", "add", INCIDENT, HYP, "--kind", "report", "--stance", "for", "--text", "x", "--date", "yesterday"),
     "kb: argument --date: 'yesterday' is not a date; give e.g. 2026-11-05 or 2026-11-05T20:25:00"),
    (("evidence", "add", INCIDENT, HYP, "--kind", "rumour", "--stance", "for", "--text", "x"),
     "kb: argument --kind: invalid choice: 'rumour'"),
    (("revert", KNOB, "--incident", INCIDENT),
     "kb: the following arguments are required: --hypothesis"),
    (("measurement", "add", KNOB, "--metric", "m"), "kb: give either --delta-pct, or --baseline and --value"),
    (("new", "knob", "../escape", "--name", "X", "--summary", "x", "--value", "1"),
     "kb: '../escape' is not a knob id; an id is a slug of lowercase letters, digits and dashes"),
])
def test_bad_arguments_exit_2_with_one_line(kb, commented_kb, args, message):
    code, err = refused(kb, commented_kb, *args)
    assert code == 2
    assert err.startswith(message) and err.count("\n") == 1, err


def test_reverting_a_reverted_knob_is_a_bad_argument(kb, commented_kb):
    assert kb("revert", KNOB, "--incident", INCIDENT, "--hypothesis", HYP, "--date", "2026-11-04",
              "--root", commented_kb).code == 0
    code, err = refused(kb, commented_kb, "revert", KNOB, "--incident", INCIDENT, "--hypothesis", HYP)
    assert (code, err) == (2, f"kb: knob '{KNOB}' is already reverted (since 2026-11-04); `kb restore {KNOB}` first\n")


def test_an_inline_list_is_not_rewritten(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    text = path.read_text()
    start, end = text.index("    evidence:\n"), text.index("      # more evidence goes here\n")
    path.write_text(text[:start] + "    evidence: [{kind: correlation, stance: for, text: timing}]\n" + text[end:])
    code, err = refused(kb, commented_kb, "evidence", "add", INCIDENT, HYP, "--kind", "report", "--stance", "for",
                        "--text", "x")
    assert code == 2
    assert err == (f"kb: {INCIDENT_FILE}: line 20: 'evidence' is an inline list ('[...]'); write it one item per "
                   "line to add to it\n")


def test_the_file_mode_is_kept(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    path.chmod(0o640)
    assert kb("refute", INCIDENT, HYP, "--root", commented_kb).code == 0
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # no temporary file left behind


def test_windows_line_ends_are_kept(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    original = path.read_text()
    path.write_bytes(original.replace("\n", "\r\n").encode())
    assert kb("refute", INCIDENT, HYP, "--root", commented_kb).code == 0
    raw = path.read_bytes()
    assert raw.count(b"\r\n") == raw.count(b"\n")
    assert raw.decode().replace("\r\n", "\n") == original.replace(
        "    status: open\n    suspect:", "    status: refuted\n    suspect:")


def test_the_date_defaults_to_today(kb, commented_kb):
    assert kb("evidence", "add", INCIDENT, PROXY, "--kind", "report", "--stance", "for", "--text", "found it",
              "--root", commented_kb).code == 0
    assert f"        date: {date.today().isoformat()}\n        text: found it\n" in \
        (commented_kb / INCIDENT_FILE).read_text()


def test_a_file_changed_meanwhile_is_not_overwritten(tmp_path):
    path = tmp_path / "record.yaml"
    path.write_bytes(b"id: a\n")
    with pytest.raises(KbError, match="changed while kb was editing it"):
        write_atomically(path, b"id: b\n", expected=b"id: x\n")
    assert path.read_bytes() == b"id: a\n"
    with pytest.raises(KbError, match="already exists"):
        write_atomically(path, b"id: b\n", expected=None)
    assert os.listdir(tmp_path) == ["record.yaml"]


def test_a_new_record_gets_the_usual_file_mode(kb, empty_kb):
    umask = os.umask(0o022)
    try:
        assert kb("new", "incident", INCIDENT, "--title", "t", "--root", empty_kb).code == 0
    finally:
        os.umask(umask)
    assert stat.S_IMODE((empty_kb / INCIDENT_FILE).stat().st_mode) == 0o644


def test_fmt_check_changes_nothing_and_exits_1(kb, commented_kb):
    before = files(commented_kb)
    result = kb("fmt", "--check", "--root", commented_kb)
    assert result.code == 1
    assert result.out == (f"would reformat {KNOB_FILE}: single quotes on line 6\n"
                          "1 record would be reformatted, 1 already formatted\n")
    assert files(commented_kb) == before
    assert kb("fmt", "--root", commented_kb).code == 0
    again = kb("fmt", "--check", "--root", commented_kb)
    assert (again.code, again.out) == (0, "0 records would be reformatted, 2 already formatted\n")


def test_fmt_takes_file_names_for_pre_commit(kb, commented_kb, monkeypatch):
    monkeypatch.chdir(commented_kb)
    assert kb("fmt", "--check", INCIDENT_FILE, "--root", commented_kb).code == 0
    assert kb("fmt", "--check", KNOB_FILE, "--root", commented_kb).code == 1
    result = kb("fmt", "--check", "docs/index.md", "--root", commented_kb)
    assert result.code == 2 and "docs/index.md is not a record file" in result.err


def test_fmt_leaves_a_file_it_cannot_read_as_yaml(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    path.write_text(path.read_text() + "oops: [\n")
    before = files(commented_kb)
    result = kb("fmt", "--root", commented_kb)
    assert result.code == 1
    assert f"{INCIDENT_FILE}:" in result.err and "error yaml-syntax:" in result.err
    assert files(commented_kb)[INCIDENT_FILE] == before[INCIDENT_FILE]


def test_a_folder_that_cannot_be_written_is_a_one_line_error(tmp_path):
    with pytest.raises(KbError, match="cannot write next to it .*; nothing changed"):
        write_atomically(tmp_path / "gone" / "record.yaml", b"id: a\n", expected=None)


def test_one_crlf_line_does_not_make_an_edit_rewrite_every_line_end(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    lines = path.read_bytes().split(b"\n")
    lines[3] += b"\r"  # one line ends in CRLF, as a Windows editor leaves a pasted line
    path.write_bytes(b"\n".join(lines))
    assert kb("lesson", "add", INCIDENT, "Check the proxy first.", "--root", commented_kb).code == 0
    assert kb("refute", INCIDENT, HYP, "--root", commented_kb).code == 0
    raw = path.read_bytes()
    assert raw.count(b"\r\n") == 1 and raw.split(b"\n")[3] == lines[3]
    assert b"  - Check the proxy first.\n" in raw


def test_each_kept_line_keeps_its_own_ending(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    lines = path.read_text().split("\n")
    ends = ["\r\n" if i % 2 else "\n" for i in range(len(lines) - 1)] + [""]
    path.write_bytes("".join(line + end for line, end in zip(lines, ends)).encode())
    assert kb("refute", INCIDENT, HYP, "--root", commented_kb).code == 0
    after = path.read_bytes().decode()
    changed = [i for i, (old, new) in enumerate(zip("".join(a + b for a, b in zip(lines, ends)).splitlines(True),
                                                      after.splitlines(True))) if old != new]
    assert len(changed) == 1 and "status: refuted" in after.splitlines()[changed[0]]
    assert after.splitlines(True)[changed[0]].endswith(ends[changed[0]])  # changed in place: its own ending


def test_a_record_over_the_size_limit_is_not_edited(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    path.write_text(path.read_text() + "# " + "x" * (1 << 20) + "\n")
    assert kb("validate", "--root", commented_kb).code == 1  # refused by validation...
    code, err = refused(kb, commented_kb, "lesson", "add", INCIDENT, "more")
    assert code == 2 and err.count("\n") == 1  # ...and by editing, with the same limit
    assert err.startswith(f"kb: {INCIDENT_FILE} is 1026 KiB; a record must be under 1024 KiB")


def test_an_edit_that_would_pass_the_size_limit_is_not_written(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    text = path.read_text()
    path.write_text(text + "# " + "x" * ((1 << 20) - len(text.encode()) - 10) + "\n")
    assert kb("validate", "--root", commented_kb).code == 0
    code, err = refused(kb, commented_kb, "lesson", "add", INCIDENT, "a lesson long enough to pass the limit")
    assert code == 2
    assert err.startswith(f"kb: not written: {INCIDENT_FILE} would be 1025 KiB; a record must be under 1024 KiB")


def test_a_read_only_record_is_refused_not_replaced(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    path.chmod(0o444)
    code, err = refused(kb, commented_kb, "refute", INCIDENT, HYP)
    assert (code, err) == (2, f"kb: {INCIDENT_FILE} is read-only; kb does not replace it (make it writable, e.g. "
                              f"chmod u+w {INCIDENT_FILE}, to edit it); nothing changed\n")
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_symlinked_record_is_not_replaced_by_a_copy(kb, commented_kb):
    path = commented_kb / INCIDENT_FILE
    target = commented_kb / "elsewhere.yaml"
    path.rename(target)
    path.symlink_to(target)
    code, err = refused(kb, commented_kb, "refute", INCIDENT, HYP)
    assert code == 2 and err.startswith(f"kb: {INCIDENT_FILE} is a symbolic link; kb edits only regular files")
    assert path.is_symlink()


def test_temporary_files_a_killed_edit_left_are_ignored_and_cleaned_up(kb, commented_kb):
    from ..gitrepo import GitRepo

    for name in (".gitignore",):  # the repository's own ignore rules, as an adopter copies them
        (commented_kb / name).write_bytes((REPO / name).read_bytes())
    repo = GitRepo(commented_kb)
    leftover = commented_kb / "incidents" / f".{INCIDENT}.yaml.k3j9x_2a.tmp"
    leftover.write_text("half a record")
    assert repo.git("status", "--porcelain", "--", "incidents") == "?? incidents/"  # the record, not the leftover
    assert repo.git("check-ignore", str(leftover.relative_to(commented_kb))) != ""
    other = commented_kb / "incidents" / ".another-record.yaml.k3j9x_2a.tmp"
    other.write_text("not this record's")
    assert kb("lesson", "add", INCIDENT, "x", "--root", commented_kb).code == 0
    assert not leftover.exists() and other.exists()


def test_fmt_in_a_read_only_folder_says_nothing_was_reformatted(kb, commented_kb):
    folder = commented_kb / "knobs"
    before = files(commented_kb)
    folder.chmod(0o555)
    try:
        result = kb("fmt", "--root", commented_kb)
    finally:
        folder.chmod(0o755)
    assert result.code == 2 and "reformatted" not in result.out
    assert result.err == f"kb: {folder} is read-only; kb does not write into it (make it writable to edit records " \
                         "there); nothing changed\n"
    assert files(commented_kb) == before


COMMENT = "  # ask #perf-team before changing this"


@pytest.mark.parametrize("command, field, file", [
    (("revert", KNOB, "--incident", INCIDENT, "--hypothesis", HYP, "--date", "2026-11-04"), "\nstatus:", KNOB_FILE),
    (("refute", INCIDENT, HYP), "\n    status:", INCIDENT_FILE),
    (("confirm", INCIDENT, HYP, "--resolve", "--date", "2026-11-07"), "\nstatus:", INCIDENT_FILE),
])
def test_a_comment_between_a_key_and_its_value_survives_the_edit(kb, commented_kb, command, field, file):
    path = commented_kb / file
    text = path.read_text()
    start = text.index(field) + len(field)
    end = text.index("\n", start)
    value = text[start:end].split("#")[0].strip()
    indent = " " * (len(field) - len(field.lstrip("\n ")) - 1 + 2)
    path.write_text(text[:start] + COMMENT + "\n" + indent + value + text[end:])
    result = kb(*command, "--root", commented_kb)
    assert result.code == 0, result.err
    after = path.read_text()
    assert field + COMMENT + "\n" in after
    assert after.count("#perf-team") == 1


def test_condition_keys_yaml_reads_otherwise_are_quoted(kb, commented_kb):
    result = kb("measurement", "add", KNOB, "--metric", "m", "--delta-pct", "3", "--condition", "a: b=c",
                "--condition", "true=1", "--condition", "*a=1", "--condition", "? q=2", "--root", commented_kb)
    assert result.code == 0, result.err
    from incident_kb.records.yaml_source import read_yaml_file

    measurement = read_yaml_file(commented_kb / KNOB_FILE).value["measurements"][-1]
    assert measurement["conditions"] == {"a: b": "c", "true": 1, "*a": 1, "? q": 2}


@pytest.mark.parametrize("text", ["next\x85line", "line\u2028separator", "lone\rcarriage return", "ends in cr\r"])
def test_text_with_line_breaks_yaml_also_knows_is_quoted(kb, commented_kb, text):
    result = kb("lesson", "add", INCIDENT, text, "--root", commented_kb)
    assert result.code == 0, result.err
    from incident_kb.records.yaml_source import read_yaml_file

    assert read_yaml_file(commented_kb / INCIDENT_FILE).value["lessons"] == [text]
    raw = (commented_kb / INCIDENT_FILE).read_bytes().decode()
    assert not any(char in raw for char in "\r\x85\u2028")  # escaped, not written as a line break


@pytest.mark.parametrize("last_line", ["     ", "   \t"])
def test_fmt_a_block_whose_last_line_is_only_spaces(kb, commented_kb, last_line):
    path = commented_kb / INCIDENT_FILE
    text = path.read_text()
    summary = text[text.index("summary: >-\n"):text.index("\nsymptoms:")]
    block = f"summary: |\n  The harness wedges.\n{last_line}\n"
    path.write_text(text.replace(summary + "\n", "").replace("lessons: []   # none yet\n",
                                                             "lessons: []   # none yet\n" + block))
    assert kb("validate", "--root", commented_kb).code == 0
    result = kb("fmt", "--root", commented_kb)
    assert result.code == 0, result.err
    assert f"reformatted {INCIDENT_FILE}: keys in schema order in the record\n" in result.out
    assert block in path.read_text() and path.read_text().index(block) < path.read_text().index("symptoms:")
    again = kb("fmt", "--check", "--root", commented_kb)
    assert again.code == 0


@pytest.mark.parametrize("what", ["pipe", "link out", "dangling link"])
@pytest.mark.parametrize("args", [("set", KNOB, "384", "--note", "x"), ("lesson", "add", INCIDENT, "A lesson.")])
def test_a_record_file_that_is_no_regular_file_is_named_as_such_not_as_missing(kb, commented_kb, tmp_path, what, args):
    """A pipe or a link where the record is was 'there is no knob ... does not exist; `kb new` creates
    it', and `kb new` then said it already exists."""
    target = commented_kb / (KNOB_FILE if args[0] == "set" else INCIDENT_FILE)
    target.unlink()
    if what == "pipe":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero" if what == "link out" else tmp_path / "gone.yaml")
    result = kb(*args, "--root", commented_kb)
    code, err = result.code, result.err
    rel = target.relative_to(commented_kb).as_posix()
    assert code == 2 and "does not exist" not in err and "kb new" not in err
    assert err.startswith(f"kb: {rel} is ") and \
        ("not a regular file" in err if what == "pipe" else "symbolic link" in err)
