"""tests/tmp_in_ram.sh, which `make test`, `make test-lowest` and `make test-fast` run the suite through:
the command's temporary files in a folder of its own under the RAM folder, removed after a run that
passed or was interrupted, kept (and named) after one that failed; without the folder, where it cannot
run a program, or with TMPDIR already set, the command runs as it is. Here the RAM folder is a test's
own (INCIDENT_KB_TESTS_RAM), so /dev/shm is never touched."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import REPO

SCRIPT = REPO / "tests" / "tmp_in_ram.sh"
# The command run through the script: says where its temporary files go, then ends as told.
SAYS_TMPDIR = "import os, sys, tempfile; print(tempfile.gettempdir(), flush=True); sys.exit(int(sys.argv[1]))"


def environment(ram: Path, **more: str) -> dict[str, str]:
    """This process' environment without a temporary folder of its own (the suite's run sets TMPDIR)."""
    env = {name: value for name, value in os.environ.items() if name not in ("TMPDIR", "TEMP", "TMP")}
    return {**env, "INCIDENT_KB_TESTS_RAM": str(ram), **more}


def run(ram: Path, status: int, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["sh", str(SCRIPT), sys.executable, "-c", SAYS_TMPDIR, str(status)],
                          env=environment(ram, **env), capture_output=True, text=True, timeout=60)


def has_room(folder: Path) -> bool:
    return shutil.disk_usage(folder).free >= 4 << 30  # the script's 4 GiB


def test_a_run_that_passes_has_a_folder_of_its_own_removed_after(tmp_path):
    done = run(tmp_path, 0)
    assert done.returncode == 0 and done.stderr == ""
    used = Path(done.stdout.strip())
    if has_room(tmp_path):
        assert used.parent == tmp_path and used.name.startswith("incident-kb-tests.")
        assert not used.exists(), "the folder of a run that passed is left behind"
    else:
        assert used == Path("/tmp")
    assert list(tmp_path.iterdir()) == []


def test_a_run_that_fails_keeps_its_folder_and_says_where(tmp_path):
    for status in (1, 2, 5):
        done = run(tmp_path, status)
        assert done.returncode == status
        used = Path(done.stdout.strip())
        if has_room(tmp_path):
            assert used.is_dir() and used.parent == tmp_path
            said = f"The failed run's temporary files are kept in {used} (in RAM: remove it when done).\n"
            assert done.stderr == said
            shutil.rmtree(used)
        else:
            assert used == Path("/tmp") and done.stderr == ""


def test_without_the_ram_folder_the_command_runs_as_it_is(tmp_path):
    for status in (0, 3):
        done = run(tmp_path / "missing", status)
        assert (done.returncode, done.stdout, done.stderr) == (status, "/tmp\n", "")
    assert not (tmp_path / "missing").exists()


def test_a_folder_that_cannot_run_programs_is_not_used(tmp_path):
    """Hardened systems mount /dev/shm noexec; the tests run scripts they write (git hooks, stand-in
    commands), so there the command runs as it is."""
    ram = tmp_path / "noexec"
    ram.mkdir()
    try:
        mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "noexec,size=5g", "tmpfs", str(ram)],
                                 capture_output=True, text=True, timeout=30)
    except FileNotFoundError:
        pytest.skip("no mount command here")
    if mounted.returncode != 0:
        pytest.skip(f"a file system cannot be mounted here: {mounted.stderr.strip()}")
    try:
        assert has_room(ram)  # what sends the run elsewhere is the noexec alone
        done = run(ram, 0)
        assert (done.returncode, done.stdout, done.stderr) == (0, "/tmp\n", "")
        assert list(ram.iterdir()) == []
    finally:
        subprocess.run(["umount", str(ram)], check=True, timeout=30)


def test_a_temporary_folder_already_chosen_is_kept(tmp_path):
    chosen = tmp_path / "chosen"
    chosen.mkdir()
    ram = tmp_path / "ram"
    ram.mkdir()
    for status in (0, 4):
        done = run(ram, status, TMPDIR=str(chosen))
        assert (done.returncode, done.stdout, done.stderr) == (status, f"{chosen}\n", "")
    assert list(ram.iterdir()) == []


def test_an_interrupted_run_removes_its_folder(tmp_path):
    """Ctrl-C reaches the script and the command together (one process group): the command ends on it,
    and the script, which only notes it, removes the folder after."""
    waits = "import tempfile, time; print(tempfile.gettempdir(), flush=True); time.sleep(60)"
    # Ctrl-C's default restored in the child: a suite started in the background (`make test &` from a
    # script) inherits SIGINT ignored, and a shell cannot trap a signal ignored when it started.
    process = subprocess.Popen(["sh", str(SCRIPT), sys.executable, "-c", waits], env=environment(tmp_path),
                               text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True,
                               preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        used = Path(process.stdout.readline().strip())
        assert used.is_dir() or not has_room(tmp_path)
        os.killpg(process.pid, signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert process.returncode != 0 and "KeyboardInterrupt" in stderr
    assert "kept in" not in stderr
    assert list(tmp_path.iterdir()) == []
