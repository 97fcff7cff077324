"""Recording measurements: `kb measurement add` (one figure) and `kb measurement import` (benchmark
outputs in, measurements with their runs and provenance out).

The runs of each side come from labels inside the files (`--baseline`/`--candidate`: a hyperfine
command, a pytest-benchmark name, SGLang's tag, vLLM's label, a CSV label column, or FIELD=VALUE)
or from one file per side; `--condition KEY=FIELD` groups them into one measurement per value of
the conditions. Runs that differ in a field that changes what they measure (a serving benchmark's
`max_concurrency`, a scanned parameter) are never pooled silently. Everything is read and checked
before the record is touched; then the measurements are appended through the same machinery as
every edit (checked against the schema and the other records, written atomically, under the edit
lock the command holds).
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any

from ..authoring.outcome import Outcome, entry, fields
from ..authoring.record_files import open_record, save
from ..authoring.yaml_emit import Flow, FlowList
from ..check.pipeline import check_knowledge_base
from ..deploy.patterns import value_text
from ..findings import KbError
from ..gains.estimates import NoInterval
from ..gains.verdicts import interval_text
from ..records.model import gain_of
from ..records.schema import Knob, Measurement
from ..records.vocabulary import RecordKind
from ..repository.files import status
from ..wording import day, plural
from .benchmarks.csv_samples import read_csv
from .benchmarks.hyperfine import read_hyperfine
from .benchmarks.pytest_benchmark import read_pytest_benchmark
from .benchmarks.samples import (
    BenchmarkFile,
    BenchmarkFileError,
    Reader,
    Sample,
    WrittenNumber,
    detect_format,
    field_value,
    number,
    number_in_text,
    read_text,
)
from .benchmarks.serving import read_sglang, read_vllm
from .run_pooling import Run as _Run, as_text, refuse_pooled_columns, refuse_pooling

READERS: dict[str, Reader] = {"sglang": read_sglang, "vllm": read_vllm, "hyperfine": read_hyperfine,
                              "pytest-benchmark": read_pytest_benchmark, "csv": read_csv}


@dataclass(frozen=True)
class ImportRequest:
    knob_id: str
    metric: str
    files: tuple[Path, ...] = ()
    format: str | None = None
    baseline: str | None = None  # labels inside the files...
    candidate: str | None = None
    baseline_file: Path | None = None  # ...or one file per side
    candidate_file: Path | None = None
    conditions: tuple[tuple[str, str], ...] = ()  # (KEY, FIELD)
    setting: Any = None  # default: the knob's current value
    baseline_setting: Any = None
    unit: str | None = None
    higher_is_better: bool | None = None  # default: the format's, or the metric's name
    when: date | datetime | None = None  # default: the files' own date, else today
    host: str | None = None
    software: str | None = None
    command: str | None = None
    note: str | None = None


def add_measurement(root: Path, knob_id: str, metric: str, *, delta_pct: float | None = None,
                    baseline: float | None = None, value: float | None = None, unit: str | None = None,
                    conditions: dict[str, Any] | None = None, higher_is_better: bool = True,
                    when: date | datetime | None = None, evidence: str | None = None, note: str | None = None,
                    setting: Any = None, baseline_setting: Any = None) -> Outcome:
    record = open_record(root, RecordKind.KNOB, knob_id)
    _, editor = record.open()
    item = entry(Measurement, metric=metric, conditions=Flow(conditions) if conditions else None,
                 setting=setting, baseline_setting=baseline_setting,
                 baseline=baseline, value=value, delta_pct=delta_pct, unit=unit,
                 higher_is_better=None if higher_is_better else False, date=when, evidence=evidence, note=note)
    editor.append(("measurements",), item, fields(Knob))
    save(record, editor)
    return Outcome(f"{record.rel_path}: added a measurement of {metric}", (), check_knowledge_base(root).findings)


def import_measurements(root: Path, request: ImportRequest) -> Outcome:
    _check_request(request)
    record = open_record(root, RecordKind.KNOB, request.knob_id)
    knob, editor = record.open()
    assert isinstance(knob, Knob)
    files = _read_files(root, request)
    runs = _sides(files, request)
    groups = _grouped(runs, request)
    setting = request.setting if request.setting is not None else knob.value
    items, lines = [], []
    for conditions, members in groups.items():
        item = _measurement(root, request, dict(conditions), members, setting)
        twin = next((existing for existing in knob.measurements if _same_runs(root, item, existing)), None)
        if twin is not None:
            where = _conditions_text(twin.conditions) or "no conditions"
            dated = f", dated {day(twin.date)}" if twin.date else ""
            raise KbError(f"knob '{knob.id}' already has these runs from {item['source']}: its measurement of "
                          f"{twin.metric} at {where}{dated} (imported before?); nothing was written")
        items.append(item)
        lines.append(_summary(item, members, request))
    editor.extend(("measurements",), items, fields(Knob))
    save(record, editor)
    sources = ", ".join(dict.fromkeys(f.shown for f in files.values()))
    formats = ", ".join(dict.fromkeys(f.format for f in files.values()))
    done = (f"{record.rel_path}: imported {plural(len(items), 'measurement')} of {request.metric} at "
            f"{knob.name}={value_text(setting)} from {sources} ({formats})")
    runs_are = tuple(dict.fromkeys(f"a run ({f.format}): {f.run_is}" for f in files.values()))
    return Outcome(done, (), check_knowledge_base(root).findings, tuple(lines) + runs_are)


def _check_request(request: ImportRequest) -> None:
    labels = (request.baseline, request.candidate)
    side_files = (request.baseline_file, request.candidate_file)
    if any(labels) and any(side_files):
        raise KbError("give the sides either as labels (--baseline LABEL --candidate LABEL) or as files "
                      "(--baseline-file FILE --candidate-file FILE), not both")
    if any(labels) and not all(labels):
        raise KbError("give both --baseline LABEL and --candidate LABEL (the labels of the runs to compare)")
    if any(side_files) and not all(side_files):
        raise KbError("give both --baseline-file FILE and --candidate-file FILE")
    if not any(labels) and not any(side_files):
        raise KbError("say which runs are the baseline and which the candidate: --baseline LABEL --candidate LABEL "
                      "(labels inside the files), or --baseline-file FILE --candidate-file FILE")
    if all(labels) and not request.files:
        raise KbError("give the files to import: kb measurement import KNOB FILE... --baseline LABEL --candidate LABEL")
    if all(side_files) and {_key(p) for p in request.files} - {_key(p) for p in side_files if p is not None}:
        raise KbError("with --baseline-file and --candidate-file, the runs come from those two files; name no other")
    if request.baseline is not None and request.baseline == request.candidate:
        raise KbError(f"--baseline and --candidate are both '{request.baseline}'; compare two different runs")
    keys = [key for key, _ in request.conditions]
    if len(set(keys)) != len(keys):
        raise KbError("each --condition KEY=FIELD needs its own KEY")


def _key(path: Path) -> str:
    """The file a path names, whatever the path: a link, `./`, `..` or a second hard link to a file
    is that file (read once); a path that names nothing is itself (reading it says why)."""
    found = status(path, follow_links=True)
    return f"file {found[1]}:{found[2]}" if isinstance(found, tuple) else os.path.abspath(path)


def _read_files(root: Path, request: ImportRequest) -> dict[str, BenchmarkFile]:
    """Each file once, however often and by whatever path it is named, in the order first named."""
    named = [*request.files, *(p for p in (request.baseline_file, request.candidate_file) if p is not None)]
    found: dict[str, BenchmarkFile] = {}
    for path in named:
        if _key(path) in found:
            continue
        shown = str(path)
        text = read_text(path, shown)
        format_ = request.format or detect_format(text, shown)
        found[_key(path)] = READERS[format_](text, shown, request.metric)
    return found


def _sides(files: Mapping[str, BenchmarkFile], request: ImportRequest) -> list[_Run]:
    if request.baseline_file is not None and request.candidate_file is not None:
        base, candidate = files[_key(request.baseline_file)], files[_key(request.candidate_file)]
        if base is candidate:
            raise KbError(f"--baseline-file and --candidate-file are the same file ({base.shown}); give labels "
                          "instead to compare runs inside one file")
        return [*(_Run(base, s, "baseline") for s in base.samples), *(_Run(candidate, s, "candidate")
                                                                       for s in candidate.samples)]
    assert request.baseline is not None and request.candidate is not None
    every = [(f, s) for f in files.values() for s in f.samples]
    runs = []
    for side, label in (("baseline", request.baseline), ("candidate", request.candidate)):
        matches = _matching(every, label)
        if not matches:
            raise KbError(f"no runs labelled '{label}' (--{side}) in {', '.join(f.shown for f in files.values())}; "
                          f"{_labels_found(files)}; nothing was written")
        runs += [_Run(f, s, side) for f, s in matches]
    both = {id(run.sample) for run in runs if run.side == "baseline"} & \
        {id(run.sample) for run in runs if run.side == "candidate"}
    if both:
        first = next(run for run in runs if id(run.sample) in both)
        raise BenchmarkFileError(first.file.shown, first.sample.line, f"these runs match both '{request.baseline}' "
                                                                      f"and '{request.candidate}'; use labels that "
                                                                      "tell the sides apart")
    return runs


def _matching(every: list[tuple[BenchmarkFile, Sample]], label: str) -> list[tuple[BenchmarkFile, Sample]]:
    """The samples a label selects: those with it among their labels; else, for FIELD=VALUE, those
    whose field has that value; else those where some field (the first that has it) holds the label."""
    named = [(f, s) for f, s in every if label in s.labels]
    if named:
        return named
    field_name, sep, wanted = label.partition("=")
    if sep:
        picked = [(f, s) for f, s in every if as_text(field_value(s.fields, field_name.strip())[1]) == wanted.strip()
                  and field_value(s.fields, field_name.strip())[0]]
        if picked:
            return picked
    for f, s in every:  # a CSV whose label column has another name
        if f.format != "csv":
            continue
        for name, value in s.fields.items():
            if as_text(value) == label and not isinstance(value, dict | list):
                return [(g, t) for g, t in every if name in t.fields and as_text(t.fields[name]) == label]
    return []


def _labels_found(files: Mapping[str, BenchmarkFile]) -> str:
    labels = list(dict.fromkeys(s.labels[0] for f in files.values() for s in f.samples if s.labels))
    fields = ", ".join(dict.fromkeys(f.label_field for f in files.values()))
    if not labels:
        return (f"the runs carry no {fields}: give FIELD=VALUE labels, or one file per side "
                "(--baseline-file, --candidate-file)")
    shown = (", ".join(f"'{label}'" for label in labels[:8])
             + (f" and {len(labels) - 8} more" if len(labels) > 8 else ""))
    return f"the labels there ({fields}) are {shown}"


Conditions = tuple[tuple[str, Any], ...]


def _grouped(runs: list[_Run], request: ImportRequest) -> dict[Conditions, list[_Run]]:
    """The runs by the value of the measurement's conditions, in the order the conditions sort."""
    groups: dict[Conditions, list[_Run]] = {}
    for run in runs:
        values = []
        for key, field_name in request.conditions:
            found, value = field_value(run.sample.fields, field_name)
            if not found:
                names = ", ".join(k for k, v in run.sample.fields.items() if not isinstance(v, list))[:300]
                raise BenchmarkFileError(run.file.shown, run.sample.line,
                                         f"no field '{field_name}' for --condition {key}={field_name}; the fields "
                                         f"here: {names}")
            values.append((key, _condition_value(value, run, field_name)))
        groups.setdefault(tuple(values), []).append(run)
    covered = {field_name for _, field_name in request.conditions}
    for members in groups.values():
        for side in ("baseline", "candidate"):
            refuse_pooling([run for run in members if run.side == side], covered)
            refuse_pooled_columns([run for run in members if run.side == side], covered, request.metric)
        sides = {run.side for run in members}
        if sides != {"baseline", "candidate"}:
            missing = ({"baseline", "candidate"} - sides).pop()
            where = _conditions_text(dict(_key_of(members, groups)))
            raise KbError(f"no {missing} runs{' at ' + where if where else ''} to compare the "
                          f"{'candidate' if missing == 'baseline' else 'baseline'}'s "
                          f"{plural(len(members), 'sample')} with; nothing was written")
    return dict(sorted(groups.items(), key=lambda item: _order(item[0])))


