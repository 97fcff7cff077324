"""`kb render --out DIR`: the site's generated pages written to a folder, for any markdown site
generator. Declared apart from `output_folder` so that mounting it loads none of the site's
dependencies: `kb check`, the PR check, stays light.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from ..checking.formats import displayable
from ..command import Command, add_root, root_of
from ..wording import plural


def _arguments(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    parser.add_argument("--out", type=Path, required=True, help="the folder to write the pages into")


def run_render(args: argparse.Namespace) -> int:
    from .output_folder import write_rendered_site  # on use: see the module's docstring

    written, findings = write_rendered_site(root_of(args), args.out)
    shown = f"; {plural(findings, 'finding')} of kb check shown on the pages" if findings else ""
    print(displayable(f"kb render: wrote {written} files to {args.out}{shown}"))
    return 0


RENDER = Command(("render",), "write the site's generated pages to a folder (what the mkdocs build generates, "
                              "for any markdown site generator)", _arguments, run_render)
