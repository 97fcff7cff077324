"""Another repository kept in a private folder of kb's cache: cloned once (with its whole history,
which the stale-doc check reads), fetched after, its work tree put at a ref. kb never pushes and
never writes to the remote; the folder is kb's own. Knows nothing of knobs or incidents.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..repository.files import is_folder

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: see clone_locked
    fcntl = None  # type: ignore[assignment]

CLONE_TIMEOUT = 600  # seconds: a remote that hangs is said, never waited on for ever
LOCK_TIMEOUT = 2 * CLONE_TIMEOUT  # seconds another kb may hold a clone (cloning, then checking) before this says so
_POLL = 0.05
_HELD: set[Path] = set()  # the clones this process holds: a second entry of the same URL holds it already
_ENVIRONMENT = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "GIT_NO_LAZY_FETCH": "1",
                "GCM_INTERACTIVE": "never"}


class CloneFailed(Exception):
    """The remote could not be cloned or fetched, or the ref is not in it: git's own words, in one line."""


def clone_folder(cache: Path, url: str) -> Path:
    """Where `url` is kept under `cache`: one folder per URL, named by its digest."""
    return cache / "clones" / hashlib.sha256(url.encode("utf-8", "surrogatepass")).hexdigest()[:24]


@contextmanager
def clone_locked(folder: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """The clone at `folder` this process's alone for the block: another kb (a second build of the org
    site, a `kb org check` beside it) that would clone, fetch, check out or read it waits, rather than
    clone into the same folder at once or move its work tree while this one reads. An advisory lock
    on a file of its own (`clones-locks/NAME.lock` beside `clones/NAME`), which the kernel drops when a
    process dies. Raises
    CloneFailed when another holds it past `timeout` seconds."""
    if folder in _HELD:
        yield
        return
    locks = folder.parent.with_name(folder.parent.name + "-locks")  # beside the clones, none in their folder
    locks.mkdir(parents=True, exist_ok=True)
    lock_path = locks / (folder.name + ".lock")
    if fcntl is None:  # pragma: no cover - Windows: a lock file, which filelock removes on release there
        from filelock import FileLock, Timeout

        try:
            with FileLock(lock_path, timeout=timeout):
                yield
        except Timeout:
            raise CloneFailed(_busy(folder, timeout)) from None
        return
    handle = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise CloneFailed(_busy(folder, timeout)) from None
                time.sleep(_POLL)
        _HELD.add(folder)
        try:
            yield
        finally:
            _HELD.discard(folder)
    finally:
        os.close(handle)  # the lock goes with it


def _busy(folder: Path, timeout: float) -> str:
    return (f"another kb has held its clone in {folder} for more than {timeout:.0f} s; let it finish (or stop it), "
            "then build again")


def checked_out(url: str, ref: str | None, folder: Path) -> str:
    """`url` cloned into `folder` (or fetched, when it already is), its work tree at `ref` (a branch,
    a tag or a commit; None: the remote's default branch); returns the commit id checked out. The
    caller holds `clone_locked(folder)` until it has read the work tree."""
    if url.startswith("-") or (ref or "").startswith("-"):
        raise CloneFailed(f"'{url if url.startswith('-') else ref}' starts with '-', which git would read as an option")
    if not is_folder(folder / ".git"):
        folder.parent.mkdir(parents=True, exist_ok=True)
        _git(folder.parent, "clone", "--quiet", "--no-checkout", "--", url, folder.name)
    else:
        _git(folder, "remote", "set-url", "origin", "--", url)
        _git(folder, "fetch", "--quiet", "--prune", "--tags", "--force", "origin",
             "+refs/heads/*:refs/remotes/origin/*")
    commit = _commit_of(folder, ref)
    _git(folder, "-c", "advice.detachedHead=false", "checkout", "--quiet", "--force", "--detach", commit)
    _git(folder, "clean", "--quiet", "-d", "--force", "-x")
    return commit


def _commit_of(folder: Path, ref: str | None) -> str:
    candidates = (["refs/remotes/origin/HEAD"] if ref is None
                  else [f"refs/remotes/origin/{ref}", f"refs/tags/{ref}", ref])
    for candidate in candidates:
        try:
            return _git(folder, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{candidate}^{{commit}}")
        except CloneFailed:
            continue
    raise CloneFailed(f"the ref '{ref}' is no branch, tag or commit of the repository" if ref is not None
                      else "the repository has no default branch")


def _git(cwd: Path, *args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, env={**os.environ, **_ENVIRONMENT}, capture_output=True,
                              text=True, errors="backslashreplace", timeout=CLONE_TIMEOUT, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise CloneFailed(f"git {args[0]} took more than {CLONE_TIMEOUT} s") from None
    except OSError as exc:
        raise CloneFailed(f"git cannot run here ({exc.strerror or exc})") from None
    if done.returncode != 0:
        lines = [line.strip() for line in done.stderr.splitlines() if line.strip()]
        raise CloneFailed(lines[-1].removeprefix("fatal: ") if lines else f"git {args[0]} failed")
    return done.stdout.strip()
