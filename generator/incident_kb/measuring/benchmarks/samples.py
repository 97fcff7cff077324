"""What every benchmark reader returns: samples (labelled runs, with their fields and place in the
file) and what the file says about how it was measured; the one error a reader raises; and how
a file's format is recognised. Knows no format's details: each has its own module.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ...findings import KbError
from ...repository.files import UnreadableFile, read_bounded

MAX_FILE_BYTES = 512 << 20  # a serving benchmark with --output-details is large, but never this large
FORMATS = ("sglang", "vllm", "hyperfine", "pytest-benchmark", "csv")


class BenchmarkFileError(KbError):
    """A file that cannot be imported: one line, 'FILE:LINE: what is wrong; what to do'."""

    def __init__(self, shown: str, line: int, message: str) -> None:
        super().__init__(f"{shown}:{line}: {message}; nothing was written")


@dataclass(frozen=True, slots=True)
class Sample:
    """Runs of one benchmark: a serving benchmark's object (one run), a hyperfine command (its
    times), a pytest-benchmark benchmark (its rounds), a CSV row (one run)."""

    line: int  # where it starts in its file (1-based)
    labels: tuple[str, ...]  # the names a --baseline/--candidate label matches, most specific first
    fields: Mapping[str, Any]  # what --condition KEY=FIELD and FIELD=VALUE labels read (dotted paths)
    values: tuple[float, ...]  # the metric, one value per run
    when: datetime | None = None  # when it was measured, if the file says
    command: str | None = None  # the benchmark invocation, if the file says
    summary_of: int | None = None  # when `values` is one median standing for this many rounds


@dataclass(frozen=True, slots=True)
class BenchmarkFile:
    shown: str  # the file as messages name it
    format: str
    samples: tuple[Sample, ...]
    unit: str | None = None  # of the metric, when the format says
    higher_is_better: bool | None = None  # when the format says (times: lower)
    host: str | None = None
    software: str | None = None
    label_field: str = "label"  # what a bare label is compared with, for messages
    condition_fields: tuple[str, ...] = ()  # fields whose differing values make runs incomparable
    notes: tuple[str, ...] = field(default=())


def read_text(path: Path, shown: str) -> str:
    try:
        data = read_bounded(path, MAX_FILE_BYTES)
    except UnreadableFile as exc:
        raise KbError(f"{shown}: cannot read it ({exc}); nothing was written") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise BenchmarkFileError(shown, line, "not UTF-8 text, so not a benchmark output kb reads") from None


def field_value(fields: Mapping[str, Any], dotted: str) -> tuple[bool, Any]:
    """(found, value) of a dotted path ('parameters.threads') in nested mappings; a key that itself
    holds a dot is found too."""
    if dotted in fields:
        return True, fields[dotted]
    node: Any = fields
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False, None
        node = node[part]
    return True, node


def number(value: Any) -> float | None:
    """A measured number, or None for anything else (text, flags, Infinity, NaN)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return None
    return float(value)


def parse_json(text: str, shown: str, what: str) -> Any:
    """One JSON document (`what` it should be, for messages), as Python's json reads it (Infinity and
    NaN included: SGLang writes `"request_rate": Infinity`)."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if exc.msg == "Extra data":
            raise BenchmarkFileError(shown, exc.lineno, f"not {what}: more than one JSON value (JSON lines, one "
                                                        "object per run, as serving benchmarks write?)") from None
        raise BenchmarkFileError(shown, exc.lineno, f"not valid JSON ({exc.msg}, column {exc.colno})") from None
    except RecursionError:
        raise BenchmarkFileError(shown, 1, "JSON nested too deeply to be a benchmark output") from None


def json_lines(text: str, shown: str) -> list[tuple[int, Any]]:
    """(line, object) for every non-blank line of a JSON-lines file."""
    found = []
    for number_, line in enumerate(text.split("\n"), 1):
        if not line.strip():
            continue
        try:
            found.append((number_, json.loads(line)))
        except json.JSONDecodeError as exc:
            raise BenchmarkFileError(shown, number_, f"not a JSON object ({exc.msg}, column {exc.colno})") from None
        except RecursionError:
            raise BenchmarkFileError(shown, number_, "JSON nested too deeply to be a benchmark output") from None
    return found


_WHITESPACE = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()


def line_of(text: str, path: tuple[str | int, ...]) -> int:
    """The line where the value at `path` starts in a JSON document (its nearest enclosing value that
    can be found, if the path goes astray): for messages only, so it walks the text just once."""
    pos = _WHITESPACE.match(text, 0).end()  # type: ignore[union-attr]
    try:
        for part in path:
            if isinstance(part, int) and text.startswith("[", pos):
                pos = _WHITESPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
                for _ in range(part):
                    pos = _after_value(text, pos)
            elif isinstance(part, str) and text.startswith("{", pos):
                pos = _WHITESPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
                while text.startswith('"', pos):
                    key, end = json.decoder.scanstring(text, pos + 1)  # type: ignore[attr-defined]
                    pos = _WHITESPACE.match(text, text.index(":", end) + 1).end()  # type: ignore[union-attr]
                    if key == part:
                        break
                    pos = _after_value(text, pos)
                else:
                    break
            else:
                break
    except (ValueError, IndexError):
        pass
    return text.count("\n", 0, pos) + 1


def _after_value(text: str, pos: int) -> int:
    """Past the value at `pos`, its comma and the whitespace after."""
    _, end = _DECODER.raw_decode(text, pos)
    end = _WHITESPACE.match(text, end).end()  # type: ignore[union-attr]
    if text.startswith(",", end):
        end = _WHITESPACE.match(text, end + 1).end()  # type: ignore[union-attr]
    return end


Reader = Callable[[str, str, str], BenchmarkFile]  # (text, shown, metric) -> the file's samples


def detect_format(text: str, shown: str, parsed: Any = None) -> str:
    """Which tool wrote the file, from its shape; a file none of them wrote is a one-line error."""
    stripped = text.lstrip()
    if not stripped.startswith(("{", "[")):
        if "," in stripped.split("\n", 1)[0]:
            return "csv"
        raise BenchmarkFileError(shown, 1, _FOREIGN)
    if parsed is None:
        try:
            parsed = json.loads(text)
        except (json.JSONDecodeError, RecursionError):
            parsed = None
    if parsed is None:  # JSON lines: the first object says
        first = json_lines(stripped.split("\n", 1)[0], shown)
        parsed = first[0][1] if first else None
    if isinstance(parsed, dict):
        if isinstance(parsed.get("results"), list) and all(isinstance(r, dict) and "command" in r
                                                            for r in parsed["results"]):
            return "hyperfine"
        if isinstance(parsed.get("benchmarks"), list) and ("machine_info" in parsed or all(
                isinstance(b, dict) and "stats" in b for b in parsed["benchmarks"])):
            return "pytest-benchmark"
        if any(key in parsed for key in _VLLM_KEYS):
            return "vllm"
        if any(key in parsed for key in _SGLANG_KEYS):
            return "sglang"
    raise BenchmarkFileError(shown, 1, _FOREIGN)


_VLLM_KEYS = ("endpoint_type", "burstiness", "tokenizer_id")  # vLLM's serving benchmark writes these
_SGLANG_KEYS = ("dataset_name", "random_range_ratio", "sharegpt_output_len", "server_info")
_FOREIGN = ("not a benchmark output kb reads: expected SGLang or vLLM serving results (JSON lines or JSON), "
            "hyperfine --export-json, pytest-benchmark --benchmark-json, or a CSV of samples with a header row; "
            "give --format if it is one of these")
