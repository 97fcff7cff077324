"""A plain CSV of samples: a header row, then one row per run, with a label column (named `label`,
or any column that holds the labels asked for), condition columns and a value column (the metric).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from .samples import (
    BenchmarkFile,
    BenchmarkFileError,
    Sample,
    WrittenNumber,
    number,
    number_in_text,
    why_not_measured,
)
from .serving import direction_and_unit


def read_csv(text: str, shown: str, metric: str) -> BenchmarkFile:
    reader = csv.reader(io.StringIO(text))
    try:
        header = next(reader, None)
        if not header or len(header) < 2:
            raise BenchmarkFileError(shown, 1, "not a CSV of samples: expected a header row naming the columns, e.g. "
                                               f"'label,concurrency,{metric}'")
        names = [name.strip() for name in header]
        if metric not in names:
            raise BenchmarkFileError(shown, 1, f"no column '{metric}' (--metric); the columns are: {', '.join(names)}")
        column = names.index(metric)
        samples = []
        for row in reader:
            line = reader.line_num
            if not any(cell.strip() for cell in row):
                continue
            if len(row) != len(names):
                raise BenchmarkFileError(shown, line, f"{len(row)} cells where the header names {len(names)}")
            written = number_in_text(row[column])
            value = number(written)
            if value is None:
                found = row[column] if written is None else WrittenNumber(row[column].strip())  # as written
                raise BenchmarkFileError(shown, line, f"'{metric}' is {why_not_measured(found)}")
            fields = {name: _cell(cell) for name, cell in zip(names, row)}
            label = fields.get("label")
            samples.append(Sample(line, (str(label),) if label not in (None, "") else (), fields, (value,)))
    except csv.Error as exc:
        raise BenchmarkFileError(shown, reader.line_num or 1, f"not readable as CSV ({exc})") from None
    if not samples:
        raise BenchmarkFileError(shown, 1, "no rows of samples under the header")
    _, higher = direction_and_unit(metric)  # a column's unit cannot be told from its name: --unit gives it
    return BenchmarkFile(shown, "csv", tuple(samples), "one row", None, higher, label_field="label")


def _cell(text: str) -> Any:
    """A cell as a value: 64 and 2.5 are numbers; anything else ('nan', 'inf', a number no float holds)
    is its text."""
    value = number_in_text(text)
    return text.strip() if value is None or isinstance(value, WrittenNumber) else value
