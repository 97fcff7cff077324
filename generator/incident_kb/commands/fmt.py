"""`kb fmt`'s arguments and report; what formatting does is `authoring/fmt.py`, imported when the
command runs (with the models it needs), so that other commands start without it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..check.formats import displayable, format_text
from ..wording import plural
from .command import Command, add_root, root_of

if TYPE_CHECKING:
    from ..authoring.fmt import Formatted
    from ..findings import Finding


def _arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE", help="record files (default: all records)")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if a file would change")
    add_root(parser)


def run_fmt(args: argparse.Namespace) -> int:
    from ..authoring.edit_lock import editing_lock
    from ..authoring.fmt import files_to_format, format_file
    from ..authoring.record_files import write
    from ..check.pipeline import skipped_record_folders

    root = root_of(args)
    paths = files_to_format(root, args.files)
    skipped = [] if args.files else skipped_record_folders(root)  # said, as the check says them: never passed by
    if args.check:
        return _report([format_file(root, path) for path in paths], check=True, skipped=skipped)
    with editing_lock(root):  # read and written under the lock, so no concurrent edit is lost
        results = [format_file(root, path) for path in paths]
        for result in results:
            if result.changed:
                assert result.record is not None and result.text is not None
                write(result.record, result.text)  # a file that cannot be written stops here, unreported
                print(displayable(f"reformatted {result.rel_path}: {'; '.join(result.changes)}"))
    return _report(results, check=False, skipped=skipped)


def _report(results: list[Formatted], *, check: bool, skipped: list[Finding]) -> int:
    problems = [r.problem for r in results if r.problem is not None] + skipped
    changed = [r for r in results if r.changed]
    if check:
        for result in changed:
            print(displayable(f"would reformat {result.rel_path}: {'; '.join(result.changes)}"))
    if problems:
        sys.stderr.write(format_text(problems, "cannot format these"))
    unchanged = len(results) - len(changed) - (len(problems) - len(skipped))
    verb = "would be reformatted" if check else "reformatted"
    print(f"{plural(len(changed), 'record')} {verb}, {unchanged} already formatted")
    return 1 if problems or (check and changed) else 0


FMT = Command(("fmt",), "put records in canonical shape (key order, quotes), keeping comments", _arguments, run_fmt)
