"""tests/site_support.serve, which the browser tests read built sites through: a response the browser
dropped (it left the page) is no error in the run's output; any other error still is."""

from __future__ import annotations

import pytest

from ..site_support import QuietServer


def handle(error: OSError) -> None:
    """The server's handling of `error`, raised while it answers a request."""
    server = QuietServer(("127.0.0.1", 0), lambda *_: None)
    try:
        try:
            raise error
        except OSError:
            server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()


@pytest.mark.parametrize("dropped", [BrokenPipeError, ConnectionResetError, ConnectionAbortedError])
def test_a_dropped_response_says_nothing(dropped, capsys):
    handle(dropped(32, "the browser left"))
    assert capsys.readouterr().err == ""


def test_another_error_is_still_shown(capsys):
    handle(FileNotFoundError(2, "no such page"))
    err = capsys.readouterr().err
    assert "Traceback" in err and "FileNotFoundError: [Errno 2] no such page" in err
