"""Which fields of a record are material: the fields the schema marks `Material`, read from a record
as written (any version in git's history, valid or not), as display strings.

A knob's status, value and default; an incident's status, its root cause, and each hypothesis's
verdict. A hypothesis added or dropped while open, or evidence recorded, is no material change: a
verdict (refuted, confirmed), a status or a root cause is. Derived once per model from the marks;
nothing here names a field.
"""

from __future__ import annotations

import functools
import json
import typing
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .schema import MODELS, Material
from .vocabulary import RecordKind


@dataclass(frozen=True, slots=True)
class MaterialFields:
    """A record version's material fields: label -> value shown (None when absent), in the order a
    change lists them, and per label the values whose coming or going is no change."""

    values: dict[str, str | None]
    quiet: Mapping[str, tuple[str, ...]]

    def changes(self, before: MaterialFields) -> list[tuple[str, str | None, str | None]]:
        """(label, old, new) of each material change from `before` to these fields."""
        found = []
        for label in dict.fromkeys([*before.values, *self.values]):
            old, new = before.values.get(label), self.values.get(label)
            quiet = self.quiet.get(label) or before.quiet.get(label) or ()
            if old != new and not (old is None and new in quiet) and not (new is None and old in quiet):
                found.append((label, old, new))
        return found

    def to_json(self) -> list[object]:
        return [[[label, value] for label, value in self.values.items()], {k: list(v) for k, v in self.quiet.items()}]

    @classmethod
    def from_json(cls, values: list[Any]) -> MaterialFields:
        pairs, quiet = values
        return cls({str(label): value for label, value in pairs}, {k: tuple(v) for k, v in quiet.items()})


def material_fields(kind: RecordKind, value: Any) -> MaterialFields | None:
    """The material fields of a record as written; None when `value` is no record (not a mapping)."""
    if not isinstance(value, dict):
        return None
    found = sorted(_fields(MODELS[kind], value, None), key=lambda item: item[0])  # stable: declaration order kept
    return MaterialFields({label: shown for _, label, shown, _ in found},
                          {label: quiet for _, label, _, quiet in found if quiet})


def _fields(model: type[BaseModel], raw: dict[str, Any], entry_id: str | None
            ) -> Iterator[tuple[int, str, str | None, tuple[str, ...]]]:
    for name, mark, entries in _marked(model):
        value = raw.get(name)
        if mark is not None:
            if mark.via is not None and isinstance(value, dict):
                value = value.get(mark.via)
            label = mark.label.replace("{id}", entry_id) if entry_id is not None else mark.label
            yield mark.rank, label, _shown(value), mark.quiet
        else:
            for entry in value if isinstance(value, list) else ():
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    yield from _fields(entries, entry, entry["id"])  # type: ignore[arg-type]


@functools.cache
def _marked(model: type[BaseModel]) -> tuple[tuple[str, Material | None, type[BaseModel] | None], ...]:
    """(field, its Material mark) for the marked fields, and (field, None, entry model) for lists of
    entries with marked fields of their own."""
    hints = typing.get_type_hints(model, include_extras=True)
    found: list[tuple[str, Material | None, type[BaseModel] | None]] = []
    for name, info in model.model_fields.items():
        marks = [m for m in info.metadata if isinstance(m, Material)]
        if marks:
            found.append((name, marks[0], None))
            continue
        if typing.get_origin(hints[name]) is tuple:
            for inner in typing.get_args(hints[name]):
                if isinstance(inner, type) and issubclass(inner, BaseModel) and _marked(inner):
                    found.append((name, None, inner))
    return tuple(found)


def _shown(value: Any) -> str | None:
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    return json.dumps(value, sort_keys=True, default=str)
