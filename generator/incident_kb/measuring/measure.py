"""`kb measure`: a knob's A/B benchmark run by kb itself, and its result recorded as one measurement.

The knob is read first (its name, its default, its tuned value), the runs are made with no lock held
(they may take an hour), then the measurement is appended as every edit is: checked against the
schema and the other records, written atomically under the edit lock. A run that fails, an
interrupt or a metric that cannot be read writes nothing.
"""

from __future__ import annotations

import platform
import shlex
import socket
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from ..authoring.outcome import Outcome, entry, fields
from ..authoring.record_files import open_record, save
from ..authoring.yaml_emit import Flow, FlowList
from ..check.pipeline import check_knowledge_base
from ..deploy.patterns import value_text
from ..findings import KbError
from ..gains.verdicts import noise_verdict, same_setting
from ..records.model import gain_of
from ..records.schema import Knob, Measurement
from ..records.vocabulary import RecordKind
from .runner import Metric, Sides, Step, command_for, plan, run_plan

SOURCE = "kb measure"


@dataclass(frozen=True)
class MeasureRequest:
    knob_id: str
    metric: str
    command: str
    runs: int = 5
    warmup: int = 1
    baseline: Any = None  # default: the knob's default
    candidate: Any = None  # default: its tuned value
    how: Metric = Metric()
    unit: str | None = None
    lower_is_better: bool = False
    conditions: tuple[tuple[str, Any], ...] = ()
    seed: int | None = None


@dataclass(frozen=True)
class Planned:
    setting: str  # the environment variable the command gets: the knob's name
    values: dict[str, Any]  # side -> the value it runs with
    steps: list[Step]


def plan_measurement(root: Path, request: MeasureRequest) -> Planned:
    """The runs `request` asks for, with the values of each side (from the knob when not given)."""
    if request.runs < 1 or request.warmup < 0:
        raise KbError("--runs must be 1 or more and --warmup 0 or more")
    knob, _ = open_record(root, RecordKind.KNOB, request.knob_id).open()
    assert isinstance(knob, Knob)
    baseline = request.baseline if request.baseline is not None else knob.default
    if baseline is None:
        raise KbError(f"knob '{knob.id}' records no default, so kb measure cannot tell what to compare "
                      f"{knob.name}={value_text(knob.value)} with: give --baseline VALUE")
    candidate = request.candidate if request.candidate is not None else knob.value
    if same_setting(baseline, candidate):
        raise KbError(f"the baseline and the candidate are both {knob.name}={value_text(candidate)}: nothing to "
                      "compare; give --baseline VALUE or --candidate VALUE")
    return Planned(knob.name, {"baseline": baseline, "candidate": candidate},
                   plan(request.runs, request.warmup, request.seed))


def describe_plan(planned: Planned, request: MeasureRequest) -> list[str]:
    """What --dry-run prints: each run in order, with the command it runs."""
    lines = [f"kb measure: {len(planned.steps)} runs of {request.metric} ({request.warmup} warm-up per side, then "
             f"{request.runs} pairs), {planned.setting}={value_text(planned.values['baseline'])} (baseline) vs "
             f"{value_text(planned.values['candidate'])} (candidate); nothing is written with --dry-run"]
    for number, step in enumerate(planned.steps, 1):
        value = planned.values[step.side]
        lines.append(f"  {number}. {'warm-up ' if step.warmup else ''}{step.side}: "
                     f"{planned.setting}={shlex.quote(value_text(value))} {command_for(request.command, value)}")
    return lines


def run_measurement(planned: Planned, request: MeasureRequest, progress: TextIO | None) -> Sides:
    return run_plan(planned.steps, request.command, planned.setting, planned.values, request.how, progress)


def record_measurement(root: Path, request: MeasureRequest, planned: Planned, sides: Sides,
                       when: datetime | None = None) -> Outcome:
    """Append the measurement the runs make to the knob (under the caller's edit lock)."""
    record = open_record(root, RecordKind.KNOB, request.knob_id)
    _, editor = record.open()
    wall_time = request.how.is_wall_time
    higher_is_better = not (request.lower_is_better or wall_time)
    item = entry(
        Measurement, metric=request.metric, conditions=Flow(dict(request.conditions)) if request.conditions else None,
        setting=planned.values["candidate"], baseline_setting=planned.values["baseline"],
        unit=request.unit or ("s" if wall_time else None), higher_is_better=None if higher_is_better else False,
        date=when or datetime.now(UTC).replace(microsecond=0), host=socket.gethostname() or None,
        software=platform.platform(), command=request.command, source=SOURCE,
        baseline_runs=FlowList(_kept(v) for v in sides.baseline), runs=FlowList(_kept(v) for v in sides.candidate))
    editor.append(("measurements",), item, fields(Knob))
    save(record, editor)
    return Outcome(f"{record.rel_path}: measured {request.metric}, {planned.setting}="
                   f"{value_text(planned.values['candidate'])} vs {value_text(planned.values['baseline'])}",
                   (), check_knowledge_base(root).findings, (_result(item),))


def _kept(value: float) -> float:
    """A run's value as recorded: six significant digits (a timer's last digits are noise)."""
    return float(f"{value:.6g}")


def _result(item: dict[str, Any]) -> str:
    measurement = Measurement.model_validate({key: dict(value) if isinstance(value, Flow) else list(value)
                                              if isinstance(value, FlowList) else value for key, value in item.items()})
    gain = gain_of(measurement)
    if gain is None:
        return "no change in percent can be said (the baseline's median is 0)"
    verdict = noise_verdict(gain)
    if verdict.is_noise:
        return f"within noise: {gain.change_text} ({gain.runs_text}; {verdict.why})"
    return f"{gain.change_text} ({gain.runs_text}; {verdict.why})"
