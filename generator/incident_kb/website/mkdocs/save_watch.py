"""Every input of the site watched under `mkdocs serve` (`make serve`), and a save seen at once.

What to watch is not a list: after each build the plugin hands over every path the build looked at
(`Inputs`: the files and folders the check and the pages read, as `repository.files` wrote them down,
the folders it listed, and MkDocs' own docs folder, configuration file and `watch:` entries). A
path that does not exist is watched from its nearest folder that does, so a records folder, a
deploy file or a doc created after serve started is seen; a folder deleted and created again is
watched again (a watch ends with its folder). A change to anything else (an editor's swap file, the
knowledge base's README, the site's own output) starts no rebuild. A change made between the
build's look and the watch's start is caught by asking the build's record whether anything it
looked at changed since (`changed`).

MkDocs watches by polling (a snapshot of every watched folder every 0.5 s), so that it also sees
changes that the operating system does not report, as in folders shared with a container or over
the network; it pays with a quarter of a second of latency on average and a walk of every watched
folder twice a second, also while idle. The same folders are also watched through the operating
system's notifications (inotify on Linux, FSEvents on macOS, ReadDirectoryChangesW on Windows): a
change they report starts the rebuild at once, and every polling watcher of that folder is told of
it first (its snapshot taken again), so that it does not report the same change a second time.
Once the notifications have reported a change in a folder (they work there), that folder is polled
every 2 s instead of 0.5 s.

Relies on MkDocs 1.6's LiveReloadServer (`_rebuild_cond`, `_want_rebuild`, `observer`: the last
1.x release) and on watchdog's polling emitter (`_lock`, `_snapshot`, `_take_snapshot`, `_timeout`);
where the server is not in that shape, the inputs are watched through its public `watch()` (any
change in a watched folder rebuilds, a folder's creation alone does not); where the emitters are
not, or the platform has no notifications, MkDocs' polling alone sees changes. Each fallback says
so in one log line (tests/website/test_site_adapters.py asserts the shape on the installed versions).
Knows nothing of the site.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from watchdog.events import (
    DirAttribEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileAttribEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.polling import PollingObserver

log = logging.getLogger("mkdocs.plugins.incident-kb")
_CHANGES = frozenset({"created", "deleted", "modified", "moved", "attrib"})  # not opened, closed (a build reads files)
_COMINGS_AND_GOINGS = frozenset({"created", "deleted", "moved"})
SLOW_POLL = 2.0  # seconds between polls of a folder whose changes the notifications report

# What a watch reports (not opened or closed: a build reads files). Given to every watch of ours, it
# also sets it apart from MkDocs' own of the same folder, which watchdog would otherwise share (and
# keep sharing after that one ended with its folder).
_REPORTED: list[type[FileSystemEvent]] = [FileCreatedEvent, FileDeletedEvent, FileModifiedEvent, FileMovedEvent,
                                          FileAttribEvent, DirCreatedEvent, DirDeletedEvent, DirMovedEvent,
                                          DirAttribEvent]
Target = tuple[str, bool]  # a folder to watch (real path), and whether everything below it too


@dataclass(frozen=True)
class Inputs:
    """What a build read, as absolute paths."""

    paths: frozenset[str] = frozenset()  # looked at: files, folders, and paths that do not exist (yet)
    listed: frozenset[str] = frozenset()  # folders whose entries matter (which names, of which kind)
    trees: frozenset[str] = frozenset()  # folders everything below which matters (the docs folder, `watch:`)

    def __or__(self, other: Inputs) -> Inputs:
        return Inputs(self.paths | other.paths, self.listed | other.listed, self.trees | other.trees)


@dataclass(frozen=True)
class Watched:
    """`Inputs` as the watchers see them: by the real paths they report (links resolved) as well as
    by the paths given; and the folders to watch."""

    named: frozenset[str]  # every input, as given and as reported
    listed: frozenset[str]
    trees: tuple[str, ...]
    on_the_way: frozenset[str]  # the folders above the inputs: one coming or going takes inputs with it
    targets: frozenset[Target]

    @classmethod
    def of(cls, inputs: Inputs) -> Watched:
        real = _RealPaths()
        named: set[str] = set()
        wanted: set[Target] = set()
        for path in map(os.path.abspath, inputs.paths):
            named.update(real.names(path))
            wanted.add((real.nearest_folder(os.path.dirname(path)), False))
            if os.path.islink(path):  # a change of the file it names is a change of this one
                target = os.path.realpath(path)
                named.add(target)
                wanted.add((real.nearest_folder(os.path.dirname(target)), False))
        listed: set[str] = set()
        trees: set[str] = set()
        for folders, into, recursive in ((inputs.listed, listed, False), (inputs.trees, trees, True)):
            for folder in map(os.path.abspath, folders):
                into.update(real.names(folder) | {os.path.realpath(folder)})
                wanted.add((os.path.realpath(folder), recursive) if os.path.isdir(folder)
                           else (real.nearest_folder(folder), False))
                wanted.add((real.nearest_folder(os.path.dirname(folder)), False))  # its own coming and going
        named |= listed | trees
        whole = [folder for folder, recursive in wanted if recursive]
        targets = frozenset((folder, recursive) for folder, recursive in wanted
                            if recursive or not any(_is_within(folder, tree) for tree in whole))
        on_the_way: set[str] = set()
        for path in named:
            parent = os.path.dirname(path)
            while parent not in on_the_way and parent != os.path.dirname(parent):
                on_the_way.add(parent)
                parent = os.path.dirname(parent)
        return cls(frozenset(named), frozenset(listed), tuple(sorted(trees)), frozenset(on_the_way), targets)

    def concerns(self, path: str, change: str, is_folder: bool) -> bool:
        """Whether a `change` ('created', 'modified'...) of `path` can change what the build read."""
        if change not in _CHANGES or (is_folder and change == "modified"):  # a folder's own times: its entries tell
            return False
        if path in self.named or any(_is_within(path, tree) for tree in self.trees):
            return True
        if change in _COMINGS_AND_GOINGS and os.path.dirname(path) in self.listed:
            return True
        return change in _COMINGS_AND_GOINGS and is_folder and path in self.on_the_way


class _RealPaths:
    """Real paths of folders, each resolved once (10,000 records share one folder)."""

    def __init__(self) -> None:
        self._real: dict[str, str] = {}
        self._nearest: dict[str, str] = {}

    def names(self, path: str) -> set[str]:
        """`path` as given, and as a watcher of its folder reports it."""
        folder = os.path.dirname(path)
        if folder not in self._real:
            self._real[folder] = os.path.realpath(folder)
        return {path, os.path.join(self._real[folder], os.path.basename(path))}

    def nearest_folder(self, folder: str) -> str:
        """The real path of `folder`, or of the nearest folder above it that exists."""
        if folder not in self._nearest:
            found = folder
            while not os.path.isdir(found) and found != os.path.dirname(found):
                found = os.path.dirname(found)
            self._nearest[folder] = os.path.realpath(found)
        return self._nearest[folder]


@dataclass
class _Watch:
    identity: tuple[int, int]  # the folder's (device, inode) when the watch began: a new folder needs a new watch
    polled: Any = None  # the watch on the server's polling observer (or the folder given to the server's watch())
    notified: Any = None  # the watch on the notifications' observer


class SaveWatch:
    """The inputs of `server`'s builds watched: `paths` (MkDocs' own: the docs folder, the
    configuration file, `watch:` entries) from `start`, and each build's from `watch_inputs`."""

    def __init__(self, server: Any, paths: Iterable[str], notifications: bool = True) -> None:
        self._server = server
        self._may_notify = notifications  # False: MkDocs' polling alone (as in a folder shared over the network)
        given = [os.path.abspath(path) for path in paths if path]
        self._own = Inputs(paths=frozenset(p for p in given if not os.path.isdir(p)),
                           trees=frozenset(p for p in given if os.path.isdir(p)))
        self._watched = Watched.of(Inputs())  # read by the watchers' threads: replaced whole, never changed
        self._watches: dict[Target, _Watch] = {}  # only the thread that builds changes it
        self._ended: set[str] = set()  # watched folders reported gone or moved: watched anew next time
        self._ended_lock = threading.Lock()  # never held while calling an observer: they dispatch under their own
        self._notifications: Any = None  # the observer of the system's notifications, when there is one
        self._wakes = _is_known_server(server)
        self._resets = False  # whether polling watchers can be told of a change (their shape is known)
        self._started = False

    def start(self) -> bool:
        """Watch MkDocs' own inputs; True when this platform and these versions of MkDocs and watchdog
        let changes be seen at once, from the system's notifications."""
        if not self._wakes:
            log.info("incident-kb: saves are seen by MkDocs' polling only (MkDocs' LiveReloadServer is not in the "
                     "shape this version knows: _rebuild_cond, _want_rebuild, observer); inputs are watched through "
                     "its watch(), which does not rebuild when a folder alone is created")
            if hasattr(self._server, "watch") and hasattr(self._server, "unwatch"):
                self._started = True
                self.watch_inputs(Inputs())
            return False
        self._started = True
        polling = list(self._server.observer.emitters)  # docs/ and mkdocs.yml's, watched by MkDocs by now
        self._resets = all(_is_known_emitter(emitter) for emitter in polling)
        observer = Observer()
        if not self._may_notify:
            pass
        elif isinstance(observer, PollingObserver):
            log.info("incident-kb: saves are seen by MkDocs' polling only (no file notifications on this platform)")
        elif not self._resets:
            log.info("incident-kb: saves are seen by MkDocs' polling only (watchdog's polling emitter is not in the "
                     "shape this version knows: _lock, _snapshot, _take_snapshot, _timeout)")
        else:
            observer.start()
            self._notifications = observer
        self.watch_inputs(Inputs())
        return self._notifications is not None

    def stop(self) -> None:
        for watch in self._watches.values():
            self._unschedule(watch)
        self._watches.clear()
        if self._notifications is not None:
            self._notifications.stop()
            self._notifications.join(timeout=5)
            self._notifications = None

    def watch_inputs(self, inputs: Inputs, changed: Callable[[], bool] = lambda: False) -> None:
        """After a build: watch what it read (`inputs`, besides MkDocs' own), and nothing else; then,
        when `changed()` says that something it read has changed since it looked, rebuild."""
        if not self._started:
            return
        watched = Watched.of(inputs | self._own)
        self._watched = watched
        with self._ended_lock:
            ended, self._ended = self._ended, set()
        for target, watch in list(self._watches.items()):
            if target not in watched.targets or target[0] in ended or _identity(target[0]) != watch.identity:
                self._unschedule(watch)
                del self._watches[target]
        for target in sorted(watched.targets - self._watches.keys()):
            started = self._schedule(target)
            if started is not None:
                self._watches[target] = started
        if changed():
            self._wake()

    @property
    def targets(self) -> dict[Target, bool]:
        """The folders watched, and whether the system's notifications report their changes."""
        return {target: watch.notified is not None for target, watch in self._watches.items()}

    def _schedule(self, target: Target) -> _Watch | None:
        folder, recursive = target
        identity = _identity(folder)
        if identity is None:
            return None  # gone meanwhile: `changed` tells, and the next build watches from above it
        watch = _Watch(identity)
        try:
            if not self._wakes:
                self._server.watch(folder, recursive=recursive)
                watch.polled = folder
            elif not self._is_polled_already(target):
                watch.polled = self._server.observer.schedule(_Seen(self, notified=False), folder, recursive=recursive,
                                                              event_filter=_REPORTED)
            if self._notifications is not None:
                watch.notified = self._notifications.schedule(_Seen(self, notified=True), folder, recursive=recursive,
                                                              event_filter=_REPORTED)
        except OSError as exc:  # e.g. the system's limit of watches reached: polling alone there
            log.info("incident-kb: %s is watched by polling only (%s)", folder, exc)
        return watch

    def _is_polled_already(self, target: Target) -> bool:
        """Whether a live polling watcher not of ours (MkDocs' own) reports every change there."""
        folder, recursive = target
        ours = {watch.polled for watch in self._watches.values()}
        for emitter in list(self._server.observer.emitters):
            watch = getattr(emitter, "watch", None)
            if watch is None or watch in ours or getattr(watch, "is_file", True) or not emitter.is_alive():
                continue  # (a watch of a file reports that file's changes only)
            if (watch.path == folder and (watch.is_recursive or not recursive)) or \
                    (watch.is_recursive and _is_within(folder, watch.path)):
                return True
        return False

    def _unschedule(self, watch: _Watch) -> None:
        try:
            if isinstance(watch.polled, str):
                self._server.unwatch(watch.polled)
            elif watch.polled is not None:
                self._server.observer.unschedule(watch.polled)
        except (KeyError, OSError):
            pass  # ended with its folder
        try:
            if watch.notified is not None and self._notifications is not None:
                self._notifications.unschedule(watch.notified)
        except (KeyError, OSError):
            pass

    def seen(self, event: FileSystemEvent, notified: bool) -> None:
        """A change reported by a watcher (in its thread): a rebuild, when it concerns an input."""
        changed = [os.fsdecode(path) for path in (event.src_path, getattr(event, "dest_path", "")) if path]
        if event.is_directory and event.event_type in ("deleted", "moved"):
            with self._ended_lock:
                self._ended.add(changed[0])
        watched = self._watched
        if not any(watched.concerns(path, event.event_type, event.is_directory) for path in changed):
            return
        if self._resets:  # every polling watcher of those folders: not the same change a second time
            for emitter in list(self._server.observer.emitters):
                if any(_is_within(path, emitter.watch.path) for path in changed) and _is_known_emitter(emitter):
                    with emitter._lock:
                        try:
                            emitter._snapshot = emitter._take_snapshot()
                        except OSError:
                            pass  # it finds out by itself at its next poll
                        if notified:
                            emitter._timeout = max(emitter._timeout, SLOW_POLL)
        self._wake()

    def _wake(self) -> None:
        if self._wakes:
            with self._server._rebuild_cond:
                self._server._want_rebuild = True
                self._server._rebuild_cond.notify_all()


class _Seen(FileSystemEventHandler):
    def __init__(self, watch: SaveWatch, notified: bool) -> None:
        self._watch = watch
        self._notified = notified

    def on_any_event(self, event: FileSystemEvent) -> None:
        self._watch.seen(event, self._notified)


def _identity(folder: str) -> tuple[int, int] | None:
    try:
        found = os.stat(folder)
    except OSError:
        return None
    return (found.st_dev, found.st_ino)


def _is_within(path: str, watched: str) -> bool:
    return path == watched or path.startswith(watched.rstrip(os.sep) + os.sep)


def _is_known_server(server: Any) -> bool:
    return all(hasattr(server, name) for name in ("_rebuild_cond", "_want_rebuild", "observer"))


def _is_known_emitter(emitter: Any) -> bool:
    return all(hasattr(emitter, name) for name in ("_lock", "_snapshot", "_take_snapshot", "_timeout"))
