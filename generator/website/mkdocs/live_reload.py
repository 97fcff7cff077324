"""Fresh package modules for each build under `mkdocs serve`.

`mkdocs serve` runs the gen-files script again in the same process on every change, and Python
would keep the modules the first build imported. `fresh_module` imports a module of this package
anew when any of the package's source files changed since it was last imported, so edits to the
generator show up without restarting the server. Knows nothing of the site.
"""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

_PACKAGE = __name__.partition(".")[0]  # the whole generator package, every stage
_FOLDER = Path(__file__).parents[2]
_imported_stamp: tuple[tuple[str, int], ...] | None = None


def _stamp() -> tuple[tuple[str, int], ...]:
    return tuple(sorted((p.relative_to(_FOLDER).as_posix(), p.stat().st_mtime_ns) for p in _FOLDER.rglob("*.py")))


def fresh_module(name: str) -> ModuleType:
    """`importlib.import_module(name)`, re-importing the package first if its source changed."""
    global _imported_stamp
    stamp = _stamp()
    if _imported_stamp is not None and stamp != _imported_stamp:
        for loaded in [m for m in sys.modules if m.startswith(_PACKAGE + ".") and m != __name__]:
            del sys.modules[loaded]
    _imported_stamp = stamp
    return importlib.import_module(name)
