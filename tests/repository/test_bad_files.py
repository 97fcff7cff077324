"""What kb reads, and what it refuses to: only regular files inside the repository, of a bounded
size, whatever the record names or the file system holds (FIFOs, devices, links out, folders kb
may not read, configurations nested thousands deep). Each is a finding on the file, or exit 2
with one line when nothing can be checked; never a hang, never a traceback, never "all good"."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import socket
import subprocess
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from incident_kb.cli import main

from ..conftest import SEED_KNOB
from ..forked_kb import kb_forked
from ..records.test_bad_input import GOOD_KNOB, MINIMAL, line_of


def run_kb(*args: str | os.PathLike[str], timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real command in a process of its own (a fork of this one: tests/forked_kb.py): a hang fails
    the test instead of blocking it."""
    return kb_forked(*args, timeout=timeout)


def make_special(path: Path, kind: str) -> None:
    """A record-shaped name that is no regular file inside the repository."""
    path.unlink(missing_ok=True)
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "folder":
        path.mkdir()
    elif kind == "loop":
        path.symlink_to(path.name)
    elif kind == "socket":
        server = socket.socket(socket.AF_UNIX)
        # Bound by its name from its folder: a socket's path is limited to 107 bytes, which a test's
        # folder under a longer TMPDIR (tests/tmp_in_ram.sh's, macOS' /var/folders/...) passes.
        here = os.getcwd()
        os.chdir(path.parent)
        try:
            server.bind(path.name)  # left bound: the file stays a socket
        finally:
            os.chdir(here)
        SOCKETS.append(server)
    else:
        path.symlink_to(kind)  # a link: to /dev/zero, /etc/passwd, ...


SOCKETS: list[socket.socket] = []
SPECIALS = {"fifo": "named pipe", "/dev/zero": "outside the repository", "/etc/passwd": "outside the repository",
            "/dev/null": "outside the repository", "loop": "loop", "socket": "socket"}


def special_name(kind: str) -> str:
    return "".join(c for c in kind if c.isalnum()) or "x"


def test_records_that_are_no_regular_files_inside_the_repository_are_findings(seed_kb):
    for kind in SPECIALS:
        make_special(seed_kb / f"knobs/{special_name(kind)}.yaml", kind)
    proc = run_kb("check", "--root", seed_kb, "--format", "json")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    found = {f["path"]: f for f in json.loads(proc.stdout)["findings"]}
    for kind, why in SPECIALS.items():
        item = found.pop(f"knobs/{special_name(kind)}.yaml")
        assert item["code"] == "unreadable-file" and why in item["message"], item
    assert not found and "root:" not in proc.stdout  # nothing of /etc/passwd is quoted


def test_a_link_to_a_record_inside_the_repository_is_read(kb, seed_kb):
    (seed_kb / "shared").mkdir()
    (seed_kb / "shared/k.yaml").write_text(MINIMAL.replace("value: 1", "value: [1]"))
    (seed_kb / "knobs/k.yaml").symlink_to("../shared/k.yaml")
    found = json.loads(kb("validate", "--root", seed_kb, "--format", "json").out)["findings"]
    assert [(f["code"], f["path"]) for f in found] == [("bad-type", "knobs/k.yaml")]


# ---- folders under knobs/, incidents/ and docs/ reached through links -------------------------------

class Hung(BaseException):
    """kb did not return in time (a BaseException: kb's own handler of unexpected errors lets it through)."""


def _findings(root: Path, timeout: int = 120) -> tuple[int, list[dict]]:
    """`kb check --format json` in this process (the tests of special files run it in a process of its
    own): a walk that never ends fails the test after `timeout` seconds."""

    def hung(signum: int, frame: object) -> None:
        raise Hung(f"kb check --root {root} did not return within {timeout} s")

    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(timeout)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["check", "--root", str(root), "--format", "json"])
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert "Traceback" not in err.getvalue() and code in (0, 1), (code, err.getvalue())
    return code, json.loads(out.getvalue())["findings"]


