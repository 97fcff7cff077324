"""Python's cyclic garbage collector under the live preview (`mkdocs serve --dirty`): paused while
a rebuild runs, and run once the preview is idle again.

A rebuild makes and drops a whole site's worth of MkDocs objects (every page and file, which refer
to each other, so only the cyclic collector frees them). Left to itself, the collector runs in the
middle of each rebuild, for about a third of a second at 2,000 records, before the browser can
reload. Paused, the rebuild's garbage waits until the preview is idle: a collection runs a moment
after each rebuild (once the browser had time to reload), or at the start of a rebuild when
several came too close together for it. The collector runs at the same rate as before; only its
moment moves. Knows nothing of MkDocs or the site.
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

    def rebuild_started(self) -> None:
        """The collector paused for a rebuild; it collects first if too many rebuilds' garbage waits."""
        with self._lock:
            self._building = True
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
            gc.disable()
            if self._waiting >= MAX_WAITING:
                gc.collect()
                self._waiting = 0

    def rebuild_ended(self) -> None:
        """The rebuild's garbage is collected in a while, unless another rebuild starts first."""
        with self._lock:
            self._building = False
            self._waiting += 1
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
            gc.collect()
            self._waiting = 0
            self._timer = None
            gc.enable()  # between rebuilds, as usual
