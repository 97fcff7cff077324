"""What every benchmark reader returns: samples (labelled runs, with their fields and place in the
file) and what the file says about how it was measured; the one error a reader raises; and how
a file's format is recognised. Knows no format's details: each has its own module.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from ...findings import KbError
from ...records.vocabulary import MAX_MAGNITUDE  # the schema's bound, without loading pydantic
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
    times, one process each), a pytest-benchmark benchmark (one run: the median of its rounds), a CSV
    row (one run)."""

    line: int  # where it starts in its file (1-based)
    labels: tuple[str, ...]  # the names a --baseline/--candidate label matches, most specific first
    fields: Mapping[str, Any]  # what --condition KEY=FIELD and FIELD=VALUE labels read (dotted paths)
    values: tuple[int | float, ...]  # the metric, one value per independent run, as the file wrote it
    when: date | None = None  # when it was measured, if the file says (a date alone where it gives no zone)
    command: str | None = None  # the benchmark invocation, if the file says
    rounds: int | None = None  # when its one value is the median of this many rounds inside one process


@dataclass(frozen=True, slots=True)
class BenchmarkFile:
    shown: str  # the file as messages name it
    format: str
    samples: tuple[Sample, ...]
    run_is: str  # what one run is, as the import's output says it
    unit: str | None = None  # of the metric, when the format says
    higher_is_better: bool | None = None  # when the format says (times: lower)
    host: str | None = None
    software: str | None = None
    label_field: str = "label"  # what a bare label is compared with, for messages
    condition_fields: tuple[str, ...] = ()  # fields whose differing values make runs incomparable
    dated: str = "from the file"  # where the samples' dates come from, as the import's output says it


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


class WrittenNumber(str):
    """A number in a file that no float holds (`1e400`, a 5,001-digit integer), kept as the text it is:
    refused where a measured number is wanted, text anywhere else (a label, a condition)."""

    __slots__ = ()


_MAX_DIGITS = 18  # an integer longer than this is no measurement, and stays text (Python's limit is 4,300)


def number(value: Any) -> int | float | None:
    """A measured number as the file wrote it (an integer stays one), without float noise: hyperfine's
    0.026567357200000002 is 0.0265673572. None for anything else: text, flags, Infinity, NaN, numbers
    kept as text, and those beyond MAX_MAGNITUDE, which the record refuses (`why_not_measured` says
    which)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) \
            or abs(value) > MAX_MAGNITUDE:
        return None
    return value if isinstance(value, int) else _without_noise(float(value))


def _without_noise(value: float) -> float:
    """A float that is a short decimal plus the rounding error of the arithmetic that made it (rounded
    to 15 significant digits, what a float holds exactly, it ends in three zeros or more) as that
    decimal; any other as it is (a measured number with 13 to 17 digits of its own is kept whole)."""
    rounded = f"{value:.15g}"
    mantissa = rounded.split("e")[0].lstrip("-").replace(".", "").strip("0")
    return float(rounded) if len(mantissa) <= 12 else value


def why_not_measured(value: Any) -> str:
    """What `number` found instead of a measured number, for 'FIELD is ...' in a message."""
    if isinstance(value, WrittenNumber) or (isinstance(value, int | float) and not isinstance(value, bool)
                                            and math.isfinite(value)):
        return (f"{shown_value(value)}, beyond {MAX_MAGNITUDE:g} in size, which no measurement is; check the "
                "number and its unit")
    return f"{shown_value(value)}, not a measured number"


def shown_value(value: Any) -> str:
    """A value from a file as a message shows it: as written, and bounded."""
    if isinstance(value, WrittenNumber):
        text = str(value)
    elif isinstance(value, float) and not math.isfinite(value):
        text = str(value).replace("inf", "Infinity")
    elif value is None:
        text = "null"
    else:
        text = repr(value)
    return text if len(text) <= 40 else f"{text[:30]}... ({len(text):,} characters)"


_DECIMAL = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_INTEGER = re.compile(r"[+-]?[0-9]+")


def number_in_text(text: str) -> int | float | WrittenNumber | None:
    """The number a text writes ('64', '-2.5', '1e-3', as a CSV cell or a scanned parameter does): a
    WrittenNumber where no float holds it (a 5,001-digit integer, 1e400); None for anything else, words
    ('nan', 'inf', 'fast') and Python's other spellings ('1_000') included."""
    stripped = text.strip()
    if not _DECIMAL.fullmatch(stripped):
        return None
    if _INTEGER.fullmatch(stripped):
        return _json_int(stripped)
    return _json_float(stripped)


def _json_int(text: str) -> int | WrittenNumber:
    return int(text) if len(text) <= _MAX_DIGITS else WrittenNumber(text)


def _json_float(text: str) -> float | WrittenNumber:
    value = float(text)
    return value if math.isfinite(value) else WrittenNumber(text)


# Python's json, Infinity and NaN included (SGLang writes `"request_rate": Infinity`), but a number no
# float holds stays its text: json.loads would raise on a 5,001-digit integer and read 1e400 as inf.
JSON_NUMBERS = json.JSONDecoder(parse_int=_json_int, parse_float=_json_float)


def parse_json(text: str, shown: str, what: str) -> Any:
    """One JSON document (`what` it should be, for messages), as Python's json reads it (Infinity and
    NaN included: SGLang writes `"request_rate": Infinity`)."""
    try:
        return JSON_NUMBERS.decode(text)
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
            found.append((number_, JSON_NUMBERS.decode(line)))
        except json.JSONDecodeError as exc:
            raise BenchmarkFileError(shown, number_, f"not a JSON object ({exc.msg}, column {exc.colno})") from None
        except RecursionError:
            raise BenchmarkFileError(shown, number_, "JSON nested too deeply to be a benchmark output") from None
    return found


_WHITESPACE = re.compile(r"[ \t\n\r]*")


def line_of(text: str, path: tuple[str | int, ...]) -> int:
    """The line where the value at `path` starts in a JSON document (its nearest enclosing value that
    can be found, if the path goes astray): for one message, as it walks the text from its start
    (`item_lines` gives every item's line in one walk)."""
    return text.count("\n", 0, _position(text, path)) + 1


def item_lines(text: str, path: tuple[str | int, ...], count: int) -> list[int]:
    """The line where each of the first `count` items of the array at `path` starts, in one walk over
    the text however many items there are (a line looked up per item from the start is quadratic:
    5,000 hyperfine results took 46 s)."""
    pos = _position(text, path)
    line, counted = text.count("\n", 0, pos) + 1, pos
    lines: list[int] = []
    if text.startswith("[", pos):
        pos = _WHITESPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        try:
            while len(lines) < count:
                line += text.count("\n", counted, pos)
                counted = pos
                lines.append(line)
                pos = _after_value(text, pos)
        except (ValueError, IndexError):
            pass
    return lines + [line] * (count - len(lines))


def _position(text: str, path: tuple[str | int, ...]) -> int:
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
    return pos


def _after_value(text: str, pos: int) -> int:
    """Past the value at `pos`, its comma and the whitespace after."""
    _, end = JSON_NUMBERS.raw_decode(text, pos)
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
            parsed = JSON_NUMBERS.decode(text)
        except (ValueError, RecursionError):
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
