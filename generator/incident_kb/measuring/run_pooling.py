"""Which runs of one side may be pooled into one sample: runs that differ in what they measure (a
serving benchmark's `max_concurrency`, a scanned parameter, a CSV column that holds a condition) are
refused, never averaged together in silence."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..deploy.patterns import value_text
from .benchmarks.samples import BenchmarkFile, BenchmarkFileError, Sample, field_value


@dataclass(frozen=True, slots=True)
class Run:
    """A sample, where it came from and which side it is on."""

    file: BenchmarkFile
    sample: Sample
    side: str  # "baseline" | "candidate"


def as_text(value: Any) -> str:
    return value_text(value) if value is not None else ""


def refuse_pooled_columns(runs: list[Run], covered: set[str], metric: str) -> None:
    """A CSV's runs of one side that differ in a column holding a condition (each of its values on
    several rows: a scan such as concurrency 32 and 64, two hosts) are not one sample either. A CSV's
    columns say nothing of what they are, so only that shape counts: a run number, a timestamp or a
    second metric varies row by row and is no condition."""
    rows = [run for run in runs if run.file.format == "csv"]
    for column in dict.fromkeys(name for run in rows for name in run.sample.fields):
        if column == metric or column in covered:
            continue
        first: dict[str, Run] = {}
        counts: dict[str, int] = {}
        for run in rows:
            value = as_text(run.sample.fields.get(column))
            first.setdefault(value, run)
            counts[value] = counts.get(value, 0) + 1
        if len(counts) > 1 and min(counts.values()) > 1:
            one, other = list(first.values())[:2]
            raise BenchmarkFileError(
                other.file.shown, other.sample.line,
                f"these {other.side} runs differ in column '{column}' ({as_text(one.sample.fields.get(column))} at "
                f"{one.file.shown}:{one.sample.line}, {as_text(other.sample.fields.get(column))} here, each on several "
                f"rows), so they measure different things; make it a condition: --condition {column}={column} (or "
                "leave the column out of the file if it changes nothing)")


def refuse_pooling(runs: list[Run], covered: set[str]) -> None:
    """Runs of one side that differ in a field that changes what they measure are not one sample."""
    if not runs:
        return
    first = runs[0]
    names = [name for name in first.file.condition_fields if name not in covered]
    expected = {name: field_value(first.sample.fields, name)[1] for name in names}
    for run in runs[1:]:
        for name in (names if run.file is first.file else run.file.condition_fields):
            if name in covered:
                continue
            theirs = expected[name] if name in expected else field_value(first.sample.fields, name)[1]
            mine = field_value(run.sample.fields, name)[1]
            if mine != theirs and as_text(mine) != as_text(theirs):
                key = name.rsplit(".", 1)[-1].replace("max_", "")
                raise BenchmarkFileError(run.file.shown, run.sample.line,
                                         f"these {run.side} runs differ in {name} ({as_text(theirs)} at "
                                         f"{first.file.shown}:{first.sample.line}, {as_text(mine)} here), so they "
                                         f"measure different things; make it a condition: --condition {key}={name}")
