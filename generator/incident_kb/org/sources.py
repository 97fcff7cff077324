"""Where each knowledge base of the organisation is read from: a folder relative to the org site's
configuration, or a git repository cloned (then fetched) into kb's cache and put at its ref, with
its whole history (what the stale-doc check reads). The cache is kb's own folder outside every
repository (`cache.user_cache_folder`); nothing is ever written to a team's repository or remote.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from ..cache import say, user_cache_folder
from ..history.clones import CLONE_TIMEOUT, CloneFailed, checked_out, clone_folder
from ..locks import HAS_FLOCK, flock_within
from ..repository.files import describe_error
from .configuration import KnowledgeBaseEntry

LOCK_TIMEOUT = 2 * CLONE_TIMEOUT  # seconds another kb may hold a clone (cloning, then checking) before this says so
_POLL = 0.05  # a clone waits on git's network work: no need to ask as often as an edit does
_HELD: set[Path] = set()  # the clones this process holds: a second entry of the same URL and ref holds it already


class SourceUnreadable(Exception):
    """The knowledge base cannot be reached where its entry says: why, in a few words."""


def knowledge_base_folder(entry: KnowledgeBaseEntry, config_folder: Path, held: ExitStack) -> Path:
    """The folder holding the knowledge base of `entry`: its path, or its clone in kb's cache at its
    ref (cloned or fetched now), locked until `held` closes (another kb waits to clone, fetch or read
    it meanwhile). Raises SourceUnreadable."""
    if entry.path is not None:
        folder = Path(os.path.realpath(config_folder / entry.path))
        try:
            if not folder.is_dir():
                raise SourceUnreadable(f"there is no folder {entry.path} (relative to {config_folder})")
        except OSError as exc:
            raise SourceUnreadable(f"cannot read {entry.path} ({describe_error(exc)})") from None
        return folder
    assert entry.git is not None
    folder = clone_folder(user_cache_folder(), entry.git, entry.ref)
    try:
        held.enter_context(clone_locked(folder))
        checked_out(entry.git, entry.ref, folder)
    except CloneFailed as exc:
        raise SourceUnreadable(f"cannot fetch {entry.where}: {exc}") from None
    except OSError as exc:
        raise SourceUnreadable(f"cannot keep a clone of {entry.git} in {folder} ({describe_error(exc)})") from None
    return folder


@contextmanager
def clone_locked(folder: Path, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """The clone at `folder` this process's alone for the block: another kb (a second build of the org
    site, a `kb org check` beside it) that would clone, fetch, check out or read it waits, rather than
    clone into the same folder at once or move its work tree while this one reads. An advisory lock
    on a file of its own (`clones-locks/NAME.lock` beside `clones/NAME`), which the kernel drops when a
    process dies. Raises CloneFailed when another holds it past `timeout` seconds."""
    if folder in _HELD:
        yield
        return
    locks = folder.parent.with_name(folder.parent.name + "-locks")  # beside the clones, none in their folder
    locks.mkdir(parents=True, exist_ok=True)
    lock_path = locks / (folder.name + ".lock")
    if not HAS_FLOCK:  # pragma: no cover - Windows: a lock file, which filelock removes on release there
        from filelock import FileLock, Timeout

        try:
            with FileLock(lock_path, timeout=timeout):
                yield
        except Timeout:
            raise CloneFailed(_busy(folder, timeout)) from None
        return
    handle = os.open(lock_path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o600)
    try:
        if not flock_within(handle, timeout, _POLL, waiting=lambda: say(_waiting(folder, timeout))):
            raise CloneFailed(_busy(folder, timeout))
        _HELD.add(folder)
        try:
            yield
        finally:
            _HELD.discard(folder)
    finally:
        os.close(handle)  # the lock goes with it


def _waiting(folder: Path, timeout: float) -> str:
    """Said while another kb holds the clone: the wait can last minutes (a clone of a large repository),
    and a command silent that long looks hung."""
    return (f"another kb holds the clone in {folder} (cloning, fetching or checking it); waiting for it, "
            f"up to {timeout / 60:.0f} min")


def _busy(folder: Path, timeout: float) -> str:
    return (f"another kb has held its clone in {folder} for more than {timeout:.0f} s; let it finish (or stop it), "
            "then build again")
