"""One file's committed versions, newest first: for the rare question the one pass over history does
not answer (what a knob's value was before a change its record does not date with a value).

One `git log --follow` for the file's mainline commits (renames followed) and one `git cat-file
--batch` process for their contents, read lazily so a caller that finds its answer early stops
git early. Outside a repository, or for a file git does not know, there are none. Knows nothing of
records; judges nothing.

Whoever asks here makes its answer depend on git's history, not only on the files: while
`consultations_recorded()` is active each file asked about is written down, so a remembered check
knows which findings to decide again when git's view moves (`recheck`).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_recorders: list[set[str]] = []
_sources: list[tuple[Path, str | None]] = []  # (repository folder, commit) standing for the root's files


@contextmanager
def versions_from(repo_folder: Path, rev: str | None) -> Iterator[None]:
    """Inside the block, versions are those of the repository holding `repo_folder` up to `rev`
    (default: its HEAD), whose files the checked root stands for: PR and pre-commit modes check a
    temporary copy, and its records' old versions are in the repository it was copied from."""
    _sources.append((repo_folder, rev))
    try:
        yield
    finally:
        _sources.pop()


@contextmanager
def consultations_recorded() -> Iterator[set[str]]:
    """The files (relative to the root) whose committed versions were asked for inside the block."""
    consulted: set[str] = set()
    _recorders.append(consulted)
    try:
        yield consulted
    finally:
        _recorders.remove(consulted)


def committed_versions(root: Path, rel_path: str) -> Iterator[bytes]:
    """The contents of `rel_path` (relative to `root`) as committed on the mainline up to HEAD, newest
    first, following renames."""
    for consulted in _recorders:
        consulted.add(rel_path)
    # git's library is imported when a version is asked for, not with this module (the pipeline
    # imports it for the recorder, and a re-check that needs no git imports none).
    from ..records.yaml_source import MAX_BYTES
    from .gitio import NotARepository, iter_blobs, open_repository, repository_state, resolve_commit

    try:
        from git.exc import GitCommandError
    except ImportError:  # pragma: no cover - only on a machine without git (open_repository says so)
        GitCommandError = OSError  # type: ignore[assignment,misc]
    folder, rev = _sources[-1] if _sources else (root, None)
    try:
        with open_repository(folder) as repo:
            state = repository_state(repo, folder)
            head = state.head if rev is None else resolve_commit(repo, rev)
            if head is None:
                return
            out = repo.git.log("--first-parent", "--follow", "--no-color", "--format=%x01%H", "--name-only", "-z",
                               head, "--", state.prefix + rel_path, stdout_as_string=False)
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
