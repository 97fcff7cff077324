"""Argument types of the authoring commands: dates, values and KEY=VALUE pairs read the way YAML
reads them, so `--value 512` is the number a record would hold. Each raises argparse's error with
an example of what is expected.
"""

from __future__ import annotations

import argparse
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from ...records.vocabulary import parse_when

if TYPE_CHECKING:
    from ...records.yaml_source import LoadedYaml


def _parsed(text: str) -> LoadedYaml:
    from ...records.yaml_source import parse_yaml  # here: ruamel.yaml would cost every command its start

    return parse_yaml(text)


def when(text: str) -> date | datetime:
    """A date as a record holds it (date-times in naive UTC), read the way the schema reads one."""
    value = _parsed(text).value
    try:
        if not isinstance(value, date | datetime):  # a number is no date (pydantic would read seconds)
            raise ValueError
        return parse_when(value)
    except ValueError as exc:
        why = f" kb can use ({exc})" if str(exc) else ""
        raise argparse.ArgumentTypeError(f"{text!r} is not a date{why}; give e.g. 2026-11-05 or "
                                         "2026-11-05T20:25:00") from None


def scalar(text: str) -> Any:
    """A value typed the way YAML reads it: 512 is a number, true a flag, anything else text."""
    loaded = _parsed(text)
    if loaded.error is not None or isinstance(loaded.value, dict | list) or loaded.value is None:
        raise argparse.ArgumentTypeError(f"{text!r} is not a single value; give e.g. 512, true or a word")
    if isinstance(loaded.value, date | datetime):
        return text  # a value that looks like a date is still the setting's text
    return loaded.value


def number(text: str) -> int | float:
    value = scalar(text)
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; give e.g. 12.8")
    return value


def pair(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=VALUE; give e.g. concurrency=64")
    return key.strip(), scalar(value)


def today_unless(value: date | datetime | None) -> date | datetime:
    return value if value is not None else date.today()


def field_pair(text: str) -> tuple[str, str]:
    """KEY=FIELD: a condition's name and the field of each run it is read from."""
    key, sep, field_name = text.partition("=")
    if not sep or not key.strip() or not field_name.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is not KEY=FIELD; give e.g. concurrency=max_concurrency")
    return key.strip(), field_name.strip()
