"""The commands that write records (`kb new`, `kb hypothesis add`, `kb evidence add`, `kb refute`,
`kb confirm`, `kb revert`, `kb restore`, `kb measurement add`, `kb timeline add`, `kb follow-up
add`, `kb lesson add`, `kb fmt`): argument types, and run functions that turn parsed arguments
into authoring acts and print what they did and what else needs doing. The parsers themselves are
declared in `cli.py` with the other commands.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import date, datetime
from pathlib import Path
from typing import Any

from . import acts
from .acts import Outcome
from .record_files import Refused, write
from ..findings import KbError
from .fmt import files_to_format, format_file
from ..checking.formats import format_text
from .scaffold import create_record, default_pattern
from ..records.schema import HistoryEntry
from .yaml_emit import FlowList, Quoted
from ..records.yaml_source import parse_yaml


def _root(args: argparse.Namespace) -> Path:
    from ..cli import root_of  # cli.py imports this module, so import it on use

    return root_of(args)


def when(text: str) -> date | datetime:
    value = parse_yaml(text).value
    if not isinstance(value, date | datetime):
        raise argparse.ArgumentTypeError(f"{text!r} is not a date; give e.g. 2026-11-05 or 2026-11-05T20:25:00")
    return value


def scalar(text: str) -> Any:
    """A value typed the way YAML reads it: 512 is a number, true a flag, anything else text."""
    loaded = parse_yaml(text)
    if loaded.error is not None or isinstance(loaded.value, dict | list) or loaded.value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a single value; give e.g. 512, true or a word")
    if isinstance(loaded.value, date | datetime):
        return text  # a value that looks like a date is still the setting's text
    return loaded.value


def number(text: str) -> int | float:
    value = scalar(text)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give e.g. 12.8")
    return value


def pair(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE; give e.g. concurrency=64")
    return key.strip(), scalar(value)


def _today(value: date | datetime | None) -> date | datetime:
    return value if value is not None else date.today()


def _edit(action: Callable[[], Outcome]) -> int:
    """Run an editing act and print what it did and what else now needs doing."""
    try:
        outcome = action()
    except Refused as exc:
        print(f"kb: {exc.headline}:", file=sys.stderr)
        sys.stderr.write(format_text(exc.findings, "nothing written"))
        return 1
    print(outcome.done)
    if outcome.next_steps:
        print("What else needs doing:")
        for step in outcome.next_steps:
            print(f"  - {step}")
    if outcome.check:
        print("kb check now reports:")
        sys.stdout.write(format_text(outcome.check, "after this change"))
    return 0


def run_new_knob(args: argparse.Namespace) -> int:
    root = _root(args)
    deployments = []
    for spec in args.applies_to:
        path, sep, pattern = spec.partition(":")
        pattern = pattern if sep else default_pattern(args.kind, args.name, args.value)
        deployments.append({"path": path, "pattern": Quoted(pattern)})
    history = acts.entry(HistoryEntry, date=_today(args.date), status=args.status,
                              note=args.note)
    values = {"name": args.name, "summary": args.summary, "value": args.value, "status": args.status,
              "kind": args.kind, "component": args.component, "default": args.default,
              "description": args.description, "tags": FlowList(args.tag), "owners": FlowList(args.owner),
              "scope": dict(args.scope), "docs": args.doc, "applies_to": deployments, "history": [history]}
    return _edit(lambda: Outcome(
        f"{create_record(root, 'knob', args.id, {k: v for k, v in values.items() if v is not None})}: new knob "
        f"'{args.id}' ({args.name}={args.value}, {args.status})",
        (f"add its measured gains: kb measurement add {args.id} --metric '...' --delta-pct ... --condition KEY=VALUE",)))


def run_new_incident(args: argparse.Namespace) -> int:
    root = _root(args)
    values = {"title": args.title, "status": args.status, "started": _today(args.started), "severity": args.severity,
              "summary": args.summary, "systems": args.system, "symptoms": args.symptom, "docs": args.doc}
    return _edit(lambda: Outcome(
        f"{create_record(root, 'incident', args.id, {k: v for k, v in values.items() if v is not None})}: new "
        f"incident '{args.id}' ({args.status})",
        (f"add what you suspect: kb hypothesis add {args.id} HYPOTHESIS --statement '...' [--suspect-knob KNOB]",)))


def run_hypothesis_add(args: argparse.Namespace) -> int:
    return _edit(lambda: acts.add_hypothesis(_root(args), args.incident, args.hypothesis, args.statement,
                                                  args.suspect_knob))


def run_evidence_add(args: argparse.Namespace) -> int:
    return _edit(lambda: acts.add_evidence(_root(args), args.incident, args.hypothesis, args.kind, args.stance,
                                                args.text, _today(args.date)))


def run_refute(args: argparse.Namespace) -> int:
    return _edit(lambda: acts.refute(_root(args), args.incident, args.hypothesis))


def run_confirm(args: argparse.Namespace) -> int:
    if args.date is not None and not args.resolve:
        raise KbError("--date is the day the incident was resolved; give it with --resolve")
    return _edit(lambda: acts.confirm(_root(args), args.incident, args.hypothesis, root_cause=args.root_cause,
                                           summary=args.summary,
                                           resolve_on=_today(args.date) if args.resolve else None))


def run_revert(args: argparse.Namespace) -> int:
    return _edit(lambda: acts.revert(_root(args), args.knob, args.incident, args.hypothesis,
                                          _today(args.date), args.note))


def run_restore(args: argparse.Namespace) -> int:
    return _edit(lambda: acts.restore(_root(args), args.knob, _today(args.date), args.note))


def run_measurement_add(args: argparse.Namespace) -> int:
    if (args.delta_pct is None) == (args.baseline is None or args.value is None):
        raise KbError("give either --delta-pct, or --baseline and --value")
    return _edit(lambda: acts.add_measurement(
        _root(args), args.knob, args.metric, delta_pct=args.delta_pct, baseline=args.baseline, value=args.value,
        unit=args.unit, conditions=dict(args.condition), higher_is_better=not args.lower_is_better,
        when=_today(args.date), evidence=args.evidence, note=args.note))


def run_timeline_add(args: argparse.Namespace) -> int:
    return _edit(lambda: acts.add_timeline_event(_root(args), args.incident, _today(args.at), args.event))


def run_follow_up_add(args: argparse.Namespace) -> int:
    return _edit(lambda: acts.add_follow_up(_root(args), args.incident, args.action, done=args.done,
                                                 knob=args.knob, owner=args.owner))


def run_lesson_add(args: argparse.Namespace) -> int:
    return _edit(lambda: acts.add_lesson(_root(args), args.incident, args.lesson))


def run_fmt(args: argparse.Namespace) -> int:
    root = _root(args)
    results = [format_file(root, path) for path in files_to_format(root, args.files)]
    problems = [r.problem for r in results if r.problem is not None]
    changed = [r for r in results if r.changed]
    for result in changed:
        print(f"{'would reformat' if args.check else 'reformatted'} {result.rel_path}: {'; '.join(result.changes)}")
        if not args.check:
            assert result.record is not None and result.text is not None
            write(result.record, result.text)
    if problems:
        sys.stderr.write(format_text(problems, "cannot format these"))
    unchanged = len(results) - len(changed) - len(problems)
    verb = "would be reformatted" if args.check else "reformatted"
    print(f"{len(changed)} record{'s' * (len(changed) != 1)} {verb}, {unchanged} already formatted")
    return 1 if problems or (args.check and changed) else 0
