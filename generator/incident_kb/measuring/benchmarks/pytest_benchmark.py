"""pytest-benchmark's `--benchmark-json`: `benchmarks[]`, each with `name` (e.g.
`test_decode[512]`), `fullname`, `group`, `params`, `extra_info` and `stats` (`min`, `max`,
`mean`, `stddev`, `median`, `iqr`, `rounds`..., and `data`, the time of each round, where kept),
plus `machine_info` (`node`, `cpu`...), `commit_info` (`id`, `dirty`, `branch`...) and `datetime`.

A benchmark's labels are its name, its full name, and its name without the parameters (`test_decode`),
so one label selects a parametrized benchmark across its parameters. Without `data`, the median is
imported as one value standing for the rounds, and the measurement's note says so.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ...records.vocabulary import naive_utc
from .samples import BenchmarkFile, BenchmarkFileError, Sample, line_of, number, parse_json


def read_pytest_benchmark(text: str, shown: str, metric: str) -> BenchmarkFile:
    document = parse_json(text, shown, "a pytest-benchmark file")
    benchmarks = document.get("benchmarks") if isinstance(document, dict) else None
    if not isinstance(benchmarks, list) or not benchmarks:
        raise BenchmarkFileError(shown, 1, "not a pytest-benchmark file: expected 'benchmarks' with one entry per "
                                           "benchmark (pytest --benchmark-json FILE)")
    when = _datetime(document.get("datetime"))
    samples = []
    for index, benchmark in enumerate(benchmarks):
        line = line_of(text, ("benchmarks", index))
        stats = benchmark.get("stats") if isinstance(benchmark, dict) else None
        if not isinstance(stats, dict) or not isinstance(benchmark.get("name"), str):
            raise BenchmarkFileError(shown, line, "not a pytest-benchmark benchmark: each has a 'name' and 'stats'")
        data = stats.get("data")
        summary_of = None
        if isinstance(data, list) and data:
            values = []
            for position, run in enumerate(data):
                value = number(run)
                if value is None:
                    raise BenchmarkFileError(shown, line_of(text, ("benchmarks", index, "stats", "data", position)),
                                             f"stats.data[{position}] is {run!r}, not a measured number")
                values.append(value)
        else:
            median = number(stats.get("median"))
            if median is None:
                raise BenchmarkFileError(shown, line_of(text, ("benchmarks", index, "stats")),
                                         "this benchmark has neither per-round 'data' nor a 'median'")
            values = [median]
            rounds = stats.get("rounds")
            summary_of = rounds if isinstance(rounds, int) and not isinstance(rounds, bool) and rounds > 1 else None
        name = benchmark["name"]
        labels = tuple(dict.fromkeys(label for label in (name, benchmark.get("fullname"), name.split("[", 1)[0])
                                     if isinstance(label, str) and label))
        fullname = benchmark.get("fullname")
        samples.append(Sample(line, labels, benchmark, tuple(values), when=when,
                              command=f"pytest {fullname}" if isinstance(fullname, str) else None,
                              summary_of=summary_of))
    conditions = tuple(dict.fromkeys(f"params.{name}" for b in benchmarks if isinstance(b, dict)
                                     for name in (b.get("params") or {})))
    return BenchmarkFile(shown, "pytest-benchmark", tuple(samples), "s", False,
                         host=_host(document.get("machine_info")),
                         software=_software(document.get("commit_info")), label_field="name",
                         condition_fields=conditions)


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
