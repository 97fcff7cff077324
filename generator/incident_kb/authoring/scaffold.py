"""New records (`kb new knob ID`, `kb new incident ID`): every field of the schema, in the schema's
order, each under a comment saying what goes there, with the editor schema modeline on top.

Values come from the caller; the other fields are written empty for the author to fill in. The new
file is validated like any edit and never replaces an existing record (`record_files.py` sees to both).
Knows the schema's fields, not the command line.
"""

from __future__ import annotations

import enum
import typing
from pathlib import Path
from typing import Any

from pydantic.fields import FieldInfo

from ..findings import KbError
from ..records.schema import MODELS
from ..records.vocabulary import RecordKind
from ..records.yaml_source import parse_yaml
from .record_files import new_record, write_checked
from .yaml_emit import Indent, render_entry


def modeline(kind: RecordKind, rel_path: str) -> str:
    """The editor schema modeline of a record at `rel_path`: the schema under the knowledge base's
    schemas/ folder (where `kb init` writes it), relative to the record's folder."""
    return f"# yaml-language-server: $schema={'../' * rel_path.count('/')}schemas/{kind}.schema.json"


def create_record(root: Path, kind: RecordKind, record_id: str, values: dict[str, Any]) -> str:
    """Write the new record; returns its repository-relative path."""
    record = new_record(root, kind, record_id)
    values = {"id": record_id, **values}
    text = scaffold_text(kind, values, record.rel_path)
    written = parse_yaml(text).value
    expected = {name: values.get(name, _empty(info)) for name, info in MODELS[kind].model_fields.items()}
    if written != expected:  # pragma: no cover - a rendering bug; never write a record that says something else
        raise KbError(f"{record.rel_path}: the new record would not read back as given; this is a bug in kb")
    write_checked(record, text)
    return record.rel_path


def scaffold_text(kind: RecordKind, values: dict[str, Any], rel_path: str) -> str:
    lines = [modeline(kind, rel_path)]
    for name, info in MODELS[kind].model_fields.items():
        lines.append(f"# {field_comment(info)}")
        lines += render_entry(name, values.get(name, _empty(info)), 0, Indent())
    return "\n".join(lines) + "\n"


def field_comment(info: FieldInfo) -> str:
    """The field's doc from the schema, with its allowed values and whether it is required."""
    text = (info.description or "").rstrip(".")
    choices = allowed_values(info.annotation)
    if choices and not all(choice in text for choice in choices):
        text += f" ({' | '.join(choices)})"
    return f"{text}. Required." if info.is_required() else f"{text}."


def allowed_values(annotation: Any) -> list[str]:
    """The values an enum or literal field allows (looking inside Optional), else []."""
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return [str(member.value) for member in annotation]
    if typing.get_origin(annotation) is typing.Literal:
        return [str(arg) for arg in typing.get_args(annotation)]
    for arg in typing.get_args(annotation):
        found = allowed_values(arg)
        if found:
            return found
    return []


def _empty(info: FieldInfo) -> Any:
    """What an unfilled field holds: an empty list or mapping where the schema has one, else nothing."""
    origin = typing.get_origin(info.annotation)
    if origin is tuple:
        return []
    if origin is dict:
        return {}
    return None
