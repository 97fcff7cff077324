"""The authoring commands, one module per thing they write: new records, an incident as it unfolds,
a knob's changes, and `kb fmt`. Each imports what writes records when it runs, not before."""

from __future__ import annotations

from . import incident_edits, knob_edits, new
from .formatting import FMT

COMMANDS = (*new.COMMANDS, *incident_edits.COMMANDS, *knob_edits.COMMANDS, FMT)
