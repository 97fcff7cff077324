"""One file's committed versions, newest first: for the rare question the one pass over history does
not answer (what a knob's value was before a change its record does not date with a value).

One `git log --follow` for the file's mainline commits (renames followed) and one `git cat-file
--batch` process for their contents, read lazily so a caller that finds its answer early stops
git early. Outside a repository, or for a file git does not know, there are none. Knows nothing of
records; judges nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from .gitio import NotARepository, iter_blobs, open_repository, repository_state
from ..records.yaml_source import MAX_BYTES

try:
    from git.exc import GitCommandError
except ImportError:  # pragma: no cover - only on a machine without git (open_repository says so)
    GitCommandError = OSError  # type: ignore[assignment,misc]


def committed_versions(root: Path, rel_path: str) -> Iterator[bytes]:
    """The contents of `rel_path` (relative to `root`) as committed on the mainline up to HEAD, newest
    first, following renames."""
    try:
        with open_repository(root) as repo:
            state = repository_state(repo, root)
            if state.head is None:
                return
            out = repo.git.log("--first-parent", "--follow", "--no-color", "--format=%x01%H", "--name-only", "-z",
                               state.head, "--", state.prefix + rel_path, stdout_as_string=False)
            names = []
            for chunk in out.decode("utf-8", "surrogateescape").split("\x01")[1:]:
                commit, _, rest = chunk.partition("\0")
                path = rest.strip("\n\0").split("\0")[0]
                if commit and path:
                    names.append(f"{commit}:{path}")
            for _, content in iter_blobs(repo, names, limit=MAX_BYTES):
                if isinstance(content, bytes):  # a version over a record's size limit is no record to read
                    yield content
    except (NotARepository, GitCommandError):
        return
