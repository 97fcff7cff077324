"""Saves seen at once under `make serve` (`mkdocs serve --dirty`), not at the watcher's next poll.

MkDocs watches files by polling (a snapshot of every watched folder every 0.5 s), so that it also
sees changes that the operating system does not report, as in folders shared with a container or
over the network; it pays with a quarter of a second of latency on average (half a second at
worst) and a walk of every record file twice a second, also while idle. This adds the operating
system's own notifications (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows)
for the same paths: a change they report starts the rebuild at once, and the polling watcher is
told of it first (its snapshot of that folder taken again), so that it does not report the same
change a second time. Polling stays, for the changes only it sees; once the notifications have
reported a change in a folder (they work there), that folder is polled every 2 s instead of 0.5 s:
its walks no longer take a tenth of the server's time from its rebuilds.

Relies on MkDocs 1.6's LiveReloadServer (`_rebuild_cond`, `_want_rebuild`, `observer`: the last
1.x release) and on watchdog's polling emitter (`_lock`, `_snapshot`, `_take_snapshot`, `_timeout`); where
either is not in that shape, or the platform has no notifications, nothing is added, and one log
line says so (tests/test_site_adapters.py asserts the shape on the installed versions). Knows
nothing of the site.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable
from typing import Any

from watchdog.events import FileSystemEvent, FileSystemEventHandler
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserver

log = logging.getLogger("mkdocs.plugins.incident-kb")
_CHANGES = frozenset({"created", "deleted", "modified", "moved"})  # not opened, closed (a build reads files)
SLOW_POLL = 2.0  # seconds between polls of a folder whose changes the notifications report


class SaveWatch(FileSystemEventHandler):
    """The operating system's notifications for `paths` (folders, and files such as mkdocs.yml),
    starting `server`'s rebuilds."""

    def __init__(self, server: Any, paths: Iterable[str]) -> None:
        self._server = server
        self._paths = sorted({os.path.abspath(path) for path in paths if path and os.path.exists(path)})
        self._observer: Any = None

    def start(self) -> bool:
        """Watch, if this platform and these versions of MkDocs and watchdog allow it."""
        observer = Observer()
        if isinstance(observer, PollingObserver):
            log.info("incident-kb: saves are seen by MkDocs' polling only (no file notifications on this platform)")
            return False
        if not _is_known_server(self._server):
            log.info("incident-kb: saves are seen by MkDocs' polling only (MkDocs' LiveReloadServer is not in the "
                     "shape this version knows: _rebuild_cond, _want_rebuild, observer)")
            return False
        polling = list(self._server.observer.emitters)  # docs/ and mkdocs.yml's, watched by now
        if not polling or not all(_is_known_emitter(emitter) for emitter in polling):
            log.info("incident-kb: saves are seen by MkDocs' polling only (watchdog's polling emitter is not in the "
                     "shape this version knows: _lock, _snapshot, _take_snapshot, _timeout)")
            return False
        try:
            for folder, recursive in sorted({(p, True) if os.path.isdir(p) else (os.path.dirname(p), False)
                                             for p in self._paths}):
                observer.schedule(self, folder, recursive=recursive)
            observer.start()
        except OSError as exc:  # e.g. the system's limit of watches reached: polling alone, as before
            log.info("incident-kb: saves are seen by polling only (%s)", exc)
            return False
        self._observer = observer
        return True

    def stop(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.is_directory or event.event_type not in _CHANGES:
            return
        changed = [os.fsdecode(path) for path in (event.src_path, getattr(event, "dest_path", "")) if path]
        if not any(_is_within(path, watched) for path in changed for watched in self._paths):
            return
        for emitter in list(self._server.observer.emitters):  # the polling watcher must not see it again
            if any(_is_within(path, emitter.watch.path) for path in changed) and _is_known_emitter(emitter):
                with emitter._lock:
                    try:
                        emitter._snapshot = emitter._take_snapshot()
                    except OSError:
                        pass  # it finds out by itself at its next poll
                    emitter._timeout = max(emitter._timeout, SLOW_POLL)
        with self._server._rebuild_cond:
            self._server._want_rebuild = True
            self._server._rebuild_cond.notify_all()


def _is_within(path: str, watched: str) -> bool:
    return path == watched or path.startswith(watched.rstrip(os.sep) + os.sep)


def _is_known_server(server: Any) -> bool:
    return all(hasattr(server, name) for name in ("_rebuild_cond", "_want_rebuild", "observer"))


def _is_known_emitter(emitter: Any) -> bool:
    return all(hasattr(emitter, name) for name in ("_lock", "_snapshot", "_take_snapshot", "_timeout"))
