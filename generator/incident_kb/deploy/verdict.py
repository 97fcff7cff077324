"""The verdict on a deploy file: does it agree with the knob's status and value? Decided here once,
for `kb check`'s drift rule and the authoring commands' next steps alike.

An active knob must be set to its value there; a reverted or retired one must not be set to any
value it was ever tuned to (an older tuned value included; its default may be set). The file is
read through the record's own pattern when it gives one, else through `forms.py`'s readers of the
common forms, under the setting's name and under each of its `aliases:` (an old name, a config key:
a file may set it so). Lines that name the setting in a form no reader understands are returned
too, so the caller says so; a line that hands the setting on from where it runs (`docker run -e
NAME`) is one of them only when the file sets the setting nowhere itself, and a line naming an
alias in no form kb reads is left alone (aliases are also the short names prose uses). Model and
text in, verdict out: reads no file.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from ..records.schema import Deployment, Knob
from ..records.setting_names import unmatchable_reason
from ..records.vocabulary import KnobStatus
from .forms import read_settings
from .patterns import any_value_pattern, deploy_pattern, pattern_lines, value_text
from .safe_regex import compile_pattern
from .values import SettingLine


class DeployState(enum.Enum):
    """What a deploy file says about a knob, against what the knob's status says it should."""

    AGREES = "agrees"  # active and set to its value there; or not active and none of its tuned values set there
    NOT_SET = "not set"  # active, but the file sets it nowhere
    OTHER_VALUE = "other value"  # active, but the file sets it to other values only
    STILL_SET = "still set"  # reverted or retired, but the file still sets a value it was tuned to
    UNKNOWN = "unknown"  # active, and the file names it only in forms kb cannot read


_TRUE_WORDS = frozenset(("true", "1", "yes", "on"))
_FALSE_WORDS = frozenset(("false", "0", "no", "off"))


def same_value(written: str, value: object) -> bool:
    """Whether a deploy file's text sets `value`: 512 is 512.0, true is 1, yes or on for a flag."""
    if isinstance(value, bool):
        return written.strip().lower() in (_TRUE_WORDS if value else _FALSE_WORDS)
    if written == value_text(value):
        return True
    if isinstance(value, int | float):
        try:
            return float(written) == float(value)
        except ValueError:
            return False
    return False


def tuned_values(knob: Knob) -> tuple[object, ...]:
    """Every value the knob was tuned to: its value and each value its history records, its default
    (where known) left out: a deploy file may always set the default."""
    found: list[object] = []
    for value in (knob.value, *(entry.value for entry in reversed(knob.history) if entry.value is not None)):
        shown = value_text(value)
        if knob.default is not None and same_value(shown, knob.default):
            continue
        if not any(same_value(shown, known) for known in found):
            found.append(value)
    return tuple(found)


@dataclass(frozen=True, slots=True)
class DeploymentVerdict:
    """A deploy file against a knob: the state, the lines it rests on (where the fix goes), and the
    lines that name the setting in a form kb cannot read."""

    state: DeployState
    lines: tuple[SettingLine, ...]  # AGREES: setting the value; OTHER_VALUE: setting others; STILL_SET: still setting
    unreadable: tuple[SettingLine, ...] = ()
    pattern: str | None = None  # the record's own pattern for the file, filled with the current value

    def still_set_value(self, knob: Knob, line: SettingLine) -> object:
        """Which tuned value a STILL_SET line sets."""
        return next((v for v in tuned_values(knob) if line.value is not None and same_value(line.value, v)),
                    knob.value)


def deployment_verdict(knob: Knob, deployment: Deployment, text: str) -> DeploymentVerdict | None:
    """What `text` (the deploy file's) says against the knob's status; None for a proposed knob, or a
    record pattern RE2 cannot run (the consistency checks report that)."""
    if knob.status is KnobStatus.PROPOSED:
        return None
    present = knob.status is KnobStatus.ACTIVE
    pattern = deploy_pattern(knob, deployment)
    if pattern is not None:
        if compile_pattern(pattern) is None:
            return None
        return _pattern_verdict(knob, deployment, text, pattern, present)
    found = read_settings(text, knob.name)
    by_alias = [line for alias in knob.aliases if alias != knob.name and unmatchable_reason(alias) is None
                for line in read_settings(text, alias) if line.is_readable]
    readable = tuple(sorted({(line.line, line.column): line for line in
                             (*(line for line in found if line.is_readable), *by_alias)}.values(),
                            key=lambda line: (line.line, line.column)))
    unreadable = tuple(line for line in found if not line.is_readable and not (line.passes_through and readable))
    if present:
        setting = tuple(line for line in readable if same_value(line.value or "", knob.value))
        if setting:
            return DeploymentVerdict(DeployState.AGREES, setting, unreadable)
        if readable:
            return DeploymentVerdict(DeployState.OTHER_VALUE, readable, unreadable)
        return DeploymentVerdict(DeployState.UNKNOWN if unreadable else DeployState.NOT_SET, (), unreadable)
    tuned = tuned_values(knob)
    still = tuple(line for line in readable if any(same_value(line.value or "", value) for value in tuned))
    return DeploymentVerdict(DeployState.STILL_SET if still else DeployState.AGREES, still, unreadable)


def _pattern_verdict(knob: Knob, deployment: Deployment, text: str, pattern: str,
                     present: bool) -> DeploymentVerdict:
    if present:
        setting = pattern_lines(pattern, text)
        if setting:
            return DeploymentVerdict(DeployState.AGREES, setting, pattern=pattern)
        other = any_value_pattern(knob, deployment)
        others = pattern_lines(other, text) if other is not None else ()
        return DeploymentVerdict(DeployState.OTHER_VALUE if others else DeployState.NOT_SET, others, pattern=pattern)
    still: list[SettingLine] = []
    for value in tuned_values(knob) if deployment.pattern and "{value}" in deployment.pattern else (knob.value,):
        for line in pattern_lines(deploy_pattern(knob, deployment, value) or pattern, text):
            if not any(line.line == seen.line for seen in still):
                still.append(replace(line, value=value_text(value)))
    return DeploymentVerdict(DeployState.STILL_SET if still else DeployState.AGREES, tuple(still), pattern=pattern)
