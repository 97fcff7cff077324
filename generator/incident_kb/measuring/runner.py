"""`kb measure`'s runs: the plan (warm-ups, then baseline and candidate alternating, each pair's order
shuffled by a seed), each run of the command with the setting in its environment, and the metric
read from it (its wall time, a number its output prints, or a field of its JSON output).

Knows no record: it returns the values of each side, or raises `MeasureStopped` with how many runs
were done (a run that failed, an interrupt). Writing the measurement is `measurements.py`'s job.
"""

from __future__ import annotations

import os
import random
import re
import shlex
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

from ..deploy.patterns import value_text
from ..findings import KbError
from .benchmarks.samples import JSON_NUMBERS, number, number_in_text, shown_value, why_not_measured

SIDES = ("baseline", "candidate")
_BAR = 20  # characters of the progress bar on a terminal
_TAIL = 400  # characters of a failed run's output quoted back


@dataclass(frozen=True, slots=True)
class Step:
    side: str  # 'baseline' or 'candidate'
    warmup: bool  # run and discarded


@dataclass(frozen=True, slots=True)
class Metric:
    """How a run's metric is read: its wall time (both None), the first group of `parse` in its
    output, or the number at the dotted path `json_field` of its JSON output."""

    parse: re.Pattern[str] | None = None
    json_field: str | None = None

    @property
    def is_wall_time(self) -> bool:
        return self.parse is None and self.json_field is None


@dataclass(frozen=True, slots=True)
class Sides:
    baseline: tuple[float, ...]
    candidate: tuple[float, ...]


class MeasureStopped(KbError):
    """The measurement stopped before its last run; nothing is written."""


def plan(runs: int, warmup: int, seed: int | None) -> list[Step]:
    """Warm-ups first (each side, alternating), then `runs` pairs: baseline and candidate in an order
    shuffled per pair by `seed` (a slow drift of the machine then favours neither side)."""
    shuffle = random.Random(seed)
    steps = [Step(side, True) for _ in range(warmup) for side in SIDES]
    for _ in range(runs):
        pair = list(SIDES)
        shuffle.shuffle(pair)
        steps.extend(Step(side, False) for side in pair)
    return steps


def command_for(command: str, value: Any) -> str:
    """CMD with `{value}` replaced by the value as a deploy file writes it, shell-quoted."""
    return command.replace("{value}", shlex.quote(value_text(value)))


def run_plan(steps: Sequence[Step], command: str, setting: str, values: dict[str, Any], metric: Metric,
             progress: TextIO | None = None, clock: Callable[[], float] = time.perf_counter) -> Sides:
    """Run every step: the command (through the shell, in the current folder) with `setting` in its
    environment set to the side's value; the measured steps' metrics by side."""
    found: dict[str, list[float]] = {side: [] for side in SIDES}
    started = clock()
    done = 0
    try:
        for run_number, step in enumerate(steps, 1):
            found_value = _run_once(command, setting, values[step.side], metric, step, run_number, len(steps), clock)
            done = run_number
            if not step.warmup:
                found[step.side].append(found_value)
            if progress is not None:
                _report(progress, step, run_number, len(steps), found_value, metric, clock() - started, values)
    except KeyboardInterrupt:
        raise MeasureStopped(f"interrupted after {done} of {len(steps)} runs; nothing was written") from None
    return Sides(tuple(found["baseline"]), tuple(found["candidate"]))


def _run_once(command: str, setting: str, value: Any, metric: Metric, step: Step, run_number: int, total: int,
              clock: Callable[[], float]) -> float:
    environment = {**os.environ, setting: value_text(value)}
    began = clock()
    try:
        done = subprocess.run(command_for(command, value), shell=True, env=environment, capture_output=True,
                              text=True, errors="replace", stdin=subprocess.DEVNULL, check=False)
    except OSError as exc:
        raise MeasureStopped(f"cannot run the command: {exc}; nothing was written") from None
    seconds = clock() - began
    warmup = "warm-up, " if step.warmup else ""
    what = f"run {run_number} of {total} ({warmup}{step.side}, {setting}={value_text(value)})"
    if done.returncode != 0:
        output = (done.stderr or done.stdout).strip()[-_TAIL:]
        raise MeasureStopped(f"the command exited with {done.returncode} in {what}; nothing was written"
                             + (f". Its last output: {output}" if output else ""))
    if metric.is_wall_time:
        return seconds
    return _read_metric(done.stdout, metric, what)


def _read_metric(output: str, metric: Metric, what: str) -> float:
    """The run's metric from its output, read as the imports read a benchmark's numbers
    (benchmarks/samples.py): a number no float holds, or one beyond what a record keeps, is refused."""
    if metric.parse is not None:
        match = metric.parse.search(output)
        if match is None or not match.groups():
            raise MeasureStopped(f"--parse {metric.parse.pattern!r} matches nothing with a group in the output of "
                                 f"{what}; nothing was written")
        return _measured(number_in_text(match.group(1) or ""), match.group(1), what,
                         f"--parse's first group ({shown_value(match.group(1))})")
    assert metric.json_field is not None
    try:
        found: Any = JSON_NUMBERS.decode(output.strip())
    except ValueError:
        raise MeasureStopped(f"the output of {what} is not JSON, so --json {metric.json_field} cannot be read; "
                             "nothing was written") from None
    for part in metric.json_field.split("."):
        if isinstance(found, dict) and part in found:
            found = found[part]
        elif isinstance(found, list) and part.isdigit() and int(part) < len(found):
            found = found[int(part)]
        else:
            raise MeasureStopped(f"the JSON output of {what} has no {metric.json_field} (no '{part}'); "
                                 "nothing was written")
    if isinstance(found, str):
        return _measured(number_in_text(found), found, what, metric.json_field)
    return _measured(found, found, what, metric.json_field)


def _measured(value: Any, written: Any, what: str, where: str) -> float:
    kept = number(value)
    if kept is None:
        said = why_not_measured(value) if value is not None else f"{shown_value(written)}, not a measured number"
        raise MeasureStopped(f"{where} in the output of {what} is {said}; nothing was written")
    return float(kept)


def _report(stream: TextIO, step: Step, run_number: int, total: int, value: float, metric: Metric, elapsed: float,
            values: dict[str, Any]) -> None:
    """One line per run on stderr, with the time left (a bar in front on a terminal)."""
    left = elapsed / run_number * (total - run_number)
    shown = f"{value:.3f} s" if metric.is_wall_time else f"{value:g}"
    bar = ""
    if _is_terminal(stream):
        filled = round(_BAR * run_number / total)
        bar = f"[{'#' * filled}{'.' * (_BAR - filled)}] "
    kind = "warm-up " if step.warmup else ""
    stream.write(f"kb measure: {bar}{run_number}/{total} {kind}{step.side} ({value_text(values[step.side])}): {shown}; "
                 f"about {_duration(left)} left\n")
    stream.flush()


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _duration(seconds: float) -> str:
    if seconds < 60:
        return f"{seconds:.0f} s"
    minutes, rest = divmod(round(seconds), 60)
    return f"{minutes} min {rest} s" if minutes < 60 else f"{minutes // 60} h {minutes % 60} min"


