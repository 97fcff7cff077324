"""`kb report [--format markdown|json] [--today DATE]`: what needs action, with its owners, for a
scheduled issue (the kb-report workflow `kb init` writes). Exit 0 whatever it lists: the report
informs, the PR check is what fails.
"""

from __future__ import annotations

import argparse
import sys

from ..check.formats import displayable
from .check import add_today
from .command import Command, add_root, root_of

REPORT_FORMATS = ("markdown", "json")


def _arguments(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    parser.add_argument("--format", choices=REPORT_FORMATS, default="markdown",
                        help="markdown (an issue's body) or json")
    parser.add_argument("--allow-shallow", action="store_true",
                        help="report from a shallow clone with the history it has, instead of refusing")
    add_today(parser)


def run_report(args: argparse.Namespace) -> int:
    from ..check.pipeline import CheckMode, check_knowledge_base
    from ..check.report import build_report, format_report_json, format_report_markdown

    kb = check_knowledge_base(root_of(args), CheckMode(args.today, args.allow_shallow))
    for note in kb.notes:
        print(f"kb: {displayable(note)}", file=sys.stderr)
    report = build_report(kb)
    sys.stdout.write(format_report_json(report) if args.format == "json" else format_report_markdown(report))
    return 0


REPORT = Command(("report",), "what needs action (knobs to restore, overdue reverts, unverified restores, "
                              "stale docs), each with its owners: for a scheduled issue", _arguments, run_report)