def _key_of(members: list[_Run], groups: Mapping[Conditions, list[_Run]]) -> Conditions:
    return next(key for key, value in groups.items() if value is members)


def _order(conditions: Conditions) -> tuple[tuple[int, float, str], ...]:
    return tuple((0, float(v), "") if isinstance(v, int | float) and not isinstance(v, bool) else (1, 0.0, str(v))
                 for _, v in conditions)


def _condition_value(value: Any, run: _Run, field_name: str) -> Any:
    """A field as a condition's value: numbers and text as they are; unlimited (Infinity, 'inf',
    null) as 'inf' or 'none'; a whole float as the integer it is; text that writes a number exactly
    ('64', not '1.10' or 'nan') as that number; a number no float holds as its text."""
    if isinstance(value, float):
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        if math.isnan(value):
            raise BenchmarkFileError(run.file.shown, run.sample.line, f"'{field_name}' is NaN, so it is no condition")
        return int(value) if value.is_integer() and abs(value) < 1e15 else value
    if value is None:
        return "none"
    if isinstance(value, WrittenNumber):
        return str(value)
    if isinstance(value, str):  # hyperfine's parameters are text: '64' is the number 64, '1.10' stays text
        number = number_in_text(value)
        return number if isinstance(number, int | float) and str(number) == value else str(value)
    if isinstance(value, dict | list):
        raise BenchmarkFileError(run.file.shown, run.sample.line, f"'{field_name}' holds several values; name one "
                                                                  f"of its fields, e.g. {field_name}.NAME")
    return value


