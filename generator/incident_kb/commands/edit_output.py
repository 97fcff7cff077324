"""How an authoring command reports: what it did, what else needs doing, what `kb check` now says,
or (exit 1) why the change was refused with nothing written.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from ..check.formats import displayable, format_text
from .command import root_of

if TYPE_CHECKING:
    from ..authoring.outcome import Outcome


def run_edit(args: argparse.Namespace, action: Callable[[ModuleType], Outcome]) -> int:
    """Run an editing act, given the `acts` module, holding the knowledge base's edit lock (it reads
    what the command before it wrote, and writes before the next one reads), then print what it did
    and what else now needs doing. `acts` (and with it the models and the pipeline) is imported
    here, when an edit runs, so that `kb check` need not import it to start."""
    from ..authoring import acts
    from ..authoring.edit_lock import editing_lock
    from ..authoring.record_files import Refused

    try:
        with editing_lock(root_of(args)):
            outcome = action(acts)
    except Refused as exc:
        print(f"kb: {displayable(exc.headline)}:", file=sys.stderr)
        sys.stderr.write(format_text(exc.findings, "nothing written"))
        return 1
    print(displayable(outcome.done))  # record text in it must not drive the terminal
    for line in outcome.details:
        print(f"  {displayable(line)}")
    if outcome.next_steps:
        print("What else needs doing:")
        for step in outcome.next_steps:
            print(f"  - {displayable(step)}")
    if outcome.check:
        print("kb check now reports:")
        sys.stdout.write(format_text(outcome.check, "after this change"))
    return 0
