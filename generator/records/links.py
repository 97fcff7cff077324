"""Which records a record names: the values of the fields the schema marks `RefersTo`.

Records depend on each other only through these ids (a knob's revert names its incident, a
hypothesis names its suspect): a re-check after an edit follows them to everything the edit can
change. The fields are found once per model class, from the schema's own annotations.
"""

from __future__ import annotations

import functools
import typing
from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from .schema import Incident, Knob, RefersTo
from .vocabulary import RecordKind

RecordKey = tuple[RecordKind, str]


def named_records(record: Knob | Incident) -> frozenset[RecordKey]:
    """Every (kind, id) the record names in a `RefersTo` field."""
    return frozenset(_named(record))


def _named(model: BaseModel) -> Iterator[RecordKey]:
    for name, refers_to, nested in _fields(type(model)):
        value = getattr(model, name)
        for item in value if isinstance(value, tuple) else (value,):
            if refers_to is not None and isinstance(item, str):
                yield refers_to.kind, item
            elif nested and isinstance(item, BaseModel):
                yield from _named(item)


@functools.cache
def _fields(model: type[BaseModel]) -> tuple[tuple[str, RefersTo | None, bool], ...]:
    """The fields that can hold a reference: (name, what it refers to, whether it holds models that can)."""
    hints = typing.get_type_hints(model, include_extras=True)
    found = []
    for name in model.model_fields:
        refers_to, models = _look_into(hints[name])
        nested = any(_fields(inner) for inner in models)
        if refers_to is not None or nested:
            found.append((name, refers_to, nested))
    return tuple(found)


def _look_into(hint: Any) -> tuple[RefersTo | None, list[type[BaseModel]]]:
    """The `RefersTo` mark within a type (through Annotated, unions, tuples) and the models in it."""
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        return None, [hint]
    marks = [m for m in getattr(hint, "__metadata__", ()) if isinstance(m, RefersTo)]
    refers_to, models = (marks[0] if marks else None), []
    for argument in typing.get_args(hint):
        inner_mark, inner_models = _look_into(argument)
        refers_to = refers_to or inner_mark
        models += inner_models
    return refers_to, models