def _measurement(root: Path, request: ImportRequest, conditions: dict[str, Any], members: list[_Run],
                 setting: Any) -> dict[str, Any]:
    baseline = [run for run in members if run.side == "baseline"]
    candidate = [run for run in members if run.side == "candidate"]
    files = list(dict.fromkeys(run.file.shown for run in members))
    higher = request.higher_is_better
    if higher is None:
        higher = next((run.file.higher_is_better for run in members if run.file.higher_is_better is not None), True)
    unit = request.unit or next((run.file.unit for run in members if run.file.unit), None)
    when = request.when or _latest(run.sample.when for run in members) or date.today()
    note = _summary_note(baseline, candidate)
    return entry(
        Measurement, metric=request.metric, conditions=Flow(conditions) if conditions else None, setting=setting,
        baseline_setting=request.baseline_setting, unit=unit, higher_is_better=None if higher else False, date=when,
        host=request.host or _one(run.file.host for run in candidate),
        software=request.software or _one(run.file.software for run in candidate),
        command=request.command or _command(baseline, candidate),
        source=", ".join(_source(root, Path(name)) for name in files),
        note="; ".join(part for part in (request.note, note) if part) or None,
        baseline_runs=FlowList(v for run in baseline for v in run.sample.values),
        runs=FlowList(v for run in candidate for v in run.sample.values))


