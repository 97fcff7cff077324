"""The `kb` command: mounts the commands each stage declares, runs one, and turns the one error
that stops the tool into a line on stderr and exit 2.

Exit codes: 0 no errors (warnings allowed), 1 errors found, 2 the tool could not run (and changed
nothing: output that fails after a write keeps the command's own code), 3 kb crashed
(an exception it did not expect: one line names the log file that holds the traceback, as
pre-commit does, so CI never reads a crash as findings).
"""

from __future__ import annotations

import argparse
import errno
import os
import sys
import traceback
from collections.abc import Sequence
from datetime import UTC
from pathlib import Path
from typing import TextIO

from .cache import user_cache_folder, user_store
from .check.formats import displayable
from .commands import COMMANDS
from .commands.command import Command, Parser
from .findings import KbError
from .places import is_inside, repository_top
from .repository.writes import changes_made


def build_parser(commands: Sequence[Command] = COMMANDS) -> argparse.ArgumentParser:
    """The parser of `commands`, built once per process: parsing leaves it as it was, and building
    every command's parser costs an in-process caller (the tests run kb thousands of times) more than
    checking a small knowledge base. main() gives each run lists of its own (see _unshared)."""
    parser = _PARSERS.get(commands)
    if parser is None:
        parser = _PARSERS[commands] = _build_parser(commands)
    return parser


_PARSERS: dict[Sequence[Command], argparse.ArgumentParser] = {}


def _build_parser(commands: Sequence[Command]) -> argparse.ArgumentParser:
    parser = Parser(prog="kb", description="Check and render a knowledge base of knobs and incidents.")
    parser.add_argument("--version", action=_Version, nargs=0, help="show the version and exit")
    top = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    groups: dict[str, argparse._SubParsersAction[Parser]] = {}
    for command in commands:  # in declaration order; a group ('hypothesis add') where its first verb is
        where = top
        if len(command.words) > 1:
            group = command.words[0]
            if group not in groups:
                verbs = [c for c in commands if c.words[0] == group]
                about = "; ".join(f"'{' '.join(c.words)}': {c.help}" for c in verbs)
                groups[group] = top.add_parser(group, help=about).add_subparsers(dest="verb", required=True,
                                                                                 parser_class=Parser)
            where = groups[group]
        sub = where.add_parser(command.words[-1], help=command.help)
        command.arguments(sub)
        sub.set_defaults(run=command.run)
    return parser


class _Version(argparse.Action):
    """--version, looked up when asked for (the package metadata costs every other command its start)."""

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from . import __version__

        print(f"kb (incident-kb) {__version__}")
        parser.exit()


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command: its exit code, or 2 with one line on stderr when the tool could not run
    (bad arguments, an unusable root, output that cannot be written), or 3 when it crashed."""
    args: argparse.Namespace | None = None
    changes, code = changes_made(), None
    try:
        if sys.stdout is None:  # started with stdout closed (`kb check >&-`)
            raise KbError("standard output is closed, so nothing could be reported; run kb with somewhere to write")
        _show_what_cannot_be_encoded(sys.stdout)
        _show_what_cannot_be_encoded(sys.stderr)
        args = _unshared(build_parser().parse_args(argv))
        code = int(args.run(args))
        sys.stdout.flush()  # a full disk or a closed pipe shows here, while it can still be told
        return code
    except KbError as exc:
        _say(f"kb: {displayable(str(exc))}")
        return 2
    except KeyboardInterrupt:
        return 130
    except OSError as exc:
        if not _is_output_error(exc):
            return _crashed(exc, args)
        _discard_output()
        if changes_made() > changes:  # the change is made: exit 2 would say nothing changed
            _say(f"kb: the command's changes were written, but not all of its output ({_output_problem(exc)})")
            return code if code is not None else 0
        _say(f"kb: cannot write the output ({_output_problem(exc)}); nothing more was written")
        return 2
    except Exception as exc:  # noqa: BLE001 - a bug: one line and a log, never a traceback read as findings
        return _crashed(exc, args)


def _unshared(args: argparse.Namespace) -> argparse.Namespace:
    """`args` with lists of their own: an option that appends (`--tag`) defaults to its parser's one
    list, which a command changing it in place would change for the next run of the reused parser."""
    for name, value in vars(args).items():
        if isinstance(value, list):
            setattr(args, name, list(value))
    return args


def _crashed(exc: BaseException, args: argparse.Namespace | None) -> int:
    """Write the traceback to the log file, say where in one line, exit 3."""
    where = _write_log("".join(traceback.format_exception(exc)), getattr(args, "root", None))
    _say(f"kb: kb crashed ({displayable(type(exc).__name__)}: "
         f"{displayable(str(exc).splitlines()[0] if str(exc) else '')})"
         f"; this is a bug in kb, not a finding: the traceback is in {where}")
    return 3


def _write_log(text: str, root: Path | None) -> str:
    """The log file's path: kb.log in the user's cache folder, else (it is inside the repository, or
    cannot be written) a new temporary file; or why none could be written."""
    import tempfile
    from datetime import datetime

    header = f"kb {' '.join(sys.argv[1:])}\n{datetime.now(UTC).isoformat()} (Python {sys.version.split()[0]})\n"
    folder = user_cache_folder()
    here = Path(os.path.realpath(root or Path.cwd()))
    store = None if is_inside(folder, repository_top(here) or here) else user_store()
    if store is not None and store.write_text("kb.log", header + text):  # the store's checks: see cache.py
        return str(folder / "kb.log")
    try:
        descriptor, name = tempfile.mkstemp(prefix="kb-crash-", suffix=".log")
        path = Path(name)
    except OSError as exc:
        return f"no file (none could be written: {exc.strerror or exc})"
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8", errors="backslashreplace") as log:
            log.write(header + text)
    except OSError as exc:
        return f"{path} (incomplete: {exc.strerror or exc})"
    return str(path)


def _show_what_cannot_be_encoded(stream: TextIO | None) -> None:
    """Write escapes for what the stream cannot encode (PYTHONIOENCODING=ascii, a file name that is
    not UTF-8) instead of failing: the text formats are for people, the JSON ones are ASCII."""
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")


def _is_output_error(exc: OSError) -> bool:
    return exc.errno in _OUTPUT_ERRNOS


_OUTPUT_ERRNOS = {errno.EPIPE, errno.ENOSPC, errno.EBADF, errno.EIO, errno.EDQUOT, errno.EFBIG, errno.EINVAL}


def _output_problem(exc: BaseException) -> str:
    if isinstance(exc, BrokenPipeError):
        return "the reader closed the pipe"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return str(exc)


def _discard_output() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # not a real file (tests capture it), or already gone
        pass


def _say(line: str) -> None:
    """One line on stderr, if there is a stderr to write to."""
    try:
        print(line, file=sys.stderr, flush=True)
    except (AttributeError, OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
