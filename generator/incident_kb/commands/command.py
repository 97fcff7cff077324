"""What a `kb` command is: its words, its arguments and the function that runs it, declared together
next to the code it runs. `cli.py` only mounts the declarations.

Also the pieces every command shares: `--root` and how it defaults, and an argument parser whose
usage errors are one line (exit 2), like every other error that stops the tool.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..findings import KbError
from ..places import ancestors, repository_top


@dataclass(frozen=True, slots=True)
class Command:
    words: tuple[str, ...]  # ("check",), or ("hypothesis", "add") for a verb of a group
    help: str
    arguments: Callable[[argparse.ArgumentParser], None]  # declares the command's own arguments
    run: Callable[[argparse.Namespace], int]  # the exit code: 0 fine, 1 findings, 2 could not run


class Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise KbError(f"{message} (see '{self.prog} --help')")


def add_root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--root", type=Path, default=None,
                        help="the knowledge base's repository (default: the one containing the current folder)")


def root_of(args: argparse.Namespace) -> Path:
    """The knowledge base's folder, spelled one way (its real, absolute path) however it was given:
    `kb check` from inside it and `kb check --root .` are the same run and print the same."""
    if args.root is not None:
        return Path(os.path.realpath(args.root))
    try:
        here = Path.cwd()
    except OSError:  # the folder kb was started in was deleted (or may no longer be read)
        raise KbError("the current folder no longer exists; cd to the knowledge base's repository, or pass "
                      "--root") from None
    return find_root(here)


def find_root(start: Path) -> Path:
    """The knowledge base containing `start`: the nearest folder with knobs/ or incidents/.

    Inside a git repository it looks no further up than the repository's top, and falls back to
    that top; so `kb check` run anywhere inside a knowledge base kept in a subfolder of a larger
    repository (`kb init kb/`) finds it. Outside one it looks no further up than $HOME, never across
    a file system's boundary and never into a folder every user may write to (a shared /tmp/knobs
    is nobody's knowledge base), and falls back to `start` itself."""
    start = start.resolve()
    top = repository_top(start)
    for folder in ancestors(start, top):
        try:
            if (folder / "knobs").is_dir() or (folder / "incidents").is_dir():
                return folder
        except OSError:  # a folder on the way that may not be searched: look further up
            continue
    return top or start
