"""`kb init [DIR] [--site mkdocs|zensical] [--merge]`: the command; what it writes is decided in
`adoption/init.py`."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..settings.config_files import SITE_GENERATORS
from .command import Command


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", nargs="?", type=Path, default=Path("."), metavar="DIR",
                        help="where the knowledge base goes (default: here); may be a subfolder of a repository")
    parser.add_argument("--site", choices=SITE_GENERATORS, default=None,
                        help="the site generator: mkdocs (or ProperDocs), with the incident-kb plugin, or zensical, "
                             "which builds the pages kb render writes (default: the one whose configuration is there, "
                             "a zensical.toml alone meaning zensical; else mkdocs)")
    parser.add_argument("--merge", action="store_true",
                        help="add the knowledge base to an existing mkdocs.yml or properdocs.yml (the plugin, search "
                             "separator, tags, nav entries) or, with --site zensical, zensical.toml (the pages' style "
                             "sheet and script under kb/ of its docs folder, nav entries...), keeping its comments and "
                             "order; without it, kb init says what to add and never changes the file")


def run_init(args: argparse.Namespace) -> int:
    from ..adoption.init import init_knowledge_base  # on use: kb check, the PR check, stays light

    done = init_knowledge_base(args.folder, args.site, args.merge)
    print("\n".join(done.lines))
    return 1 if done.errors else 0  # an error the user must fix (a Material pin), the files written


INIT = Command(("init",), "start a knowledge base: record folders, schemas, the site's configuration, the PR "
                          "workflow and a pre-commit hook (never overwrites a file)", _arguments, run_init)
