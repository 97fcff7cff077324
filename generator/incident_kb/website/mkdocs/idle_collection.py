"""Python's cyclic garbage collector under the live preview (`mkdocs serve --dirty`): paused while
a rebuild runs, and run once the preview is idle again.

A rebuild makes and drops a whole site's worth of MkDocs objects (every page and file, which refer
to each other, so only the cyclic collector frees them). Left to itself, the collector runs in the
middle of each rebuild, for about a third of a second at 2,000 records, before the browser can
reload. Paused, the rebuild's garbage waits until the preview is idle: a collection runs a moment
after each rebuild (once the browser had time to reload), or at the start of a rebuild when
several came too close together for it. The collector runs as often as before; its moment moves,
and after some rebuilds its reach (below). Knows nothing of MkDocs or the site.

Only a rebuild that may have dropped objects older than itself (MkDocs' whole build drops the last
one's pages and files) needs a full collection: 0.4 s at 2,000 records, most of it spent walking the
objects that live on. A save built without MkDocs' build drops only what it made itself: the young
generations hold all its cyclic garbage and take 0.02 s (measured in `mkdocs serve` at 2,000 records:
a full collection after such a save freed nothing more). Between rebuilds the collector is Python's
own again, and its own full collections free anything older.
"""

from __future__ import annotations

import gc
import threading

IDLE_DELAY = 1.0  # seconds after a rebuild: the browser has reloaded the page by then (0.4 to 0.8 s)
MAX_WAITING = 3  # rebuilds whose garbage may wait for an idle moment (bounds the memory it holds)


class IdleCollection:
    def __init__(self, delay: float = IDLE_DELAY) -> None:
        self._delay = delay
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._building = False
        self._waiting = 0  # rebuilds since the last collection
        self._old_garbage = False  # one of those may have dropped objects older than itself

    def rebuild_started(self) -> None:
        """The collector paused for a rebuild; it collects first if too many rebuilds' garbage waits."""
        with self._lock:
            self._building = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            gc.disable()
            if self._waiting >= MAX_WAITING:
                self._collect_waiting()

    def rebuild_ended(self, drops_older: bool = True) -> None:
        """The rebuild's garbage is collected in a while, unless another rebuild starts first.
        `drops_older`: the rebuild may have dropped objects older than itself (a full collection)."""
        with self._lock:
            self._building = False
            self._waiting += 1
            self._old_garbage |= drops_older
            self._timer = threading.Timer(self._delay, self._collect)
            self._timer.daemon = True
            self._timer.start()

    def stop(self) -> None:
        """Back to Python's usual collector (a failed build, the end of the serve)."""
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            self._building = False
            gc.enable()

    def _collect(self) -> None:
        with self._lock:
            if self._building:  # a rebuild started meanwhile: its end schedules the next collection
                return
            self._collect_waiting()
            self._timer = None
            gc.enable()  # between rebuilds, as usual

    def _collect_waiting(self) -> None:
        """The waiting rebuilds' garbage freed: the young generations hold it unless one of them may
        have dropped older objects."""
        gc.collect() if self._old_garbage else gc.collect(1)
        self._waiting, self._old_garbage = 0, False