@pytest.mark.parametrize("folder", ["knobs", "incidents", "knobs/team"])
def test_a_linked_folder_of_records_inside_the_repository_is_read(seed_kb, folder):
    shared = seed_kb / "shared/records"
    shared.mkdir(parents=True)
    bad = MINIMAL.replace("id: k", "id: bad").replace("value: 1", "value: [1]")
    (shared / "bad.yaml").write_text(bad if folder != "incidents" else "id: bad\ntitle: t\nstatus: maybe\n")
    (seed_kb / folder).mkdir(exist_ok=True)
    (seed_kb / folder / "linked").symlink_to(os.path.relpath(shared, seed_kb / folder))
    code, found = _findings(seed_kb)
    assert code == 1
    assert {f["path"] for f in found if f["path"].startswith(folder)} == {f"{folder}/linked/bad.yaml"}
    assert any(f["code"] == ("bad-type" if folder != "incidents" else "bad-value") for f in found)


LINK_TARGETS = ["outside", "nowhere", "loop", "ancestor", "twice"]
LINK_PLACES = ["knobs", "incidents", "knobs/deeper", "docs", "docs/design"]
# Every pair in the full suite; `make test-fast` runs the diagonal: each target once, each place once.
LINKS = [pytest.param(target, where, marks=() if LINK_TARGETS.index(target) == LINK_PLACES.index(where)
                      else pytest.mark.slow) for target in LINK_TARGETS for where in LINK_PLACES]


@pytest.mark.parametrize("target, where", LINKS)
def test_a_folder_kb_does_not_read_is_a_finding_naming_it(seed_kb, tmp_path, where, target):
    outside = tmp_path / "outside"
    outside.mkdir()
    invalid = "id: bad\nvalue: [1]\n"
    (outside / "bad.yaml").write_text(invalid)
    (outside / "bad.md").write_text("# sglang-sm120-mma-target-ctas\n")
    folder = seed_kb / where
    folder.mkdir(parents=True, exist_ok=True)
    link = folder / "team"
    if target == "outside":
        link.symlink_to(outside)
    elif target == "nowhere":
        link.symlink_to("gone")
    elif target == "loop":
        link.symlink_to(".")
    elif target == "ancestor":
        link.symlink_to(os.path.relpath(seed_kb, folder))  # the repository itself, with knobs/ and docs/ in it
    else:  # a second way into a folder read already
        (folder / "first").mkdir()
        (folder / "first" / "bad.yaml").write_text(invalid)
        link.symlink_to("first")
    code, found = _findings(seed_kb)
    assert code == 1
    rel = f"{where}/team"
    mine = [f for f in found if f["path"] == rel]
    assert [(f["code"], f["line"]) for f in mine] == [("unreadable-file", 1)], found
    why = {"outside": "a folder outside the repository", "nowhere": "which does not exist",
           "loop": "read already", "ancestor": "read already", "twice": "read already"}[target]
    assert why in mine[0]["message"] and "kb does not read this" in mine[0]["message"]
    assert str(outside) not in json.dumps(found) or target == "outside"  # a link out is named, nothing read there
    assert not any(f["path"].startswith(rel + "/") for f in found)  # nothing read through it


def test_a_linked_folder_of_docs_inside_the_repository_is_read(seed_kb):
    (seed_kb / "runbooks").mkdir()
    (seed_kb / "runbooks/tuning.md").write_text("Set SGLANG_SM120_MMA_TARGET_CTAS with care.\n")
    (seed_kb / "docs/ops").symlink_to("../runbooks")
    from incident_kb.check.pipeline import CheckMode, check_knowledge_base

    kb = check_knowledge_base(seed_kb, CheckMode(cache=False))
    assert ("docs/ops/tuning.md", "sglang-sm120-mma-target-ctas") in {(r.doc, r.record_id) for r in kb.references}
    assert not [f for f in kb.findings if f.path.startswith("docs/ops")]


