"""Where each knowledge base of the organisation is read from: a folder relative to the org site's
configuration, or a git repository cloned (then fetched) into kb's cache and put at its ref, with
its whole history (what the stale-doc check reads). The cache is kb's own folder outside every
repository (`cache.user_cache_folder`); nothing is ever written to a team's repository or remote.
"""

from __future__ import annotations

import os
from contextlib import ExitStack
from pathlib import Path

from ..cache import user_cache_folder
from ..history.clones import CloneFailed, checked_out, clone_folder, clone_locked
from ..repository.files import describe_error
from .configuration import KnowledgeBaseEntry


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
    folder = clone_folder(user_cache_folder(), entry.git)
    try:
        held.enter_context(clone_locked(folder))
        checked_out(entry.git, entry.ref, folder)
    except CloneFailed as exc:
        raise SourceUnreadable(f"cannot fetch {entry.where}: {exc}") from None
    except OSError as exc:
        raise SourceUnreadable(f"cannot keep a clone of {entry.git} in {folder} ({describe_error(exc)})") from None
    return folder
