"""`kb org check`: every knowledge base of the organisation (the org site's `knowledge_bases:`),
checked together, `NAME:ID` references resolved among them. Output and exit codes as `kb check`'s:
0 no errors, 1 errors found, 2 the tool could not run (no configuration), 3 kb crashed.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from ..check.formats import FORMATS
from ..check.memo import Result
from .check import add_today, print_result
from .command import Command


def _org_check_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--config", type=Path, default=None, metavar="FILE",
                        help="the org site's mkdocs.yml or properdocs.yml, whose incident-kb plugin lists "
                             "knowledge_bases: (default: the one in the current folder)")
    parser.add_argument("--format", choices=sorted(FORMATS), default="text",
                        help="output format (with github, a summary of all findings also goes to $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--allow-shallow", action="store_true",
                        help="check a knowledge base in a shallow clone with the history it has, instead of refusing")
    add_today(parser)


def run_org_check(args: argparse.Namespace) -> int:
    from ..org.configuration import find_org_config, read_org_config
    from ..org.organisation import check_organisation

    config_path = Path(os.path.realpath(args.config)) if args.config is not None else find_org_config(Path.cwd())
    config = read_org_config(config_path)
    assert config is not None  # required: KbError when it configures none
    organisation = check_organisation(config, today=args.today, allow_shallow=args.allow_shallow)
    return print_result(Result(organisation.findings, organisation.summary, organisation.notes), args.format)


COMMANDS = (
    Command(("org", "check"), "check every knowledge base of the org site together, NAME:ID references resolved",
            _org_check_arguments, run_org_check),
)