def _latest(whens: Iterable[date | None]) -> date | None:
    """The latest of the runs' dates; a day alone where any of them is a day alone (a date-time and a
    day cannot be ordered)."""
    found = [when for when in whens if when is not None]
    if not all(isinstance(when, datetime) for when in found):
        found = [when.date() if isinstance(when, datetime) else when for when in found]
    return max(found, default=None)


def _one(values: Iterable[str | None]) -> str | None:
    found = list(dict.fromkeys(v for v in values if v))
    return ", ".join(found) if found else None


def _command(baseline: list[_Run], candidate: list[_Run]) -> str | None:
    tuned = _one(run.sample.command for run in candidate)
    base = _one(run.sample.command for run in baseline)
    if tuned and base and base != tuned:
        return f"{tuned} (baseline: {base})"
    return tuned or base


def _summary_note(baseline: list[_Run], candidate: list[_Run]) -> str | None:
    """What a run stands for when it is the median of rounds inside one process (pytest-benchmark)."""
    rounds = sorted({run.sample.rounds for run in (*baseline, *candidate) if run.sample.rounds})
    if not rounds:
        return None
    counts = f"{rounds[0]:,}" if len(rounds) == 1 else f"{rounds[0]:,} to {rounds[-1]:,}"
    return (f"each run is one benchmark's median over its {counts} rounds in one process (rounds are not "
            "independent runs)")


def _source(root: Path, path: Path) -> str:
    """A file inside the knowledge base's repository by its repository path; any other as given."""
    try:
        return Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).as_posix()
    except ValueError:
        return str(path)


def _same_runs(root: Path, item: dict[str, Any], existing: Measurement) -> bool:
    """Does a measurement hold the runs about to be imported: the same values (either side, in any
    order) from the same files? Whatever the metric is called and the conditions or labels that
    grouped them: those are options, the runs are the evidence."""
    if not existing.runs or not existing.baseline_runs or existing.source is None:
        return False
    if _runs_of(existing.runs, existing.baseline_runs) != _runs_of(item["runs"], item["baseline_runs"]):
        return False
    return _files_of(root, existing.source) == _files_of(root, item["source"])


def _runs_of(runs: Iterable[float], baseline_runs: Iterable[float]) -> frozenset[tuple[float, ...]]:
    """Both sides' values, as the import would write them now (records imported before kept float noise)."""
    return frozenset(tuple(sorted(number(v) or 0 for v in side)) for side in (runs, baseline_runs))


def _files_of(root: Path, source: str) -> frozenset[str]:
    return frozenset(_key(root / name) for name in source.split(", "))


def _conditions_text(conditions: Mapping[str, Any]) -> str:
    return ", ".join(f"{key} {value_text(value)}" for key, value in conditions.items())


def _summary(item: dict[str, Any], members: list[_Run], request: ImportRequest) -> str:
    """One line per measurement: where, the runs, the gain and its interval, and the date's origin."""
    measurement = Measurement.model_validate({k: (dict(v) if isinstance(v, Flow) else list(v) if isinstance(v, FlowList)
                                                  else v) for k, v in item.items()})
    gain = gain_of(measurement)
    where = _conditions_text(measurement.conditions) or "overall"
    said = "no change in percent (the baseline is 0)" if gain is None else f"{gain.change_text} ({gain.runs_text}"
    if gain is not None:
        interval = gain.change_interval
        said += f"; {interval})" if isinstance(interval, NoInterval) else f", 95% interval {interval_text(interval)})"
    dated = next((run.file.dated for run in members if run.sample.when), None)
    origin = "--date" if request.when else dated or "today: the file records no date; --date gives it"
    return f"{where}: {said}, dated {day(measurement.date)} ({origin})"  # type: ignore[arg-type]
