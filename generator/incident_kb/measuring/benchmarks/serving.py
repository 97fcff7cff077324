"""SGLang's and vLLM's serving benchmarks: one JSON object per run.

SGLang (`python -m sglang.bench_serving --output-file X.jsonl`) appends one object per run, with
`tag` (its `--tag`), `backend`, `dataset_name`, `request_rate` (`Infinity` for the default
unlimited rate: Python's JSON), `max_concurrency`, `server_info` (with the server's `version`)
and the results (`output_throughput`, `median_ttft_ms`...). vLLM's (`--save-result`, or
`--append-result` for one object per line) writes `date` (YYYYMMDD-HHMMSS: the benchmark machine's
local time, with no zone, so only its day is recorded), `label`, `model_id`, `request_rate` ("inf"
when unlimited), `burstiness`, `max_concurrency` and the results.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Any

from .samples import BenchmarkFile, BenchmarkFileError, Sample, json_lines, number, parse_json, why_not_measured

# Fields that change what a run measures: runs that differ in one cannot be pooled unless it is a
# condition of the measurement.
CONDITION_FIELDS = ("max_concurrency", "request_rate", "random_input_len", "random_output_len", "dataset_name",
                    "model_id", "backend")


def read_sglang(text: str, shown: str, metric: str) -> BenchmarkFile:
    return _read(text, shown, metric, "sglang", label_field="tag")


def read_vllm(text: str, shown: str, metric: str) -> BenchmarkFile:
    return _read(text, shown, metric, "vllm", label_field="label")


def _read(text: str, shown: str, metric: str, tool: str, label_field: str) -> BenchmarkFile:
    stripped = text.strip()
    if stripped.startswith("{") and "\n" in stripped and not stripped.split("\n", 1)[0].rstrip().endswith("}"):
        objects = [(1, parse_json(text, shown, f"a result of {_NAMES[tool]}"))]  # one pretty-printed object
    else:
        objects = json_lines(text, shown)
    if not objects:
        raise BenchmarkFileError(shown, 1, f"no runs: the file is empty ({_NAMES[tool]} writes one JSON object "
                                           "per run)")
    samples = []
    versions = []
    for line, run in objects:
        if not isinstance(run, dict):
            raise BenchmarkFileError(shown, line, f"not a result of {_NAMES[tool]}: a run is a JSON object")
        if metric not in run:
            known = ", ".join(key for key, value in run.items() if number(value) is not None)
            raise BenchmarkFileError(shown, line, f"this run has no '{metric}' (--metric); its numbers are: {known}")
        value = number(run[metric])
        if value is None:
            raise BenchmarkFileError(shown, line, f"'{metric}' is {why_not_measured(run[metric])}")
        label = run.get(label_field)
        samples.append(Sample(line, (label,) if isinstance(label, str) and label else (), run, (value,),
                              when=_date(run.get("date"))))
        server = run.get("server_info")
        if isinstance(server, dict) and isinstance(server.get("version"), str):
            versions.append(f"{tool} {server['version']}")
    unit, higher = direction_and_unit(metric)
    return BenchmarkFile(shown, tool, tuple(samples), _RUN_IS[tool], unit, higher,
                         software=", ".join(dict.fromkeys(versions)) or None, label_field=label_field,
                         condition_fields=CONDITION_FIELDS, dated=_DATED.get(tool, "from the file"))


_RUN_IS = {"sglang": "one line SGLang's bench_serving appended (one benchmark against the server)",
           "vllm": "one result vLLM's serving benchmark wrote (one benchmark against the server)"}
_DATED = {"vllm": "from the file: the benchmark machine's local day, as vLLM writes no time zone"}


_NAMES = {"sglang": "SGLang's bench_serving", "vllm": "vLLM's serving benchmark"}


def direction_and_unit(metric: str) -> tuple[str | None, bool]:
    """The unit and direction of a serving benchmark's metric, from its name."""
    name = metric.lower()
    if name.endswith("_ms"):
        return "ms", False
    if name in ("duration", "benchmark_duration"):
        return "s", False
    if name == "request_throughput" or name == "request_goodput":
        return "req/s", True
    if "throughput" in name:
        return "tok/s", True
    return None, not any(word in name for word in ("latency", "ttft", "tpot", "itl", "e2el"))


def _date(value: Any) -> date | None:
    """vLLM's 'date' (YYYYMMDD-HHMMSS, from `datetime.now()`): the benchmark machine's local time, in a
    zone the file does not say. A time without a zone reads as UTC in a record, so only the day is kept."""
    if not isinstance(value, str):
        return None
    try:
        return datetime.strptime(value, "%Y%m%d-%H%M%S").date()
    except ValueError:
        return None
