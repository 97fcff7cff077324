"""Exit codes a script can trust (issue 30): exit 2 says nothing changed, so a command whose output
cannot be written (`kb set KNOB 96 | head -1`, a full disk) after it wrote exits with its own code
and one line saying the change was made; one that wrote nothing still exits 2."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ..conftest import REPO, SEED_KNOB
from ..test_cli import assert_could_not_run, kb_process

MADE = "the command's changes were written, but not all of its output"


def closed_reader(*args: object) -> tuple[int, bytes]:
    process = kb_process(*args, stdout=subprocess.PIPE)
    assert process.stdout is not None
    process.stdout.close()  # `| head -0`: the reader is gone before kb writes a byte
    _, err = process.communicate(timeout=120)
    return process.returncode, err


def full_disk(*args: object) -> tuple[int, bytes]:
    with open("/dev/full", "wb") as full:
        process = kb_process(*args, stdout=full)
        _, err = process.communicate(timeout=120)
    return process.returncode, err


@pytest.mark.parametrize("output", [closed_reader, full_disk])
@pytest.mark.parametrize("command", [
    ("set", "sglang-sm120-mma-target-ctas", "96", "--note", "more"),
    ("render", "--out", "{out}"),
])
def test_a_change_made_before_the_output_failed_is_not_exit_2(seed_kb, tmp_path, output, command):
    args = [str(a).replace("{out}", str(tmp_path / "out")) for a in command]
    before = (seed_kb / SEED_KNOB).read_text()
    code, err = output(*args, "--root", seed_kb)
    lines = [line for line in err.decode().splitlines() if not line.startswith("kb: warning: ")]
    assert code == 0 and len(lines) == 1 and MADE in lines[0], (code, err.decode())
    if command[0] == "set":
        assert "value: 96" in (seed_kb / SEED_KNOB).read_text() != before
    else:
        assert (tmp_path / "out/index.md").is_file()


@pytest.mark.parametrize("output", [closed_reader, full_disk])
def test_a_command_that_changed_nothing_still_exits_2(seed_kb, output):
    code, err = output("set", "no-such-knob-here", "96", "--root", seed_kb)
    assert code == 2 and MADE not in err.decode()
    code, err = output("check", "--root", seed_kb, "--format", "json")
    assert_could_not_run(code, err, "")


def test_the_real_pipe_to_head(seed_kb):
    shell = '"$@" | head -1 >/dev/null; exit "${PIPESTATUS[0]}"'
    done = subprocess.run(["bash", "-c", shell, "kb", sys.executable, "-m", "incident_kb.cli", "set",
                           "sglang-sm120-mma-target-ctas", "96", "--note", "more", "--root", str(seed_kb)],
                          cwd=REPO, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr.decode()
    assert "value: 96" in (seed_kb / SEED_KNOB).read_text()
