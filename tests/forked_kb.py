"""`kb` in a process of its own without a fresh interpreter: a fork of the test's process runs the real
`main()` with descriptors of its own (stdin /dev/null, stdout and stderr to files), so a hang (a named
pipe opened, git waiting on one) is killed at the timeout and fails the test instead of blocking the
suite, and its output is the process's, read back as `subprocess.run(..., text=True)` would give it.

What it leaves out is the interpreter's start (about 0.35 s of CPU a run, imports mostly): where that
start is what a test is about (an encoding or a closed stream set up by the interpreter, capabilities
lost at exec, a sitecustomize, the console script, the modules a cold process imports), the test
starts a real process."""

from __future__ import annotations

import contextlib
import gc
import io
import locale
import os
import select
import signal
import subprocess
import sys
import tempfile
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO

from incident_kb import cli

from .conftest import REPO


def kb_forked(*args: str | os.PathLike[str], timeout: float = 60, cwd: Path = REPO,
              before: Callable[[], None] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m incident_kb.cli *args` as a forked child of this process (see the module's note);
    `before` runs in the child first (dropping capabilities). Raises subprocess.TimeoutExpired, the
    child killed, when it has not ended after `timeout` seconds."""
    words = [str(arg) for arg in args]
    command = [sys.executable, "-m", "incident_kb.cli", *words]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        gc.freeze()  # the child's collector leaves this process's objects alone: no copy of every page
        try:
            pid = os.fork()
        except BaseException:
            gc.unfreeze()
            raise
        if pid == 0:
            _child(words, out.fileno(), err.fileno(), cwd, before)
        gc.unfreeze()
        code = _wait(pid, timeout)
        output, errors = _text(out), _text(err)
    if code is None:
        raise subprocess.TimeoutExpired(command, timeout, output, errors)
    return subprocess.CompletedProcess(command, code, output, errors)


def _child(words: Sequence[str], out: int, err: int, cwd: Path, before: Callable[[], None] | None) -> None:
    """Never returns: runs the command as `python -m incident_kb.cli` would, and leaves with its code
    (no exit handlers of the test's process run, no buffer of its flushed twice)."""
    code = 70
    try:
        stdin = os.open(os.devnull, os.O_RDONLY)
        for source, target in ((stdin, 0), (out, 1), (err, 2)):
            os.dup2(source, target)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        sys.stdin, sys.stdout, sys.stderr = (_stream(0, "r", sys.__stdin__), _stream(1, "w", sys.__stdout__),
                                             _stream(2, "w", sys.__stderr__, errors="backslashreplace"))
        sys.argv = [cli.__file__, *words]
        os.chdir(cwd)
        if before is not None:
            before()
        code = cli.main(list(words))
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - what an interpreter prints for an uncaught exception
        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
        except BaseException:  # noqa: BLE001 - the interpreter's exit code when its last flush fails
            code = 120
        with contextlib.suppress(BaseException):
            sys.stderr.flush()
        os._exit(code)


def _stream(descriptor: int, mode: str, like: io.TextIOWrapper | None, errors: str | None = None) -> io.TextIOWrapper:
    """A standard stream on `descriptor` with the encoding the interpreter chose for this process's own."""
    encoding = getattr(like, "encoding", None) or "utf-8"
    return open(descriptor, mode, encoding=encoding, errors=errors or getattr(like, "errors", None) or "strict",
                closefd=False)


def _wait(pid: int, timeout: float) -> int | None:
    """The child's exit code (minus the signal that ended it), or None after killing it at `timeout`."""
    watch = os.pidfd_open(pid)
    try:
        waiting = select.poll()  # not select(): the test's process may hold descriptors past 1024
        waiting.register(watch, select.POLLIN)
        ended = bool(waiting.poll(timeout * 1000))
    finally:
        os.close(watch)
    if not ended:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) if ended else None


def _text(file: IO[bytes]) -> str:
    """What `subprocess.run(..., text=True)` reads: the locale's encoding, universal newlines."""
    file.seek(0)
    data = file.read().decode(locale.getpreferredencoding(False))
    return data.replace("\r\n", "\n").replace("\r", "\n")