def test_deploy_files_kb_cannot_read_are_findings_not_all_good(seed_kb):
    expected = {}
    for kind in ("fifo", "/dev/zero", "/etc/passwd", "loop", "folder", "socket"):
        name = special_name(kind)
        make_special(seed_kb / f"deploy/{name}.sh", kind)
        knob = MINIMAL.replace("id: k", f"id: {name}") + f"applies_to:\n  - path: deploy/{name}.sh\n    pattern: x\n"
        (seed_kb / f"knobs/{name}.yaml").write_text(knob)
        expected[f"knobs/{name}.yaml"] = ("unreadable-file" if kind in ("fifo", "folder", "socket") else "bad-path",
                                          line_of(knob, "  - path:"))
    proc = run_kb("check", "--root", seed_kb, "--format", "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = json.loads(proc.stdout)["findings"]
    assert {f["path"]: (f["code"], f["line"]) for f in found} == expected
    assert "root:" not in proc.stdout


def test_docs_kb_cannot_read_are_findings(seed_kb):
    kinds = ("fifo", "/dev/zero", "/etc/passwd", "socket", "loop")
    for kind in kinds:
        make_special(seed_kb / f"docs/guide/{special_name(kind)}.md", kind)
    proc = run_kb("check", "--root", seed_kb, "--format", "json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    found = json.loads(proc.stdout)["findings"]
    assert sorted((f["code"], f["path"]) for f in found) == sorted(
        ("unreadable-file", f"docs/guide/{special_name(kind)}.md") for kind in kinds)
    assert all("cannot read this doc" in f["message"] for f in found) and "root:" not in proc.stdout


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero"])
def test_a_hostile_mkdocs_yml_does_not_hang_kb_render(seed_kb, tmp_path, kind):
    make_special(seed_kb / "mkdocs.yml", kind)
    proc = run_kb("render", "--root", seed_kb, "--out", tmp_path / "out", timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "out/index.md").is_file()


@pytest.mark.parametrize("kind", ["fifo", "/dev/zero", "/etc/passwd"])
def test_a_hostile_pyproject_is_a_bad_config_finding(seed_kb, kind):
    make_special(seed_kb / "pyproject.toml", kind)
    proc = run_kb("check", "--root", seed_kb, "--format", "json")
    found = json.loads(proc.stdout)["findings"]
    assert proc.returncode == 1 and [f["code"] for f in found] == ["bad-config"], found
    assert "cannot read pyproject.toml" in found[0]["message"]


@pytest.mark.parametrize(("config", "line", "message"), [
    ('[tool.incident-kb]\nseverity = "error"\n', 2, "'severity' in [tool.incident-kb] is 'error', not a table"),
    ("[tool.incident-kb]\nseverity = 5\n", 2, "is 5, not a table"),
    ("[tool.incident-kb]\nseverity = [1, 2]\n", 2, "is a list, not a table"),
    ("tool = 1\n", 1, "[tool] must be a table"),
    ('[tool]\nincident-kb = "strict"\n', 2, "[tool.incident-kb] must be a table"),
    ("[tool.incident-kb.severity]\nreclaimable-knob = 2\n", 2, "severity of 'reclaimable-knob' is 2"),
    ("[tool.incident-kb.severity]\nreclaimable-knob = [\"off\"]\n", 2, "is a list"),
    ("[tool.incident-kb.severity]\nreclaimable-knob = {level = \"off\"}\n", 2, "is a table"),
    ("x = " + "[" * 5000 + "]" * 5000 + "\n", 1, "too deeply"),
    ("x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n", 1, "too deeply"),
])
def test_a_malformed_configuration_is_a_bad_config_finding(kb, seed_kb, config, line, message):
    (seed_kb / "pyproject.toml").write_text(config)
    result = kb("check", "--root", seed_kb, "--format", "json")
    found = json.loads(result.out)["findings"]
    assert result.code == 1 and [(f["code"], f["line"]) for f in found] == [("bad-config", line)], found
    assert message in found[0]["message"]


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32"])
def test_utf16_and_utf32_records_are_called_not_utf8(kb, seed_kb, encoding):
    (seed_kb / SEED_KNOB).write_bytes(GOOD_KNOB.encode(encoding))
    found = json.loads(kb("validate", "--root", seed_kb, "--format", "json").out)["findings"]
    assert [f["code"] for f in found] == ["unreadable-file"]
    assert "is not UTF-8 (it is UTF-" in found[0]["message"] and "save it as UTF-8" in found[0]["message"]


# ---- patterns from records run in linear time ------------------------------------------------------

CATASTROPHIC = ["(a+)+$", "(a|a)+$", "(a|aa)+$", "(.*a){20}$", "^(\\w+\\s?)+$"]


def test_catastrophic_patterns_cannot_hang_the_check(seed_kb):
    (seed_kb / "deploy/decode.sh").write_text(("a" * 40 + "!\n") * 200)
    for n, pattern in enumerate(CATASTROPHIC):
        knob = MINIMAL.replace("id: k", f"id: k{n}") + \
            f"applies_to:\n  - path: deploy/decode.sh\n    pattern: '{pattern}'\n"
        (seed_kb / f"knobs/k{n}.yaml").write_text(knob)
    proc = run_kb("check", "--root", seed_kb, "--format", "json", timeout=30)
    found = json.loads(proc.stdout)["findings"]
    # Issue 21: a drift finding is at the deploy file's line (where the fix goes), naming the record.
    assert sorted((f["code"], f["path"], f["subject"]) for f in found) == sorted(
        [("knob-drift", "deploy/decode.sh", "sglang-sm120-mma-target-ctas")] + [
            ("knob-drift", "deploy/decode.sh", f"k{n}") for n in range(len(CATASTROPHIC))])


def with_pattern(pattern: str) -> str:
    """The seed knob with its own pattern for deploy/decode.sh (it relies on the default one)."""
    assert "  - path: deploy/decode.sh\n" in GOOD_KNOB
    return GOOD_KNOB.replace("  - path: deploy/decode.sh\n",
                             f"  - path: deploy/decode.sh\n    pattern: '{pattern}'\n", 1)


@pytest.mark.parametrize("pattern", CATASTROPHIC[:2])
def test_a_catastrophic_pattern_cannot_hang_revert_or_restore(kb, seed_kb, pattern):
    (seed_kb / "deploy/decode.sh").write_text(("a" * 40 + "!\n") * 200)
    (seed_kb / SEED_KNOB).write_text(with_pattern(pattern))
    for args in (("new", "incident", "slow-again", "--title", "Slow again", "--started", "2026-11-08"),
                 ("hypothesis", "add", "slow-again", "ctas-again", "--statement", "It is the knob.")):
        assert kb(*args, "--root", seed_kb).code == 0
    for args in (("revert", "sglang-sm120-mma-target-ctas", "--incident", "slow-again", "--hypothesis", "ctas-again",
                  "--date", "2026-11-08"),
                 ("restore", "sglang-sm120-mma-target-ctas", "--date", "2026-11-09")):
        edit = run_kb(*args, "--root", seed_kb, timeout=30)
        assert edit.returncode == 0, edit.stderr
        assert "deploy/decode.sh" in edit.stdout


@pytest.mark.parametrize(("pattern", "why"), [
    ("(?=x)SGLANG", "(?="), ("SGLANG(?!_X)", "(?!"), ("(S)\\1", "\\1"), ("(?<=x)S", "(?<"), ("S\\Z", "\\Z"),
    ("a{1000}{1000}", "repetition"), ("(", "missing )"),
])
def test_a_pattern_re2_cannot_run_is_a_finding(kb, seed_kb, pattern, why):
    (seed_kb / SEED_KNOB).write_text(with_pattern(pattern))
    result = kb("check", "--root", seed_kb, "--format", "json")
    assert result.code == 1 and result.err.count("\n") <= 1  # RE2 prints nothing of its own
    found = json.loads(result.out)["findings"]
    assert [(f["code"], f["line"]) for f in found] == [("bad-value", line_of(with_pattern(pattern), "    pattern:"))]
    assert why in found[0]["message"] and "RE2 syntax" in found[0]["message"]


# ---- folders and files kb may not read ---------------------------------------------------------------

@pytest.fixture
def private_kb(seed_kb: Path):
    """The seed knowledge base, and a runner of `kb` for which mode bits count. Root ignores them
    (CAP_DAC_OVERRIDE): as root, kb runs without the capabilities that bypass them."""

    def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
        return kb_forked(*args, before=_without_file_capabilities)

    yield seed_kb, run
    for path in [seed_kb, *seed_kb.rglob("*")]:  # give everything its bits back, so it can be removed
        if not path.is_symlink():
            os.chmod(path, 0o755)


def _without_file_capabilities() -> None:
    """This process (the forked `kb`) and what it starts lose the capabilities that bypass mode bits."""
    if os.geteuid() != 0:
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in _FILE_CAPABILITIES:  # out of the bounding set: git started as root does not regain them
        if libc.prctl(24, capability, 0, 0, 0) != 0:  # PR_CAPBSET_DROP
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")

    class Header(ctypes.Structure):
        _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]

    class Sets(ctypes.Structure):
        _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]

    header, sets = Header(0x20080522, 0), (Sets * 2)()  # _LINUX_CAPABILITY_VERSION_3: two words of bits
    if libc.capget(ctypes.byref(header), sets) != 0:
        raise OSError(ctypes.get_errno(), "capget failed")
    keep = ~sum(1 << capability for capability in _FILE_CAPABILITIES)
    for name in ("effective", "permitted", "inheritable"):  # and out of this process's own sets
        setattr(sets[0], name, getattr(sets[0], name) & keep & 0xFFFFFFFF)
    if libc.capset(ctypes.byref(header), sets) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


