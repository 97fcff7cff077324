"""More files git opens on its own (issue 30): `.mailmap`, which `git log` opens (kb runs git with
log.mailmap off, so a named pipe there is never opened: no hang, and no refusal either), and
`.gitmodules`, which git opens whenever the index holds a submodule (`--staged` hung on a named pipe
there: now one line, exit 2). And the crash log goes through the store's checks: a named pipe at
`kb.log` is replaced, never opened; a linked or shared cache folder is never written through."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ..conftest import REPO
from ..gitrepo import GitRepo
from ..repository.test_bad_files import run_kb
from .test_git_waits import WAITED_ON, committed

pytestmark = pytest.mark.usefixtures("git_env")


@pytest.mark.parametrize("extra", [(), ("--staged",), ("--base", "HEAD")])
def test_a_named_pipe_at_mailmap_is_never_opened(seed_kb, extra):
    repo = committed(seed_kb)
    os.mkfifo(seed_kb / ".mailmap")
    repo.git("config", "mailmap.file", str(seed_kb / ".mailmap"))
    (seed_kb / "docs/new.md").write_text("# New\n")
    repo.git("add", "docs/new.md")
    proc = run_kb("check", "--root", seed_kb, *extra, timeout=60)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr


def with_submodule(root: Path, at: str = "vendor/lib") -> GitRepo:
    repo = committed(root)
    head = repo.git("rev-parse", "HEAD").strip()
    repo.git("update-index", "--add", "--cacheinfo", f"160000,{head},{at}")
    return repo


@pytest.mark.parametrize("extra", [("--staged",), ()])
def test_a_named_pipe_at_gitmodules_with_a_submodule_staged_is_named_not_waited_on(seed_kb, extra):
    with_submodule(seed_kb)
    os.mkfifo(seed_kb / ".gitmodules")
    proc = run_kb("check", "--root", seed_kb, *extra, timeout=60)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert proc.stderr.startswith("kb: .gitmodules: ") and WAITED_ON in proc.stderr and proc.stderr.count("\n") == 1


def test_a_regular_gitmodules_is_no_false_alarm(seed_kb):
    with_submodule(seed_kb)
    (seed_kb / ".gitmodules").write_text('[submodule "lib"]\n\tpath = vendor/lib\n\turl = https://example.invalid/l\n')
    proc = run_kb("check", "--root", seed_kb, "--staged", timeout=60)
    assert proc.returncode in (0, 1) and "Traceback" not in proc.stderr, proc.stderr


CRASH = ("import incident_kb.commands as c\n"
         "def boom(args):\n    raise KeyError('planted')\n"
         "c.COMMANDS = tuple(x if x.words != ('check',) else type(x)(x.words, x.help, x.arguments, boom) "
         "for x in c.COMMANDS)\n")


def crash(seed_kb: Path, cache: Path, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """`kb check` in a process of its own with a bug planted at start-up, its cache folder under `cache`."""
    plant = tmp_path / "plant"
    plant.mkdir(exist_ok=True)
    (plant / "sitecustomize.py").write_text(CRASH)
    paths = [str(plant), *filter(None, [os.environ.get("PYTHONPATH")]), str(REPO / "generator")]
    # a fresh interpreter: the bug is planted by its start (a sitecustomize)
    return subprocess.run([sys.executable, "-m", "incident_kb.cli", "check", "--root", str(seed_kb)],
                          capture_output=True, text=True, timeout=60, cwd=REPO,
                          env={**os.environ, "XDG_CACHE_HOME": str(cache), "PYTHONPATH": os.pathsep.join(paths)})


def test_a_named_pipe_at_kb_log_is_replaced_never_waited_on(seed_kb, tmp_path):
    cache = tmp_path / "cache"
    (cache / "incident-kb").mkdir(parents=True, mode=0o700)
    os.mkfifo(cache / "incident-kb/kb.log")
    proc = crash(seed_kb, cache, tmp_path)
    assert proc.returncode == 3, proc.stderr
    log = cache / "incident-kb/kb.log"
    assert stat.S_ISREG(os.lstat(log).st_mode) and "planted" in log.read_text()


@pytest.mark.parametrize("shape", ["linked", "shared"])
def test_a_linked_or_shared_cache_folder_is_never_written_through(seed_kb, tmp_path, shape):
    cache, elsewhere = tmp_path / "cache", tmp_path / "elsewhere"
    cache.mkdir()
    elsewhere.mkdir()
    if shape == "linked":
        (cache / "incident-kb").symlink_to(elsewhere, target_is_directory=True)
    else:
        (cache / "incident-kb").mkdir()
        (cache / "incident-kb").chmod(0o777)
    proc = crash(seed_kb, cache, tmp_path)
    assert proc.returncode == 3, proc.stderr
    assert list(elsewhere.iterdir()) == [] and not (cache / "incident-kb/kb.log").exists()
    where = Path(proc.stderr.rstrip().rsplit(" ", 1)[1])
    assert "planted" in where.read_text()
    where.unlink()
