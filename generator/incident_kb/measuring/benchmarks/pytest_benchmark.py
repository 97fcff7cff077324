"""pytest-benchmark's `--benchmark-json`: `benchmarks[]`, each with `name` (e.g.
`test_decode[512]`), `fullname`, `group`, `params`, `extra_info` and `stats` (`min`, `max`,
`mean`, `stddev`, `median`, `iqr`, `rounds`..., and `data`, the time of each round, where kept),
plus `machine_info` (`node`, `cpu`...), `commit_info` (`id`, `dirty`, `branch`...) and `datetime`.

A benchmark's rounds are iterations inside one process, not independent runs: counted as runs, they
would make the interval narrower than the evidence allows. So one benchmark in one file is one run,
its median as the file wrote it; several files (the benchmark run again) are several runs. The
rounds themselves are not kept.

A benchmark's labels are its name, its full name, and its name without the parameters (`test_decode`),
so one label selects a parametrized benchmark across its parameters.
"""

from __future__ import annotations

import statistics
from datetime import datetime
from typing import Any

from ...records.vocabulary import naive_utc
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

RUN_IS = ("one benchmark in one file: the median of its rounds (rounds are iterations inside one process, not "
          "independent runs; import several files for several runs)")


def read_pytest_benchmark(text: str, shown: str, metric: str) -> BenchmarkFile:
    document = parse_json(text, shown, "a pytest-benchmark file")
    benchmarks = document.get("benchmarks") if isinstance(document, dict) else None
    if not isinstance(benchmarks, list) or not benchmarks:
        raise BenchmarkFileError(shown, 1, "not a pytest-benchmark file: expected 'benchmarks' with one entry per "
                                           "benchmark (pytest --benchmark-json FILE)")
    when = _datetime(document.get("datetime"))
    samples = []
    for index, (benchmark, line) in enumerate(zip(benchmarks, item_lines(text, ("benchmarks",), len(benchmarks)))):
        stats = benchmark.get("stats") if isinstance(benchmark, dict) else None
        if not isinstance(stats, dict) or not isinstance(benchmark.get("name"), str):
            raise BenchmarkFileError(shown, line, "not a pytest-benchmark benchmark: each has a 'name' and 'stats'")
        value, rounds = _median(text, shown, index, stats)
        name = benchmark["name"]
        labels = tuple(dict.fromkeys(label for label in (name, benchmark.get("fullname"), name.split("[", 1)[0])
                                     if isinstance(label, str) and label))
        fullname = benchmark.get("fullname")
        samples.append(Sample(line, labels, benchmark, (value,), when=when,
                              command=f"pytest {fullname}" if isinstance(fullname, str) else None, rounds=rounds))
    conditions = tuple(dict.fromkeys(f"params.{name}" for b in benchmarks if isinstance(b, dict)
                                     for name in (b.get("params") or {})))
    return BenchmarkFile(shown, "pytest-benchmark", tuple(samples), RUN_IS, "s", False,
                         host=_host(document.get("machine_info")),
                         software=_software(document.get("commit_info")), label_field="name",
                         condition_fields=conditions)


def _median(text: str, shown: str, index: int, stats: dict[str, Any]) -> tuple[int | float, int | None]:
    """A benchmark's one run: the median as pytest-benchmark wrote it (else that of its rounds' `data`),
    and how many rounds it stands for."""
    data = stats.get("data")
    rounds = stats.get("rounds")
    if not isinstance(rounds, int) or isinstance(rounds, bool) or rounds < 1:
        rounds = len(data) if isinstance(data, list) and data else None
    if "median" in stats:
        value = number(stats["median"])
        if value is None:
            raise BenchmarkFileError(shown, line_of(text, ("benchmarks", index, "stats", "median")),
                                     f"stats.median is {why_not_measured(stats['median'])}")
        return value, rounds
    if not isinstance(data, list) or not data:
        raise BenchmarkFileError(shown, line_of(text, ("benchmarks", index, "stats")),
                                 "this benchmark has neither a 'median' nor per-round 'data'")
    values = []
    for position, found in enumerate(data):
        value = number(found)
        if value is None:
            raise BenchmarkFileError(shown, line_of(text, ("benchmarks", index, "stats", "data", position)),
                                     f"stats.data[{position}] is {why_not_measured(found)}")
        values.append(value)
    median = number(statistics.median(values))
    assert median is not None  # the median of measured numbers is one
    return median, rounds


def _datetime(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return naive_utc(datetime.fromisoformat(value)).replace(microsecond=0)
    except (ValueError, OverflowError):
        return None


def _host(machine: Any) -> str | None:
    if not isinstance(machine, dict):
        return None
    cpu = machine.get("cpu")
    brand = cpu.get("brand_raw") if isinstance(cpu, dict) else None
    parts = [part for part in (machine.get("node"), brand or machine.get("processor"))
             if isinstance(part, str) and part]
    return " (".join(parts) + ")" * (len(parts) - 1) if parts else None


def _software(commit: Any) -> str | None:
    if not isinstance(commit, dict) or not isinstance(commit.get("id"), str):
        return None
    text = f"commit {commit['id'][:12]}"
    details = [str(commit[key]) for key in ("project", "branch") if isinstance(commit.get(key), str) and commit[key]]
    if commit.get("dirty") is True:
        details.append("with uncommitted changes")
    return text + (f" ({', '.join(details)})" if details else "")
