"""What a record names: the records (the values of the fields the schema marks `RefersTo`) and the
files of the repository (the fields it marks `NamesPath`).

Records depend on each other only through the ids they name (a knob's revert names its incident, a
hypothesis names its suspect): a re-check after an edit follows them to everything the edit can
change. The files a record names (deploy files, docs, evidence) are what the pre-commit check
watches, what PR mode lays out from the base, what the consistency checks look for and what pages
link: each of those asks `named_paths`, so a new path field needs only its mark. The fields are
found once per model class, from the schema's own annotations.
"""

from __future__ import annotations

import functools
import re
import typing
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .schema import Incident, Knob, NamesPath, RefersTo
from .vocabulary import RecordKey
from .yaml_source import Key

URL_PATTERN = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://")  # a web address, where a field allows one: no path


@dataclass(frozen=True, slots=True)
class NamedPath:
    """A file a record names: where in the record (its key path), the path as written, and its role."""

    key: Key
    path: str
    role: str  # NamesPath.role: 'deploy', 'doc', 'evidence'


def named_records(record: Knob | Incident) -> frozenset[RecordKey]:
    """Every (kind, id) the record names in a `RefersTo` field."""
    return frozenset(_named(record))


def named_paths(record: Knob | Incident, role: str | None = None) -> tuple[NamedPath, ...]:
    """Every file the record names in a `NamesPath` field (of `role`, when given), in the record's
    order; web addresses where a field allows them are no paths and left out."""
    return tuple(found for found in _paths(record, ()) if role is None or found.role == role)


def files_named(records: typing.Iterable[Knob | Incident]) -> set[str]:
    """The paths the records name, as written."""
    return {found.path for record in records for found in named_paths(record)}


def _named(model: BaseModel) -> Iterator[RecordKey]:
    for name, refers_to, _, nested in _fields(type(model)):
        value = getattr(model, name)
        for item in value if isinstance(value, tuple) else (value,):
            if refers_to is not None and isinstance(item, str):
                yield refers_to.kind, item
            elif nested and isinstance(item, BaseModel):
                yield from _named(item)


def _paths(model: BaseModel, where: Key) -> Iterator[NamedPath]:
    for name, _, names_path, nested in _fields(type(model)):
        value = getattr(model, name)
        items = enumerate(value) if isinstance(value, tuple) else ((None, value),)
        for i, item in items:
            key = (*where, name) if i is None else (*where, name, i)
            if names_path is not None and isinstance(item, str):
                if not (names_path.urls and URL_PATTERN.match(item)):
                    yield NamedPath(key, item, names_path.role)
            elif nested and isinstance(item, BaseModel):
                yield from _paths(item, key)


@functools.cache
def _fields(model: type[BaseModel]) -> tuple[tuple[str, RefersTo | None, NamesPath | None, bool], ...]:
    """The fields that can hold a mark: (name, the record it refers to, the file it names, whether it
    holds models that can)."""
    hints = typing.get_type_hints(model, include_extras=True)
    found = []
    for name in model.model_fields:
        refers_to, names_path, models = _look_into(hints[name])
        nested = any(_fields(inner) for inner in models)
        if refers_to is not None or names_path is not None or nested:
            found.append((name, refers_to, names_path, nested))
    return tuple(found)


def _look_into(hint: Any) -> tuple[RefersTo | None, NamesPath | None, list[type[BaseModel]]]:
    """The marks within a type (through Annotated, unions, tuples) and the models in it."""
    if isinstance(hint, type) and issubclass(hint, BaseModel):
        return None, None, [hint]
    metadata = getattr(hint, "__metadata__", ())
    refers_to = next((m for m in metadata if isinstance(m, RefersTo)), None)
    names_path = next((m for m in metadata if isinstance(m, NamesPath)), None)
    models: list[type[BaseModel]] = []
    for argument in typing.get_args(hint):
        inner_refers, inner_path, inner_models = _look_into(argument)
        refers_to, names_path = refers_to or inner_refers, names_path or inner_path
        models += inner_models
    return refers_to, names_path, models
