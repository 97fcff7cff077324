"""Fresh package modules for each build under `mkdocs serve`, in a development checkout.

`mkdocs serve` builds again in the same process on every change, and Python would keep the modules
the first build imported. In a checkout of incident-kb (an editable install: its source is not
under site-packages), `fresh_module` imports a module of this package anew when any of the
package's source files changed since it was last imported, so edits to the generator show up
without restarting the server, and one log line says so. An installed incident-kb (an adopter's)
never changes under a running server: there it is a plain import, and no module is removed from
`sys.modules`. Knows nothing of the site.
"""

from __future__ import annotations

import importlib
import logging
import sys
import sysconfig
from pathlib import Path
from types import ModuleType

_PACKAGE = __name__.partition(".")[0]  # the whole generator package, every stage
_FOLDER = Path(__file__).parents[2]
_imported_stamp: tuple[tuple[str, int], ...] | None = None
_INSTALLED = {Path(sysconfig.get_paths()[key]).resolve() for key in ("purelib", "platlib")}
DEVELOPMENT = not any(folder in _FOLDER.resolve().parents for folder in _INSTALLED)
log = logging.getLogger("mkdocs.plugins.incident-kb")


def _stamp() -> tuple[tuple[str, int], ...]:
    return tuple(sorted((p.relative_to(_FOLDER).as_posix(), p.stat().st_mtime_ns) for p in _FOLDER.rglob("*.py")))


def fresh_module(name: str) -> ModuleType:
    """`importlib.import_module(name)`, re-importing the package first if its source changed."""
    global _imported_stamp
    if not DEVELOPMENT:
        return importlib.import_module(name)
    stamp = _stamp()
    if _imported_stamp is not None and stamp != _imported_stamp:
        for loaded in [m for m in sys.modules if m.startswith(_PACKAGE + ".") and m != __name__]:
            del sys.modules[loaded]
        log.info("incident-kb: the generator's source changed: its modules are imported again")
    _imported_stamp = stamp
    return importlib.import_module(name)
