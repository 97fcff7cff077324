"""The `kb` command: a thin layer from arguments to the pipeline and back to an exit code.

Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 the tool could not run.
Each subcommand is a parser plus a `run(args) -> int` function, attached with set_defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .authoring import commands as edit
from .checking.baseline import check_at_base, mark_pre_existing
from .findings import CODES, KbError, Severity
from .pipeline import KnowledgeBase, check_knowledge_base, find_root, finalize, load_knowledge_base
from .checking.formats import FORMATS, format_github_summary
from .authoring.scaffold import allowed_values
from .records.schema import RECORD_TYPES, EvidenceKind, IncidentStatus, Knob, KnobStatus, Stance, json_schema


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise KbError(f"{message} (see '{self.prog} --help')")


def add_root(sub: argparse.ArgumentParser) -> None:
    sub.add_argument("--root", type=Path, default=None,
                     help="the knowledge base's repository (default: the one containing the current folder)")


def root_of(args: argparse.Namespace) -> Path:
    return args.root if args.root is not None else find_root(Path.cwd())


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="kb", description="Check and render a knowledge base of knobs and incidents.")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    validate = commands.add_parser("validate", help="check the records against the schema and each other")
    add_root(validate)
    validate.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    validate.set_defaults(run=run_validate)

    check = commands.add_parser("check", help="validate, then apply the rules (reclaimable knobs, drift...)")
    add_root(check)
    check.add_argument("--format", choices=sorted(FORMATS), default="text",
                       help="output format (with github, a summary of all findings also goes to $GITHUB_STEP_SUMMARY)")
    check.add_argument("--base", metavar="REF", default=None,
                       help="PR mode: findings that already existed at commit REF are reported as pre-existing "
                            "and do not fail the run")
    check.add_argument("--allow-shallow", action="store_true",
                       help="check a shallow clone with the history it has, instead of refusing")
    check.set_defaults(run=run_check)

    schema = commands.add_parser("schema", help="print the JSON Schema of a record kind")
    schema.add_argument("kind", choices=sorted(RECORD_TYPES))
    schema.set_defaults(run=run_schema)

    codes = commands.add_parser("codes", help="list the finding codes and their default severities")
    codes.set_defaults(run=run_codes)

    new = commands.add_parser("new", help="scaffold a knob or incident record, every field commented")
    new_kinds = new.add_subparsers(dest="kind", required=True, parser_class=_Parser)
    new_knob = new_kinds.add_parser("knob", help="a new knob record")
    new_knob.add_argument("id", help="the knob's id (its file name), e.g. sglang-sm120-mma-target-ctas")
    new_knob.add_argument("--name", required=True, help="the setting as written in config")
    new_knob.add_argument("--summary", required=True, help="one line: what the setting does")
    new_knob.add_argument("--value", required=True, type=edit.scalar, help="the tuned value")
    new_knob.add_argument("--status", choices=[s.value for s in KnobStatus], default="active")
    new_knob.add_argument("--date", type=edit.when, help="when it took that status (default: today)")
    new_knob.add_argument("--note", help="why, in a sentence (the first history entry's note)")
    new_knob.add_argument("--kind", choices=allowed_values(Knob.model_fields["kind"].annotation), help="how the setting is applied")
    new_knob.add_argument("--component", help="the component it tunes, e.g. decode")
    new_knob.add_argument("--default", type=edit.scalar, help="the value when the setting is not given")
    new_knob.add_argument("--description", help="markdown: what it does and why this value")
    new_knob.add_argument("--tag", action="append", default=[], help="a tag (repeatable)")
    new_knob.add_argument("--owner", action="append", default=[], help="an owner (repeatable)")
    new_knob.add_argument("--scope", action="append", default=[], type=edit.pair, metavar="KEY=VALUE",
                          help="where it applies, e.g. model=DeepSeek-V4-Flash (repeatable)")
    new_knob.add_argument("--doc", action="append", default=[], help="a doc about it (repeatable)")
    new_knob.add_argument("--applies-to", action="append", default=[], metavar="PATH[:PATTERN]",
                          help="a deploy file that sets it, with a pattern matching the tuned value "
                               "(default for env: '^\\s*(export\\s+)?NAME=VALUE\\b'; repeatable)")
    add_root(new_knob)
    new_knob.set_defaults(run=edit.run_new_knob)
    new_incident = new_kinds.add_parser("incident", help="a new incident record")
    new_incident.add_argument("id", help="the incident's id (its file name), e.g. multi-round-harness-hang")
    new_incident.add_argument("--title", required=True, help="one line")
    new_incident.add_argument("--status", choices=[s.value for s in IncidentStatus], default="open")
    new_incident.add_argument("--started", type=edit.when, help="when the symptoms began (default: today)")
    new_incident.add_argument("--severity", help="on your scale, e.g. sev2")
    new_incident.add_argument("--summary", help="markdown summary")
    new_incident.add_argument("--system", action="append", default=[], help="a system involved (repeatable)")
    new_incident.add_argument("--symptom", action="append", default=[], help="what was seen (repeatable)")
    new_incident.add_argument("--doc", action="append", default=[], help="a doc about it (repeatable)")
    add_root(new_incident)
    new_incident.set_defaults(run=edit.run_new_incident)

    hypothesis = _group(commands, "hypothesis", "a hypothesis to an incident").add_parser(
        "add", help="add an open hypothesis to an incident")
    hypothesis.add_argument("incident")
    hypothesis.add_argument("hypothesis", help="its id, e.g. target-ctas-causes-hang")
    hypothesis.add_argument("--statement", required=True, help="the suspected cause, as a claim evidence can refute")
    hypothesis.add_argument("--suspect-knob", metavar="KNOB", help="the knob it blames, if any")
    add_root(hypothesis)
    hypothesis.set_defaults(run=edit.run_hypothesis_add)

    evidence = _group(commands, "evidence", "evidence for or against a hypothesis").add_parser(
        "add", help="add evidence for or against a hypothesis")
    evidence.add_argument("incident")
    evidence.add_argument("hypothesis")
    evidence.add_argument("--kind", required=True, choices=[k.value for k in EvidenceKind])
    evidence.add_argument("--stance", required=True, choices=[s.value for s in Stance])
    evidence.add_argument("--text", required=True, help="what was seen or done")
    evidence.add_argument("--date", type=edit.when, help="when (default: today)")
    add_root(evidence)
    evidence.set_defaults(run=edit.run_evidence_add)

    refute = commands.add_parser("refute", help="mark a hypothesis refuted")
    refute.add_argument("incident")
    refute.add_argument("hypothesis")
    add_root(refute)
    refute.set_defaults(run=edit.run_refute)

    confirm = commands.add_parser("confirm", help="mark a hypothesis confirmed; optionally the root cause, resolved")
    confirm.add_argument("incident")
    confirm.add_argument("hypothesis")
    confirm.add_argument("--root-cause", action="store_true", help="make it the incident's root cause")
    confirm.add_argument("--summary", help="the root cause in a few sentences (implies --root-cause)")
    confirm.add_argument("--resolve", action="store_true", help="also resolve the incident (implies --root-cause)")
    confirm.add_argument("--date", type=edit.when, help="when it was resolved (default: today)")
    add_root(confirm)
    confirm.set_defaults(run=edit.run_confirm)

    revert = commands.add_parser("revert", help="record a knob reverted to test a hypothesis")
    revert.add_argument("knob")
    revert.add_argument("--incident", required=True)
    revert.add_argument("--hypothesis", required=True, help="the hypothesis the revert tests")
    revert.add_argument("--note", help="why, in a sentence")
    revert.add_argument("--date", type=edit.when, help="when (default: today)")
    add_root(revert)
    revert.set_defaults(run=edit.run_revert)

    restore = commands.add_parser("restore", help="record a reverted knob restored")
    restore.add_argument("knob")
    restore.add_argument("--note", help="why, in a sentence")
    restore.add_argument("--date", type=edit.when, help="when (default: today)")
    add_root(restore)
    restore.set_defaults(run=edit.run_restore)

    measurement = _group(commands, "measurement", "a measured gain to a knob").add_parser(
        "add", help="add a measured gain to a knob")
    measurement.add_argument("knob")
    measurement.add_argument("--metric", required=True, help="what was measured, e.g. 'output throughput'")
    measurement.add_argument("--delta-pct", type=edit.number, help="the change in percent (or give --baseline and --value)")
    measurement.add_argument("--baseline", type=edit.number, help="the metric without the tuned value")
    measurement.add_argument("--value", type=edit.number, help="the metric with the tuned value")
    measurement.add_argument("--unit", help="unit of baseline and value, e.g. tok/s")
    measurement.add_argument("--condition", action="append", default=[], type=edit.pair, metavar="KEY=VALUE",
                             help="a condition of the measurement, e.g. concurrency=64 (repeatable)")
    measurement.add_argument("--lower-is-better", action="store_true", help="for metrics such as latency")
    measurement.add_argument("--date", type=edit.when, help="when it was measured (default: today)")
    measurement.add_argument("--evidence", help="path or URL of the benchmark output")
    measurement.add_argument("--note", help="anything a reader needs to interpret the number")
    add_root(measurement)
    measurement.set_defaults(run=edit.run_measurement_add)

    timeline = _group(commands, "timeline", "an event to an incident's timeline").add_parser(
        "add", help="add an event to an incident's timeline")
    timeline.add_argument("incident")
    timeline.add_argument("--event", required=True, help="what happened")
    timeline.add_argument("--at", type=edit.when, help="when (default: today)")
    add_root(timeline)
    timeline.set_defaults(run=edit.run_timeline_add)

    follow_up = _group(commands, "follow-up", "a follow-up action to an incident").add_parser(
        "add", help="add a follow-up action to an incident")
    follow_up.add_argument("incident")
    follow_up.add_argument("--action", required=True, help="what must be done")
    follow_up.add_argument("--knob", help="the knob it concerns, if any")
    follow_up.add_argument("--owner", help="who does it")
    follow_up.add_argument("--done", action="store_true", help="it is already done")
    add_root(follow_up)
    follow_up.set_defaults(run=edit.run_follow_up_add)

    lesson = _group(commands, "lesson", "a lesson to an incident").add_parser("add", help="add a lesson to an incident")
    lesson.add_argument("incident")
    lesson.add_argument("lesson", help="what to do differently")
    add_root(lesson)
    lesson.set_defaults(run=edit.run_lesson_add)

    fmt = commands.add_parser("fmt", help="put records in canonical shape (key order, quotes), keeping comments")
    fmt.add_argument("files", nargs="*", type=Path, metavar="FILE", help="record files (default: all records)")
    fmt.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    add_root(fmt)
    fmt.set_defaults(run=edit.run_fmt)

    render = commands.add_parser("render", help="write the site's generated pages to a folder (what the "
                                                "mkdocs build generates, for any markdown site generator)")
    add_root(render)
    render.add_argument("--out", type=Path, required=True, help="the folder to write the pages into")
    render.set_defaults(run=run_render)
    return parser


def _group(commands: argparse._SubParsersAction[_Parser], name: str, what: str) -> argparse._SubParsersAction[_Parser]:
    """`kb NAME add ...`: a command whose only verb (so far) is 'add'."""
    group = commands.add_parser(name, help=f"'{name} add': add {what}")
    verbs: argparse._SubParsersAction[_Parser] = group.add_subparsers(dest="verb", required=True, parser_class=_Parser)
    return verbs


def main(argv: Sequence[str] | None = None) -> int:
    try:
        args = build_parser().parse_args(argv)
        return int(args.run(args))
    except KbError as exc:
        print(f"kb: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


def run_validate(args: argparse.Namespace) -> int:
    kb = load_knowledge_base(root_of(args))
    kb.findings = finalize(kb)
    return _report(kb, args.format)


def run_check(args: argparse.Namespace) -> int:
    root = root_of(args)
    if args.base is not None:  # first, so a missing base stops the run before anything is printed
        commit, base = check_at_base(root, args.base, allow_shallow=args.allow_shallow)
    kb = check_knowledge_base(root, allow_shallow=args.allow_shallow)
    for note in kb.notes:
        print(f"kb: {note}", file=sys.stderr)
    after = ""
    if args.base is not None:
        kb.findings, pre_existing = mark_pre_existing(kb.findings, base, args.base)
        where = args.base if commit.startswith(args.base) else f"{args.base} ({commit[:7]})"
        after = f"; {pre_existing} finding{'s' * (pre_existing != 1)} pre-existing at {where} do not fail the run"
    code = _report(kb, args.format, after)
    if args.format == "github" and os.environ.get("GITHUB_STEP_SUMMARY"):
        with open(os.environ["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as summary:
            summary.write(format_github_summary(kb.findings, _summary(kb) + after))
    return code


def run_schema(args: argparse.Namespace) -> int:
    print(json.dumps(json_schema(args.kind), indent=2))
    return 0


def run_codes(args: argparse.Namespace) -> int:
    for code in CODES.values():
        print(f"{code.slug:26} {code.severity.value:8} {code.meaning}")
    return 0


def run_render(args: argparse.Namespace) -> int:
    # Imported here so that `kb check`, the PR check, does not load the site's dependencies.
    from .website.output_folder import write_rendered_site

    root = root_of(args)
    written, findings = write_rendered_site(root, args.out)
    shown = f"; {findings} finding{'s' * (findings != 1)} of kb check shown on the pages" if findings else ""
    print(f"kb render: wrote {written} files to {args.out}{shown}")
    return 0


def _summary(kb: KnowledgeBase) -> str:
    catalog = kb.catalog
    knobs = len(catalog.knobs) + len(catalog.broken_ids["knob"])
    incidents = len(catalog.incidents) + len(catalog.broken_ids["incident"])
    return f"{knobs} knob{'s' * (knobs != 1)}, {incidents} incident{'s' * (incidents != 1)} checked"


def _report(kb: KnowledgeBase, output_format: str, after: str = "") -> int:
    sys.stdout.write(FORMATS[output_format](kb.findings, _summary(kb) + after))
    return 1 if any(f.severity is Severity.ERROR for f in kb.findings) else 0


if __name__ == "__main__":
    sys.exit(main())
