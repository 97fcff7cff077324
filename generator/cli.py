"""The `kb` command: mounts the commands each stage declares, runs one, and turns the one error
that stops the tool into a line on stderr and exit 2.

Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 the tool could not run.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from . import __version__, check_commands
from .authoring import commands as authoring_commands
from .authoring.init import INIT
from .command import Command, Parser
from .findings import KbError
from .website.render_command import RENDER

COMMANDS: tuple[Command, ...] = (
    INIT,
    *check_commands.COMMANDS,
    *authoring_commands.COMMANDS,
    RENDER,
)


def build_parser(commands: Sequence[Command] = COMMANDS) -> argparse.ArgumentParser:
    parser = Parser(prog="kb", description="Check and render a knowledge base of knobs and incidents.")
    parser.add_argument("--version", action="version", version=f"kb (incident-kb) {__version__}")
    top = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    groups: dict[str, argparse._SubParsersAction[Parser]] = {}
    for command in commands:  # in declaration order; a group ('hypothesis add') where its first verb is
        where = top
        if len(command.words) > 1:
            group = command.words[0]
            if group not in groups:
                verbs = [c for c in commands if c.words[0] == group]
                about = "; ".join(f"'{' '.join(c.words)}': {c.help}" for c in verbs)
                groups[group] = top.add_parser(group, help=about).add_subparsers(dest="verb", required=True,
                                                                                 parser_class=Parser)
            where = groups[group]
        sub = where.add_parser(command.words[-1], help=command.help)
        command.arguments(sub)
        sub.set_defaults(run=command.run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except KbError as exc:
        print(f"kb: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
