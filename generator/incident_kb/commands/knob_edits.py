"""The commands that change a knob: `kb revert` (as the test of a hypothesis), `kb restore`,
`kb set` (a new value), `kb retire` and `kb measurement add`."""

from __future__ import annotations

import argparse
from pathlib import Path

from ..findings import KbError
from ..measuring.benchmarks.samples import FORMATS
from .argument_types import field_pair, number, pair, scalar, today_unless, when
from .command import Command, add_root, root_of
from .edit_output import run_edit


def _revert_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("knob")
    parser.add_argument("--incident", required=True)
    parser.add_argument("--hypothesis", required=True, help="the hypothesis the revert tests")
    parser.add_argument("--note", help="why, in a sentence")
    parser.add_argument("--date", type=when, help="when (default: today)")
    parser.add_argument("--review-by", type=when, metavar="DATE",
                        help="settle the hypothesis by then: after it, kb check reports revert-overdue while the "
                             "hypothesis is open (default: revert-overdue-days after the revert)")
    add_root(parser)


def run_revert(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.revert(root_of(args), args.knob, args.incident, args.hypothesis,
                                        today_unless(args.date), args.note, args.review_by))


def _set_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("knob")
    parser.add_argument("value", type=scalar, help="the new tuned value (the current one, with --note, records why "
                                                    "it stays)")
    parser.add_argument("--note", help="why, in a sentence")
    parser.add_argument("--incident", help="the incident the change was made for, if any")
    parser.add_argument("--hypothesis", help="the hypothesis (of that incident) the change acted on, if any")
    parser.add_argument("--date", type=when, help="when (default: today)")
    add_root(parser)


def run_set(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.set_value(root_of(args), args.knob, args.value, today_unless(args.date),
                                                      args.note, args.incident, args.hypothesis))


def _retire_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("knob")
    parser.add_argument("--note", help="why, in a sentence")
    parser.add_argument("--date", type=when, help="when (default: today)")
    add_root(parser)


def run_retire(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.retire(root_of(args), args.knob, today_unless(args.date), args.note))


def _restore_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("knob")
    parser.add_argument("--note", help="why, in a sentence")
    parser.add_argument("--date", type=when, help="when (default: today)")
    add_root(parser)


def run_restore(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.restore(root_of(args), args.knob, today_unless(args.date), args.note))


def _measurement_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("knob")
    parser.add_argument("--metric", required=True, help="what was measured, e.g. 'output throughput'")
    parser.add_argument("--delta-pct", type=number, help="the change in percent (or give --baseline and --value)")
    parser.add_argument("--baseline", type=number, help="the metric without the tuned value")
    parser.add_argument("--value", type=number, help="the metric with the tuned value")
    parser.add_argument("--unit", help="unit of baseline and value, e.g. tok/s")
    parser.add_argument("--condition", action="append", default=[], type=pair, metavar="KEY=VALUE",
                        help="a condition of the measurement, e.g. concurrency=64 (repeatable)")
    parser.add_argument("--lower-is-better", action="store_true", help="for metrics such as latency")
    parser.add_argument("--setting", type=scalar, metavar="VALUE",
                        help="the knob's value that was measured (default: the value it had on --date)")
    parser.add_argument("--baseline-setting", type=scalar, metavar="VALUE",
                        help="the value it was compared with (default: the knob's default)")
    parser.add_argument("--date", type=when, help="when it was measured (default: today)")
    parser.add_argument("--evidence", help="path or URL of the benchmark output")
    parser.add_argument("--note", help="anything a reader needs to interpret the number")
    add_root(parser)


