"""tests/site_support.serve, which the browser tests read built sites through: a response the browser
dropped (it left the page) is no error in the run's output; any other error still is."""

from __future__ import annotations

import pytest

from ..site_support import QuietServer


@pytest.mark.parametrize("dropped", [BrokenPipeError, ConnectionResetError, ConnectionAbortedError])
def test_a_dropped_response_says_nothing(dropped, capsys):
    server = QuietServer(("127.0.0.1", 0), lambda *_: None)
    try:
        try:
            raise dropped(32, "the browser left")
        except OSError:
            server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    assert capsys.readouterr().err == ""


def test_another_error_is_still_shown(capsys):
    server = QuietServer(("127.0.0.1", 0), lambda *_: None)
    try:
        try:
            raise FileNotFoundError(2, "no such page")
        except OSError:
            server.handle_error(None, ("127.0.0.1", 1))
    finally:
        server.server_close()
    err = capsys.readouterr().err
    assert "Traceback" in err and "FileNotFoundError: [Errno 2] no such page" in err
