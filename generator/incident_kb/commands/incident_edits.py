"""The commands that write an incident as it unfolds: `kb hypothesis add`, `kb evidence add`,
`kb refute`, `kb confirm`, `kb timeline add`, `kb follow-up add`, `kb follow-up done` and
`kb lesson add`."""

from __future__ import annotations

import argparse

from ..records.vocabulary import EvidenceKind, Stance
from .argument_types import today_unless, when
from .command import Command, add_root, root_of
from .edit_output import run_edit


def _hypothesis_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("incident")
    parser.add_argument("hypothesis", help="its id, e.g. target-ctas-causes-hang")
    parser.add_argument("--statement", required=True, help="the suspected cause, as a claim evidence can refute")
    parser.add_argument("--suspect-knob", metavar="KNOB", help="the knob it blames, if any")
    add_root(parser)


def run_hypothesis_add(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.add_hypothesis(root_of(args), args.incident, args.hypothesis,
                                                           args.statement, args.suspect_knob))


def _evidence_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("incident")
    parser.add_argument("hypothesis")
    parser.add_argument("--kind", required=True, choices=[k.value for k in EvidenceKind])
    parser.add_argument("--stance", required=True, choices=[s.value for s in Stance])
    parser.add_argument("--text", required=True, help="what was seen or done")
    parser.add_argument("--date", type=when, help="when (default: today)")
    add_root(parser)


def run_evidence_add(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.add_evidence(root_of(args), args.incident, args.hypothesis, args.kind,
                                                         args.stance, args.text, today_unless(args.date)))


def _verdict_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("incident")
    parser.add_argument("hypothesis")


def _refute_arguments(parser: argparse.ArgumentParser) -> None:
    _verdict_arguments(parser)
    parser.add_argument("--date", type=when, help="when it was refuted (written as the hypothesis's 'decided:')")
    add_root(parser)


def run_refute(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.refute(root_of(args), args.incident, args.hypothesis, args.date))


def _confirm_arguments(parser: argparse.ArgumentParser) -> None:
    _verdict_arguments(parser)
    parser.add_argument("--root-cause", action="store_true", help="make it the incident's root cause")
    parser.add_argument("--summary", help="the root cause in a few sentences (implies --root-cause)")
    parser.add_argument("--resolve", action="store_true", help="also resolve the incident (implies --root-cause)")
    parser.add_argument("--date", type=when,
                        help="when it was confirmed (written as the hypothesis's 'decided:'); "
                             "with --resolve also when the incident was resolved (default: today)")
    add_root(parser)


def run_confirm(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.confirm(root_of(args), args.incident, args.hypothesis,
                                                    root_cause=args.root_cause, summary=args.summary, when=args.date,
                                                    resolve_on=today_unless(args.date) if args.resolve else None))


def _timeline_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("incident")
    parser.add_argument("--event", required=True, help="what happened")
    parser.add_argument("--at", type=when, help="when (default: today)")
    add_root(parser)


def run_timeline_add(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.add_timeline_event(root_of(args), args.incident, today_unless(args.at),
                                                               args.event))


def _follow_up_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("incident")
    parser.add_argument("--action", required=True, help="what must be done")
    parser.add_argument("--knob", help="the knob it concerns, if any")
    parser.add_argument("--owner", help="who does it")
    parser.add_argument("--done", action="store_true", help="it is already done")
    add_root(parser)


def run_follow_up_add(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.add_follow_up(root_of(args), args.incident, args.action, done=args.done,
                                               knob=args.knob, owner=args.owner))


def _follow_up_done_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("incident")
    parser.add_argument("follow_up", metavar="INDEX_OR_TEXT",
                        help="its number as listed (1 for the first), or its action's text (or a part only it has)")
    add_root(parser)


def run_follow_up_done(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.follow_up_done(root_of(args), args.incident, args.follow_up))


def _lesson_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("incident")
    parser.add_argument("lesson", help="what to do differently")
    add_root(parser)


def run_lesson_add(args: argparse.Namespace) -> int:
    return run_edit(args, lambda acts: acts.add_lesson(root_of(args), args.incident, args.lesson))


COMMANDS = (
    Command(("hypothesis", "add"), "add an open hypothesis to an incident", _hypothesis_arguments, run_hypothesis_add),
    Command(("evidence", "add"), "add evidence for or against a hypothesis", _evidence_arguments, run_evidence_add),
    Command(("refute",), "mark a hypothesis refuted", _refute_arguments, run_refute),
    Command(("confirm",), "mark a hypothesis confirmed; optionally the root cause, resolved", _confirm_arguments,
            run_confirm),
    Command(("timeline", "add"), "add an event to an incident's timeline", _timeline_arguments, run_timeline_add),
    Command(("follow-up", "add"), "add a follow-up action to an incident", _follow_up_arguments, run_follow_up_add),
    Command(("follow-up", "done"), "mark a follow-up of an incident done", _follow_up_done_arguments,
            run_follow_up_done),
    Command(("lesson", "add"), "add a lesson to an incident", _lesson_arguments, run_lesson_add),
)
