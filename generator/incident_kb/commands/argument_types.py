"""Argument types of the authoring commands: dates read the way YAML reads them; values and
KEY=VALUE pairs recorded as given, so `--value 512` is the number a record would hold and `'a #b'`
the text `a #b` (never `a`, as YAML would read it). Each raises argparse's error with an example of
what is expected.
"""

from __future__ import annotations

import argparse
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from ..records.vocabulary import parse_when

if TYPE_CHECKING:
    from ..records.yaml_source import LoadedYaml


def _parsed(text: str) -> LoadedYaml:
    from ..records.yaml_source import parse_yaml  # here: ruamel.yaml would cost every command its start

    return parse_yaml(text)


def when(text: str) -> date | datetime:
    """A date or date-time, checked the way the schema reads one, and kept as written (a date-time's
    zone, or its lack of one, is what the record will say)."""
    value = _parsed(text).value
    try:
        if not isinstance(value, date | datetime):  # a number is no date (pydantic would read seconds)
            raise ValueError
        parse_when(value)
        return value
    except ValueError as exc:
        why = f" kb can use ({exc})" if str(exc) else ""
        raise argparse.ArgumentTypeError(f"{text!r} is not a date{why}; give e.g. 2026-11-05 or "
                                         "2026-11-05T20:25:00") from None


def scalar(text: str) -> Any:
    """A value as given: a number or a flag where the text is one as a record writes it (512, 12.8,
    true), else exactly the text, quoted in the record as needed ('|', 'a #b', '&x', ' 512');
    YAML's null and what is not one printable line are refused."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"{text!r} is empty; give a value, e.g. 512, true or a word")
    if not text.isprintable():
        raise argparse.ArgumentTypeError(f"{text!r} holds a line break or a control character; give the value "
                                         "on one line")
    loaded = _parsed(text)
    if loaded.error is None and loaded.value is None and text.strip() in _NULLS:
        raise argparse.ArgumentTypeError(f"{text!r} reads as no value in a record; give a value, e.g. 512, true "
                                         "or a word")
    if loaded.error is None and isinstance(loaded.value, bool | int | float) and _written(loaded.value) == text:
        return loaded.value
    return text  # text, dates and everything YAML would read otherwise ('a #b' is not 'a'): as given


_NULLS = ("~", "null", "Null", "NULL")


def _written(value: Any) -> str:
    from ..authoring.yaml_emit import render_scalar  # on use, as parse_yaml above

    return render_scalar(value)


def number(text: str) -> int | float:
    """A number, written any way YAML reads one (12.8, 1e3, 0x1F)."""
    loaded = _parsed(text)
    value = loaded.value
    if loaded.error is not None or "#" in text or isinstance(value, bool) or not isinstance(value, int | float):
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
