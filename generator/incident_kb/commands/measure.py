"""`kb measure KNOB --metric NAME --command CMD ...`: run the A/B benchmark of a knob and record it
(interface: its options are used by checks outside this repository)."""

from __future__ import annotations

import argparse
import re
import sys

from ..findings import KbError
from .argument_types import pair, scalar
from .command import Command, add_root, root_of
from .edit_output import run_edit


def _count(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number, e.g. 5") from None


def _pattern(text: str) -> re.Pattern[str]:
    try:
        compiled = re.compile(text)
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"{text!r} is not a regular expression ({exc})") from None
    if compiled.groups < 1:
        raise argparse.ArgumentTypeError(f"{text!r} has no group: the first group is the number, e.g. "
                                         r"'throughput: ([0-9.]+)'")
    return compiled


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("knob")
    parser.add_argument("--metric", required=True, help="what is measured, e.g. 'wall time' or 'output throughput'")
    parser.add_argument("--command", required=True, metavar="CMD",
                        help="the benchmark, run by the shell; it gets the setting as the environment variable the "
                             "knob's name names, and {value} in CMD is replaced by the value, shell-quoted")
    parser.add_argument("--runs", type=_count, default=5, help="measured runs of each side (default 5)")
    parser.add_argument("--warmup", type=_count, default=1, help="warm-up runs of each side, discarded (default 1)")
    parser.add_argument("--baseline", type=scalar, metavar="VALUE", help="the value to compare with (default: the "
                        "knob's default)")
    parser.add_argument("--candidate", type=scalar, metavar="VALUE", help="the value measured (default: the knob's "
                        "tuned value)")
    read = parser.add_mutually_exclusive_group()
    read.add_argument("--parse", type=_pattern, metavar="REGEX",
                      help="read the metric from the command's output: the first group is the number "
                           "(default: the command's wall time in seconds)")
    read.add_argument("--json", metavar="FIELD", help="read the metric from the command's JSON output: a dotted "
                      "path, e.g. results.0.mean")
    parser.add_argument("--unit", help="the metric's unit, e.g. tok/s (default: s for the wall time)")
    parser.add_argument("--lower-is-better", action="store_true",
                        help="for metrics such as latency (the wall time always is)")
    parser.add_argument("--condition", action="append", default=[], type=pair, metavar="KEY=VALUE",
                        help="a condition of the measurement, e.g. concurrency=64 (repeatable)")
    parser.add_argument("--seed", type=_count, help="the seed that orders each pair of runs (default: random)")
    parser.add_argument("--dry-run", action="store_true", help="print the runs in order and write nothing")
    add_root(parser)


def run_measure(args: argparse.Namespace) -> int:
    from ..measuring.measure import MeasureRequest, describe_plan, plan_measurement, record_measurement, run_measurement
    from ..measuring.runner import Metric

    root = root_of(args)
    request = MeasureRequest(args.knob, args.metric, args.command, args.runs, args.warmup, args.baseline,
                             args.candidate, Metric(args.parse, args.json), args.unit, args.lower_is_better,
                             tuple(args.condition), args.seed)
    planned = plan_measurement(root, request)
    if args.dry_run:
        print("\n".join(describe_plan(planned, request)))
        return 0
    sides = run_measurement(planned, request, sys.stderr)
    if not sides.baseline or not sides.candidate:
        raise KbError("no measured run: nothing was written")
    return run_edit(args, lambda acts: record_measurement(root, request, planned, sides))


MEASURE = Command(("measure",), "run a knob's A/B benchmark (baseline and candidate alternating) and record it",
                  _arguments, run_measure)