_FILE_CAPABILITIES = (1, 2)  # CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH


def one_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    assert proc.stdout == "" and proc.stderr.startswith("kb: ") and proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


@pytest.mark.parametrize("folder", ["knobs", "incidents"])
def test_a_record_folder_kb_may_not_list_stops_with_one_line(private_kb, folder):
    root, run = private_kb
    os.chmod(root / folder, 0)
    for command in ("check", "validate"):
        assert f"cannot list {folder}/" in one_line(run(command, "--root", root)) + "permission denied"


@pytest.mark.parametrize("mode", [0, 0o600])
def test_a_root_kb_may_not_search_stops_with_one_line(private_kb, mode):
    root, run = private_kb
    os.chmod(root, mode)
    err = one_line(run("check", "--root", root))
    assert "permission denied" in err and str(root) in err


def test_an_unreadable_record_is_a_finding(private_kb):
    root, run = private_kb
    os.chmod(root / SEED_KNOB, 0)
    proc = run("check", "--root", root, "--format", "json")
    found = json.loads(proc.stdout)["findings"]
    assert proc.returncode == 1 and [(f["code"], f["path"]) for f in found] == [("unreadable-file", SEED_KNOB)]
    assert "permission denied" in found[0]["message"]


@pytest.mark.parametrize("where", ["file", "folder"])
def test_an_unreadable_deploy_file_is_a_finding_not_all_good(private_kb, where):
    root, run = private_kb
    os.chmod(root / "deploy" / ("decode.sh" if where == "file" else ""), 0)
    proc = run("check", "--root", root, "--format", "json")
    found = json.loads(proc.stdout)["findings"]
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert [(f["code"], f["path"], f["line"]) for f in found] == [
        ("unreadable-file", SEED_KNOB, line_of(GOOD_KNOB, "  - path: deploy/decode.sh"))]
    assert "permission denied" in found[0]["message"] and "deploy/decode.sh" in found[0]["message"]


