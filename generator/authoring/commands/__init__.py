"""The authoring commands, one module per thing they write: new records, an incident as it unfolds,
a knob's changes. `kb fmt` is declared beside its code in `authoring/fmt.py`."""

from __future__ import annotations

from ..fmt import FMT
from . import incident_edits, knob_edits, new

COMMANDS = (*new.COMMANDS, *incident_edits.COMMANDS, *knob_edits.COMMANDS, FMT)
