"""The commands that read the knowledge base and report: `kb validate`, `kb check` (with PR mode),
`kb codes` and `kb schema`. Each declares its arguments beside the function that runs it.

Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 the tool could not run.
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
from collections.abc import Sequence
from datetime import date
from pathlib import Path

from ..cache import cache_enabled, cache_folder_warning
from ..check.formats import FORMATS, displayable, format_github_summary
from ..check.memo import Checked, Result, check_remembering, ledger_text
from ..check.owners import Ownership
from ..findings import CODES, Finding, KbError, Severity
from ..history.git_view import GitView
from ..records.vocabulary import RecordKind
from ..settings.reference_date import TODAY_VARIABLE, reference_date
from .command import Command, add_root, root_of

# The pipeline (pydantic models, git) is imported where a check runs, not here: `kb check` on an
# unchanged knowledge base prints its remembered result in less time than those imports take.


def _day(text: str) -> date:
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date; give e.g. 2026-11-30") from None


def add_today(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--today", type=_day, metavar="DATE", default=None,
                        help=f"the date rules count from, e.g. for revert-overdue (default: ${TODAY_VARIABLE}, "
                             "else the clock's date), so a CI run can be reproduced")


def _validate_arguments(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    parser.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format")
    add_today(parser)  # no validation depends on the date today; accepted so both commands take the same flags


def run_validate(args: argparse.Namespace) -> int:
    from ..check.pipeline import load_knowledge_base

    kb = load_knowledge_base(root_of(args))
    return _report(kb.findings, kb.summary, args.format, Ownership.of(kb))


def _check_arguments(parser: argparse.ArgumentParser) -> None:
    add_root(parser)
    parser.add_argument("--format", choices=sorted(FORMATS), default="text",
                        help="output format (with github, a summary of all findings also goes to $GITHUB_STEP_SUMMARY)")
    parser.add_argument("--base", metavar="REF", default=None,
                        help="PR mode: findings that already existed at commit REF are reported as pre-existing "
                             "and do not fail the run")
    parser.add_argument("--allow-shallow", action="store_true",
                        help="check a shallow clone with the history it has, instead of refusing")
    parser.add_argument("--staged", action="store_true",
                        help="pre-commit mode: do nothing unless the commit being made touches the knowledge base (a "
                             "record, a doc, pyproject.toml, or a file a record names, such as an applies_to file); "
                             "then check exactly what is staged (the index, not the work tree) and fail only on what "
                             "it introduces, as with --base HEAD")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also say, on stderr, each doc stale-doc leaves alone and why (history-pages, "
                             "stale-doc-exclude); runs the whole check, without the remembered result")
    add_today(parser)


def run_check(args: argparse.Namespace) -> int:
    root = root_of(args)
    warning = cache_folder_warning(root, said=True)  # said by every run, cached or cold: the same bytes
    if warning is not None:
        print(f"kb: {displayable(warning)}", file=sys.stderr)
    # The github and gitlab formats name owners, from the checked records: CI's formats, run cold there anyway.
    if args.base is None and not args.staged and not args.verbose and cache_enabled() \
            and args.format not in _WITH_OWNERS:
        # At HEAD with the cache on: a result remembered for exactly this state is printed as it was.
        today = reference_date(args.today)
        result = check_remembering(root, today, args.allow_shallow, lambda view: _checked(root, args, today, view),
                                   lambda ledger, edited, moved: _rechecked(root, args, today, ledger, edited, moved))
        return print_result(result, args.format)
    from ..check.exoneration import find_exonerations
    from ..check.pipeline import CheckMode, check_knowledge_base
    from ..check.pr_mode import check_base, check_staged, mark_pre_existing, pre_existing_summary

    if args.staged:  # the index, never the work tree (see pr_mode.check_staged)
        if args.base is not None:
            raise KbError("--staged compares with HEAD; it takes no --base")
        staged = check_staged(root, allow_shallow=args.allow_shallow, today=args.today)
        if staged.note is not None:
            print(displayable(staged.note))
            return 0
        return print_result(Result(staged.findings, staged.summary, staged.notes), args.format, staged.ownership)
    if args.base is not None:  # first, so a missing base stops the run before anything is printed
        base = check_base(root, args.base, allow_shallow=args.allow_shallow, today=args.today)
    # PR mode leaves the work tree as it found it (no cache written): CI runs it cold anyway.
    kb = check_knowledge_base(root, CheckMode(args.today, args.allow_shallow, cache=args.base is None))
    findings: Sequence[Finding] = kb.findings
    if args.verbose:
        for doc in sorted({reference.doc for reference in kb.references}):
            if (why := kb.config.left_out_by(doc)) is not None:
                print(f"kb: stale-doc leaves {displayable(doc)} alone ({displayable(why)})", file=sys.stderr)
    after = ""
    notices: list[str] = []
    if args.base is not None:
        findings, pre_existing = mark_pre_existing(kb.findings, base.findings, args.base)
        after = pre_existing_summary(pre_existing, args.base, base.commit)
        notices = [item.notice for item in find_exonerations(base.catalog, kb, base.unchanged_docs(kb))]
    return print_result(Result(tuple(findings), kb.summary + after, kb.notes), args.format, Ownership.of(kb), notices)


def _checked(root: Path, args: argparse.Namespace, today: date, view: GitView | None) -> Checked:
    from ..check.pipeline import CheckMode, check_knowledge_base

    kb = check_knowledge_base(root, CheckMode(today, args.allow_shallow, ledger=True, view=view))
    return Result(kb.findings, kb.summary, kb.notes), ledger_text(kb.ledger.to_json()) if kb.ledger else None


def _rechecked(root: Path, args: argparse.Namespace, today: date, text: str, edited: list[str],
               moved: bool) -> Checked | None:
    from ..check.ledger import Ledger
    from ..check.recheck import recheck

    try:
        ledger = Ledger.from_json(json.loads(text))
    except (ValueError, TypeError, KeyError):
        return None
    done = recheck(root, ledger, edited, today, args.allow_shallow, history_moved=moved)
    if done is None:
        return None
    findings, ledger = done
    return Result(findings, ledger.summary, ledger.notes), ledger_text(ledger.to_json())


_WITH_OWNERS = ("github", "gitlab")  # the formats that name who owns what each finding is about


def print_result(result: Result, output_format: str, ownership: Ownership | None = None,
                 notices: Sequence[str] = ()) -> int:
    """Print a check's notes, findings and summary (and the step summary with --format github);
    `notices` (PR mode's exonerations) go before the findings in the text output and the summary."""
    for note in result.notes:
        print(f"kb: {displayable(note)}", file=sys.stderr)
    if output_format == "text":
        for notice in notices:
            print(displayable(notice))
    code = _report(result.findings, result.summary, output_format, ownership)
    if output_format == "github" and os.environ.get("GITHUB_STEP_SUMMARY"):
        _append_step_summary(os.environ["GITHUB_STEP_SUMMARY"],
                             format_github_summary(result.findings, result.summary, ownership, notices))
    return code


def _append_step_summary(path: str, text: str) -> None:
    """Append to the job's step summary: a regular file (never wait on a FIFO); KbError if it cannot be."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
        with os.fdopen(fd, "a", encoding="utf-8", errors="backslashreplace") as summary:
            if not stat.S_ISREG(os.fstat(summary.fileno()).st_mode):
                raise KbError(f"$GITHUB_STEP_SUMMARY ({path}) is not a regular file; the summary was not written")
            summary.write(text)
    except OSError as exc:
        raise KbError(f"cannot write the step summary to $GITHUB_STEP_SUMMARY ({path}): "
                      f"{(exc.strerror or str(exc)).lower()}") from None


def _schema_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("kind", choices=sorted(kind.value for kind in RecordKind))


def run_schema(args: argparse.Namespace) -> int:
    from ..records.schema import json_schema

    print(json.dumps(json_schema(RecordKind(args.kind)), indent=2))
    return 0


def run_codes(args: argparse.Namespace) -> int:
    for code in CODES.values():
        print(f"{code.slug:26} {code.severity.value:8} {code.meaning}")
    return 0


def _report(findings: Sequence[Finding], summary: str, output_format: str, ownership: Ownership | None = None) -> int:
    """Print the findings and the summary line; 1 if any finding is an error."""
    sys.stdout.write(FORMATS[output_format](findings, summary, ownership))
    return 1 if any(f.severity is Severity.ERROR for f in findings) else 0


COMMANDS = (
    Command(("validate",), "check the records against the schema and each other", _validate_arguments, run_validate),
    Command(("check",), "validate, then apply the rules (reclaimable knobs, drift...)", _check_arguments, run_check),
    Command(("schema",), "print the JSON Schema of a record kind", _schema_arguments, run_schema),
    Command(("codes",), "list the finding codes and their default severities", lambda parser: None, run_codes),
)