def test_a_listed_doc_in_a_folder_kb_may_not_search_is_a_finding(private_kb):
    root, run = private_kb
    (root / "docs/private").mkdir()
    (root / "docs/private/notes.md").write_text("# notes\n")
    knob = root / SEED_KNOB
    knob.write_text(GOOD_KNOB.replace("docs:\n", "docs:\n  - docs/private/notes.md\n", 1))
    os.chmod(root / "docs/private", 0)
    proc = run("check", "--root", root, "--format", "json")
    found = json.loads(proc.stdout)["findings"]
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert [(f["code"], f["path"], f["line"]) for f in found] == [  # the folder under docs/ is not skipped silently
        ("unreadable-file", "docs/private", 1),
        ("unreadable-file", SEED_KNOB, line_of(knob.read_text(), "  - docs/private/notes.md"))]
    assert all("permission denied" in f["message"] for f in found)


def test_an_unreadable_doc_and_configuration_are_findings(private_kb):
    root, run = private_kb
    (root / "pyproject.toml").write_text("[tool.incident-kb]\n")
    os.chmod(root / "pyproject.toml", 0)
    os.chmod(root / "docs/design/DSV4_DECODE_PERF_PLAN.md", 0)
    proc = run("check", "--root", root, "--format", "json")
    found = json.loads(proc.stdout)["findings"]
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert [(f["code"], f["path"]) for f in found] == [("unreadable-file", "docs/design/DSV4_DECODE_PERF_PLAN.md"),
                                                       ("bad-config", "pyproject.toml")]
    assert all("permission denied" in f["message"] for f in found)


