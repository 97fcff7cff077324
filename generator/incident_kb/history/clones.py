"""Another repository kept in a private folder of kb's cache: cloned once (with its whole history,
which the stale-doc check reads), fetched after, its work tree put at a ref. kb never pushes and
never writes to the remote; the folder is kb's own. Knows nothing of knobs or incidents.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from pathlib import Path

from ..repository.files import is_folder

CLONE_TIMEOUT = 600  # seconds: a remote that hangs is said, never waited on for ever
_ENVIRONMENT = {"GIT_TERMINAL_PROMPT": "0", "GIT_ASKPASS": "", "SSH_ASKPASS": "", "GIT_NO_LAZY_FETCH": "1",
                "GCM_INTERACTIVE": "never"}


class CloneFailed(Exception):
    """The remote could not be cloned or fetched, or the ref is not in it: git's own words, in one line."""


def clone_folder(cache: Path, url: str, ref: str | None = None) -> Path:
    """Where `url` at `ref` is kept under `cache`: one folder per URL and ref, named by their digest,
    so two knowledge bases of one repository at two refs each read their own work tree."""
    key = url if ref is None else json.dumps([url, ref])  # unambiguous: no two pairs share a key
    return cache / "clones" / hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def checked_out(url: str, ref: str | None, folder: Path) -> str:
    """`url` cloned into `folder` (or fetched, when it already is), its work tree at `ref` (a branch,
    a tag or a commit; None: the remote's default branch); returns the commit id checked out. The
    caller keeps other kb processes out meanwhile (org.sources holds a lock on it until it has read it)."""
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
