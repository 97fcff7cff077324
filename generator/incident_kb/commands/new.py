"""`kb new knob ID` and `kb new incident ID`: a new record with every field, each under a comment
from the schema (see `scaffold`)."""

from __future__ import annotations

import argparse

from ..records.vocabulary import KNOB_KINDS, IncidentStatus, KnobStatus, RecordKind
from .argument_types import pair, scalar, today_unless, when
from .command import Command, add_root, root_of
from .edit_output import run_edit


def _knob_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="the knob's id (its file name), e.g. sglang-sm120-mma-target-ctas")
    parser.add_argument("--name", required=True, help="the setting as written in config")
    parser.add_argument("--summary", required=True, help="one line: what the setting does")
    parser.add_argument("--value", required=True, type=scalar, help="the tuned value")
    parser.add_argument("--status", choices=[s.value for s in KnobStatus], default="active")
    parser.add_argument("--date", type=when, help="when it took that status (default: today)")
    parser.add_argument("--note", help="why, in a sentence (the first history entry's note)")
    parser.add_argument("--kind", choices=KNOB_KINDS,
                        help="how the setting is applied")
    parser.add_argument("--component", help="the component it tunes, e.g. decode")
    parser.add_argument("--default", type=scalar, help="the value when the setting is not given")
    parser.add_argument("--description", help="markdown: what it does and why this value")
    parser.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    parser.add_argument("--alias", action="append", default=[],
                        help="another name docs use for the setting, e.g. a short name (repeatable)")
    parser.add_argument("--owner", action="append", default=[], help="an owner (repeatable)")
    parser.add_argument("--scope", action="append", default=[], type=pair, metavar="KEY=VALUE",
                        help="where it applies, e.g. model=DeepSeek-V4-Flash (repeatable)")
    parser.add_argument("--doc", action="append", default=[], help="a doc about it (repeatable)")
    parser.add_argument("--applies-to", action="append", default=[], metavar="PATH[:PATTERN]",
                        help="a deploy file that sets it, with a pattern matching the tuned value ({name} and "
                             "{value} stand for the knob's current name and value); without one, kb check reads "
                             "the file's common forms (NAME=VALUE, YAML keys, env lists, flags...) (repeatable)")
    add_root(parser)


def run_new_knob(args: argparse.Namespace) -> int:
    from ..authoring.outcome import Outcome, entry
    from ..authoring.scaffold import create_record
    from ..authoring.yaml_emit import FlowList, Quoted
    from ..records.schema import HistoryEntry

    root = root_of(args)
    deployments = []
    for spec in args.applies_to:
        path, sep, pattern = spec.partition(":")
        deployments.append({"path": path, "pattern": Quoted(pattern)} if sep else {"path": path})
    # The first entry records the value too: a later change says what it was changed from.
    history = entry(HistoryEntry, date=today_unless(args.date), status=args.status, value=args.value, note=args.note)
    values = {"name": args.name, "summary": args.summary, "value": args.value, "status": args.status,
              "kind": args.kind, "component": args.component, "default": args.default,
              "description": args.description, "tags": FlowList(args.tag), "aliases": FlowList(args.alias),
              "owners": FlowList(args.owner),
              "scope": dict(args.scope), "docs": args.doc, "applies_to": deployments, "history": [history]}
    given = {k: v for k, v in values.items() if v is not None}
    return run_edit(args, lambda acts: Outcome(
        f"{create_record(root, RecordKind.KNOB, args.id, given)}: new knob '{args.id}' ({args.name}={args.value}, "
        f"{args.status})",
        (f"add its measured gains: kb measurement add {args.id} --metric '...' --delta-pct ... "
         "--condition KEY=VALUE",)))


def _incident_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("id", help="the incident's id (its file name), e.g. multi-round-harness-hang")
    parser.add_argument("--title", required=True, help="one line")
    parser.add_argument("--status", choices=[s.value for s in IncidentStatus], default="open")
    parser.add_argument("--started", type=when, help="when the symptoms began (default: today)")
    parser.add_argument("--severity", help="on your scale, e.g. sev2")
    parser.add_argument("--summary", help="markdown summary")
    parser.add_argument("--system", action="append", default=[], help="a system involved (repeatable)")
    parser.add_argument("--symptom", action="append", default=[], help="what was seen (repeatable)")
    parser.add_argument("--owner", action="append", default=[], help="an owner (repeatable)")
    parser.add_argument("--doc", action="append", default=[], help="a doc about it (repeatable)")
    add_root(parser)


def run_new_incident(args: argparse.Namespace) -> int:
    from ..authoring.outcome import Outcome
    from ..authoring.scaffold import create_record
    from ..authoring.yaml_emit import FlowList

    root = root_of(args)
    values = {"title": args.title, "status": args.status, "started": today_unless(args.started),
              "severity": args.severity, "summary": args.summary, "systems": args.system,
              "symptoms": args.symptom, "owners": FlowList(args.owner), "docs": args.doc}
    given = {k: v for k, v in values.items() if v is not None}
    return run_edit(args, lambda acts: Outcome(
        f"{create_record(root, RecordKind.INCIDENT, args.id, given)}: new incident '{args.id}' ({args.status})",
        (f"add what you suspect: kb hypothesis add {args.id} HYPOTHESIS --statement '...' [--suspect-knob KNOB]",)))


COMMANDS = (
    Command(("new", "knob"), "a new knob record", _knob_arguments, run_new_knob),
    Command(("new", "incident"), "a new incident record", _incident_arguments, run_new_incident),
)
