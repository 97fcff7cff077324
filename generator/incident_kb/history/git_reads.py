"""The files git opens on its own when kb asks it about the work tree, looked at (never read) first.

Listing untracked files, git opens the `.gitignore` of every folder it walks and the exclude files;
refreshing the index, it opens `.gitattributes`. It opens them with a plain blocking open(): a named
pipe among them makes git, and kb waiting on it, hang forever (`git status` hangs there too), and a
device is read as far as it goes. kb refuses, naming the file, before git is asked.

Checked: `.gitignore` and `.gitattributes` in the repository's top, in every folder from there down
to the folders kb reads, and in every folder under those (a nested repository is not walked: git
does not walk it either); the repository's info/exclude and info/attributes, the user's ignore
and attributes files and the system's attributes (by their status only: kb reads nothing outside
the repository). In-tree files by their own status (git opens them without following a link), the
others through links. At the repository's top, `.gitmodules`, which git opens whenever the index
holds a submodule (`git diff --cached` and `git status` too), is checked on every opening of the
repository. `.mailmap`, which `git log` would open, is never opened: kb runs git with log.mailmap
off (`git_view.GIT_SETTINGS`).
"""

from __future__ import annotations

import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..findings import KbError
from ..repository.files import folder_entries, is_folder, status
from ..repository.unreadable import kind_of

IN_TREE = (".gitignore", ".gitattributes")
AT_TOP = (".gitmodules",)


def refuse_what_git_opens_at_top(top: Path) -> None:
    """Raise KbError when a file git opens at the repository's top whatever kb asks (see the module)
    is one git would wait on forever."""
    refuse_what_git_would_wait_on(top, (), ())


def refuse_what_git_would_wait_on(top: Path, folders: Iterable[Path], git_files: Iterable[Path]) -> None:
    """Raise KbError naming the first file git would open that is not a regular file (see the module).
    `folders`: what kb asks git about, inside `top`; `git_files`: the exclude and attributes files."""
    in_tree = [*(top / name for name in AT_TOP), *_in_tree(top, folders)]
    for path, follow in [*((p, False) for p in in_tree), *((p, True) for p in git_files)]:
        found = status(path, follow_links=follow)
        if isinstance(found, str):
            continue  # missing or unreachable: git skips it too
        mode = found[0]
        if stat.S_ISFIFO(mode) or stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
            shown = path.relative_to(top) if path.is_relative_to(top) else path
            raise KbError(f"{shown}: git opens it to list untracked files, refresh its index or read submodules, and "
                          f"it is "
                          f"{kind_of(mode)}, not a regular file: git would wait on it forever (`git status` "
                          "hangs too); replace it with a regular file or remove it, and run again")


def _in_tree(top: Path, folders: Iterable[Path]) -> Iterator[Path]:
    places: set[Path] = set()
    for folder in folders:
        if not folder.is_relative_to(top):
            continue
        parts = folder.relative_to(top).parts
        places.update(top / Path(*parts[:i]) for i in range(len(parts)))  # the folders on the way
        if not is_folder(folder):
            continue
        entries = folder_entries(folder, skip_unlistable=True)  # links to folders are not followed, as git does not
        # A nested repository (a submodule too): git lists it as one entry and never walks it.
        nested = [rel.rpartition("/")[0] for rel, _ in entries if rel == ".git" or rel.endswith("/.git")]
        if "" in nested and folder != top:
            continue
        for rel, _ in entries:
            if rel.rpartition("/")[2] in IN_TREE and not any(rel.startswith(f"{n}/") for n in nested if n):
                yield folder / rel
    for place in sorted(places):
        yield from (place / name for name in IN_TREE)
