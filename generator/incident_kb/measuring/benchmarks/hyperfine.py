"""hyperfine's `--export-json`: `results[]`, one per command, each with `command`, the summary
(`mean`, `stddev`, `median`, `min`, `max`, `user`, `system`), the per-run `times` in seconds,
`exit_codes`, and `parameters` when the benchmark scanned them (`-P`, `-L`).

A result's label is its command; a label may also be the command as written with `{name}`
placeholders, which matches each scanned command it stands for.
"""

from __future__ import annotations

import itertools
from typing import Any

from .samples import (
    BenchmarkFile,
    BenchmarkFileError,
    Sample,
    item_lines,
    line_of,
    number,
    parse_json,
    why_not_measured,
)

_PER_RUN = ("times", "memory_usage_byte")  # lists with one entry per run
_UNITS = {"times": "s", "memory_usage_byte": "B"}


def read_hyperfine(text: str, shown: str, metric: str) -> BenchmarkFile:
    document = parse_json(text, shown, "a hyperfine export")
    results = document.get("results") if isinstance(document, dict) else None
    if not isinstance(results, list) or not results:
        raise BenchmarkFileError(shown, 1, "not a hyperfine export: expected 'results' with one entry per command "
                                           "(hyperfine --export-json FILE)")
    series = metric if metric in _PER_RUN else "times"
    samples = []
    for index, (result, line) in enumerate(zip(results, item_lines(text, ("results",), len(results)))):
        if not isinstance(result, dict) or not isinstance(result.get("command"), str):
            raise BenchmarkFileError(shown, line, "not a hyperfine result: each has a 'command'")
        if metric in result and metric not in _PER_RUN:
            raise BenchmarkFileError(shown, line_of(text, ("results", index, metric)),
                                     f"'{metric}' is one number per command, not one per run; kb imports the runs "
                                     f"themselves ('times'): name the metric for what it measures, e.g. --metric "
                                     "'wall time'")
        runs = result.get(series)
        if not isinstance(runs, list) or not runs:
            raise BenchmarkFileError(shown, line, f"this result has no per-run '{series}' list (hyperfine "
                                                  "--export-json writes one)")
        values = []
        for position, run in enumerate(runs):
            value = number(run)
            if value is None:
                raise BenchmarkFileError(shown, line_of(text, ("results", index, series, position)),
                                         f"{series}[{position}] is {why_not_measured(run)}")
            values.append(value)
        command = result["command"]
        labels = (command, *_templates(command, result.get("parameters")))
        samples.append(Sample(line, labels, result, tuple(values), command=command))
    conditions = tuple(f"parameters.{name}" for result in results if isinstance(result, dict)
                       for name in (result.get("parameters") or {}))
    return BenchmarkFile(shown, "hyperfine", tuple(samples), f"one process hyperfine timed (its '{series}')",
                         _UNITS[series], False, label_field="command",
                         condition_fields=tuple(dict.fromkeys(conditions)))


def _templates(command: str, parameters: Any) -> tuple[str, ...]:
    """The command as written before hyperfine put scanned values in, for each choice of parameters
    left as placeholders: 'sleep {t}' for 'sleep 0.1' with parameters {t: '0.1'}; with two parameters,
    'CTAS=256 ./bench --batch {batch}' as well as 'CTAS={ctas} ./bench --batch {batch}'."""
    if not isinstance(parameters, dict) or not parameters:
        return ()
    named = [(str(name), value) for name, value in list(parameters.items())[:_MAX_PLACEHOLDERS]
             if isinstance(value, str) and value and value in command]
    found = []
    for size in range(1, len(named) + 1):
        for chosen in itertools.combinations(named, size):
            template = command
            for name, value in chosen:
                template = template.replace(value, "{" + name + "}")
            found.append(template)
    return tuple(dict.fromkeys(found))


_MAX_PLACEHOLDERS = 4
