"""The `kb` commands, one module each, its arguments declared beside the code that runs it. This is
the one list the CLI mounts, in the order `kb --help` shows them. A command imports what it runs
when it runs (writing records, the site), not before: `kb check`, the PR check, stays light."""

from __future__ import annotations

from . import check, incident_edits, knob_edits, new, org_check
from .command import Command
from .fmt import FMT
from .init import INIT
from .measure import MEASURE
from .render import RENDER
from .report import REPORT

COMMANDS: tuple[Command, ...] = (
    INIT,
    *check.COMMANDS,
    *org_check.COMMANDS,
    REPORT,
    *new.COMMANDS,
    *incident_edits.COMMANDS,
    *knob_edits.COMMANDS,
    MEASURE,
    FMT,
    RENDER,
)