def run_measurement_add(args: argparse.Namespace) -> int:
    if (args.delta_pct is None) == (args.baseline is None or args.value is None):
        raise KbError("give either --delta-pct, or --baseline and --value")
    from ..measuring.measurements import add_measurement

    return run_edit(args, lambda acts: add_measurement(
        root_of(args), args.knob, args.metric, delta_pct=args.delta_pct, baseline=args.baseline, value=args.value,
        unit=args.unit, conditions=dict(args.condition), higher_is_better=not args.lower_is_better,
        when=today_unless(args.date), evidence=args.evidence, note=args.note, setting=args.setting,
        baseline_setting=args.baseline_setting))


def _import_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("knob")
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="benchmark outputs (with --baseline/--candidate labels inside them)")
    parser.add_argument("--metric", required=True,
                        help="the field or column to import (e.g. output_throughput); for hyperfine and "
                             "pytest-benchmark, the name of what their times measure (e.g. 'wall time')")
    parser.add_argument("--format", choices=FORMATS, help="the tool that wrote the files (default: recognised)")
    parser.add_argument("--baseline", metavar="LABEL", help="the baseline's runs: a hyperfine command, a "
                        "pytest-benchmark name, SGLang's tag, vLLM's label, a CSV label, or FIELD=VALUE")
    parser.add_argument("--candidate", metavar="LABEL", help="the tuned value's runs, labelled the same way")
    parser.add_argument("--baseline-file", type=Path, metavar="FILE", help="a file of baseline runs only")
    parser.add_argument("--candidate-file", type=Path, metavar="FILE", help="a file of the tuned value's runs only")
    parser.add_argument("--condition", action="append", default=[], type=field_pair, metavar="KEY=FIELD",
                        help="a condition read from each run's FIELD, e.g. concurrency=max_concurrency "
                             "(repeatable): one measurement per value")
    parser.add_argument("--setting", type=scalar, metavar="VALUE",
                        help="the knob's value that was measured (default: its current value)")
    parser.add_argument("--baseline-setting", type=scalar, metavar="VALUE",
                        help="the value it was compared with (default: the knob's default)")
    parser.add_argument("--unit", help="unit of the metric (default: the tool's, e.g. s, tok/s, ms)")
    direction = parser.add_mutually_exclusive_group()
    direction.add_argument("--lower-is-better", dest="higher_is_better", action="store_false", default=None,
                           help="the metric improves as it goes down (default: from the tool and the metric's name)")
    direction.add_argument("--higher-is-better", dest="higher_is_better", action="store_true")
    parser.add_argument("--date", type=when, help="when it was measured (default: the files' date, else today)")
    parser.add_argument("--host", help="where it was measured (default: what the file says)")
    parser.add_argument("--software", help="the version or commit measured (default: what the file says)")
    parser.add_argument("--command", help="the benchmark invocation (default: what the file says)")
    parser.add_argument("--note", help="anything a reader needs to interpret the numbers")
    add_root(parser)


def run_measurement_import(args: argparse.Namespace) -> int:
    from ..measuring.measurements import ImportRequest, import_measurements

    request = ImportRequest(
        args.knob, args.metric, tuple(args.files), args.format, args.baseline, args.candidate, args.baseline_file,
        args.candidate_file, tuple(args.condition), args.setting, args.baseline_setting, args.unit,
        args.higher_is_better, args.date, args.host, args.software, args.command, args.note)
    return run_edit(args, lambda acts: import_measurements(root_of(args), request))


COMMANDS = (
    Command(("revert",), "record a knob reverted to test a hypothesis", _revert_arguments, run_revert),
    Command(("restore",), "record a reverted knob restored", _restore_arguments, run_restore),
    Command(("set",), "record a new value for a knob (deploy lines to change are listed)", _set_arguments, run_set),
    Command(("retire",), "record a knob retired (no longer deployed)", _retire_arguments, run_retire),
    Command(("measurement", "add"), "add a measured gain to a knob", _measurement_arguments, run_measurement_add),
    Command(("measurement", "import"), "add measurements from benchmark outputs (SGLang, vLLM, hyperfine, "
            "pytest-benchmark, CSV)", _import_arguments, run_measurement_import),
)
