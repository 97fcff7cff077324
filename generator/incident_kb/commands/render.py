"""`kb render [--out DIR]`: the site's generated pages written to a folder, for Zensical or any
markdown site generator. Declared apart from `output` so that mounting it loads none of the site's
dependencies: `kb check`, the PR check, stays light.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..check.formats import displayable
from ..wording import plural
from .command import Command, add_root, root_of


def _arguments(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    parser.add_argument("--out", type=Path, default=None,
                        help="the folder to write the pages into (default: where the repository's Zensical set-up, "
                             "zensical.toml, expects them); inside the docs folder, the generated pages only")


def run_render(args: argparse.Namespace) -> int:
    from ..website.folder.output import write_rendered_site  # on use: see the module's docstring

    rendered = write_rendered_site(root_of(args), args.out)
    shown = f"; {plural(rendered.findings, 'finding')} of kb check shown on the pages" if rendered.findings else ""
    print(displayable(f"kb render: wrote {rendered.written} files to {rendered.out}{shown}"))
    if rendered.theme is not None:
        print(displayable(f"kb render: wrote the theme overrides to {rendered.theme}"))
    for note in rendered.notes:
        print(displayable(f"note: {note}"))
    return 0


RENDER = Command(("render",), "write the site's generated pages to a folder (what the mkdocs build generates, "
                              "for Zensical or any markdown site generator)", _arguments, run_render)