def test_a_record_named_with_another_case_of_suffix_is_a_finding_not_skipped(seed_kb):
    invalid = "id: x\nvalue: [1]\n"
    for rel in ("knobs/x.YAML", "knobs/team/y.Yml", "incidents/z.YAML"):
        (seed_kb / rel).parent.mkdir(parents=True, exist_ok=True)
        (seed_kb / rel).write_text(invalid)
    for rel in ("knobs/README.md", "knobs/.hidden.YAML", "knobs/notes.yaml.bak", "incidents/.x.yaml.123.tmp"):
        (seed_kb / rel).write_text(invalid)  # not records, and not named like one: nothing to say
    code, found = _findings(seed_kb)
    assert code == 1
    assert [(f["code"], f["path"], f["line"]) for f in found if f["severity"] == "error"] == [
        ("unreadable-file", "incidents/z.YAML", 1), ("unreadable-file", "knobs/team/y.Yml", 1),
        ("unreadable-file", "knobs/x.YAML", 1)], found
    x = next(f for f in found if f["path"] == "knobs/x.YAML")
    assert "does not read this as a record" in x["message"] and "git mv knobs/x.YAML knobs/x.yaml" in x["message"]


@pytest.mark.parametrize("folder", ["knobs", "incidents", "docs"])
def test_a_records_or_docs_folder_that_is_itself_a_link_out_is_a_finding_and_never_listed(seed_kb, tmp_path, folder):
    outside = tmp_path / "shared" / folder
    shutil.move(seed_kb / folder, outside)
    (outside / "bad.yaml").write_text("id: bad\nvalue: [1]\n")
    (outside / "extra.md").write_text("# Extra\n\nSGLANG_SM120_MMA_TARGET_CTAS\n")
    (seed_kb / folder).symlink_to(outside)
    code, found = _findings(seed_kb)
    assert code == 1
    mine = [f for f in found if f["path"] == folder]
    assert [(f["code"], f["line"]) for f in mine] == [("unreadable-file", 1)], found
    assert "a folder outside the repository, which kb never reads" in mine[0]["message"]
    # No name in it was listed: only a file a record names is looked at there (and refused, said so).
    assert not any(f["path"] in (f"{folder}/bad.yaml", f"{folder}/extra.md") for f in found), found
    assert all(f["code"] in ("unreadable-file", "bad-path") for f in found if f["path"].startswith(folder + "/"))
