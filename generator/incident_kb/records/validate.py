"""Schema validation: one file's raw YAML in, a model instance and findings out.

Pydantic checks types, enums, required and unknown fields against `schema.py`; this module turns
its errors into findings that point at a line and say how to fix the record. Never raises.
"""

from __future__ import annotations

import difflib
import types
import typing
from datetime import date
from typing import Any

from pydantic import BaseModel, ValidationError

from ..findings import Finding, finding
from ..wording import article, day
from .schema import MODELS, REFERENCE_PATTERN, Record
from .vocabulary import RecordKind
from .yaml_source import Key, LoadedYaml

_EXPECTED = {
    "string_type": "text", "int_type": "a whole number", "float_type": "a number", "bool_type": "true or false",
    "tuple_type": "a list", "list_type": "a list", "dict_type": "a mapping", "model_type": "a mapping of fields",
    "model_attributes_type": "a mapping of fields", "date_type": "a date such as 2026-11-05",
    "datetime_type": "a date-time such as 2026-11-05T20:25:00Z", "is_instance_of": "a date such as 2026-11-05",
}


def validate_record(kind: RecordKind | str, rel_path: str, loaded: LoadedYaml) -> tuple[Record | None, list[Finding]]:
    """Validate one loaded file as a record of `kind`."""
    kind = RecordKind(kind)
    if loaded.error is not None:
        err = loaded.error
        return None, [finding(err.code, rel_path, err.line, err.column, None, err.message)]
    raw = loaded.value
    if not isinstance(raw, dict):
        found = "an empty file" if raw is None else _describe(raw)
        return None, [finding("not-a-mapping", rel_path, 1, 1, None,
                              f"{article(kind)} record is a mapping of fields (e.g. 'id: my-{kind}'), found {found}")]
    model = MODELS[kind]
    subject = raw.get("id") if isinstance(raw.get("id"), str) else None
    try:
        return model.model_validate(raw), []
    except ValidationError as exc:
        return None, _translate(exc, raw, model, rel_path, subject, loaded)


def _translate(exc: ValidationError, raw: dict[str, Any], model: type[BaseModel], rel_path: str,
               subject: str | None, loaded: LoadedYaml) -> list[Finding]:
    grouped: dict[Key, list[dict[str, Any]]] = {}
    for error in exc.errors():
        grouped.setdefault(_data_path(raw, error["loc"]), []).append(dict(error))
    findings = []
    for path, errors in grouped.items():
        # An error inside a list also makes pydantic say the list is too short: the inner one is the news.
        if any(e["type"] == "too_short" for e in errors) and any(len(p) > len(path) and p[:len(path)] == path
                                                                    for p in grouped):
            continue
        line, column = loaded.source_map.locate(path)
        code, message = _explain(errors, path, raw, model)
        findings.append(finding(code, rel_path, line, column, subject, message, dotted(path) or None))
    return findings


def _data_path(raw: Any, loc: tuple[int | str, ...]) -> Key:
    """The part of a pydantic error location that exists in the data (drops union member tags)."""
    path: list[str | int] = []
    node = raw
    for part in loc:
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            node = node[part]
        elif isinstance(node, dict) and isinstance(part, str) and part.isidentifier():
            path.append(part)  # a missing field: keep its name, it is what the message is about
            break
        else:
            continue
        path.append(part)
    return tuple(path)


def _explain(errors: list[dict[str, Any]], path: Key, raw: Any, model: type[BaseModel]) -> tuple[str, str]:
    error = errors[0]
    kind = error["type"]
    name = dotted(path) or "the record"
    field = str(path[-1]) if path else ""
    fields = fields_at(model, path[:-1])
    if kind == "missing":
        doc = fields.get(field, "")
        return "missing-field", f"'{name}' is required but missing; add '{field}:' ({doc.rstrip('.')})"
    if kind == "extra_forbidden":
        close = difflib.get_close_matches(field, list(fields), n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"the fields here are: {', '.join(fields)}"
        where = f"'{dotted(path[:-1])}'" if len(path) > 1 else "the record"
        return "unknown-field", f"'{field}' is not a field of {where}; {hint}"
    value = _value_at(raw, path)
    if kind in ("enum", "literal_error"):
        allowed = error.get("ctx", {}).get("expected", "")
        options = [o.strip(" '") for o in allowed.replace(" or ", ", ").split(",")]
        close = difflib.get_close_matches(str(value), options, n=1, cutoff=0.5)
        hint = f"; did you mean '{close[0]}'?" if close else ""
        return "bad-value", f"'{name}' is {_describe(value)}; expected one of {allowed}{hint}"
    if kind == "string_pattern_mismatch" and error.get("ctx", {}).get("pattern") == REFERENCE_PATTERN:
        return "bad-value", (f"'{name}' is {_describe(value)}; a reference is a record's id (a slug of lowercase "
                             "letters, digits and dashes, e.g. 'db-pool-size') or, for a record of another "
                             "knowledge base, NAME:ID, e.g. 'payments:db-pool-size'")
    if kind == "string_pattern_mismatch":
        return "bad-value", (f"'{name}' is {_describe(value)}; an id is a slug of lowercase letters, digits and "
                             "dashes, e.g. 'multi-round-harness-hang'")
    if kind in ("string_too_short", "too_short"):
        return ("bad-value",
                f"'{name}' is empty; give at least one {'character' if kind == 'string_too_short' else 'entry'}")
    if kind == "string_too_long":
        return "bad-value", f"'{name}' is too long ({error['ctx']['max_length']} characters at most)"
    if kind == "value_error":
        return "bad-value", f"'{name}' is {_describe(value)}: {str(error['msg']).removeprefix('Value error, ')}"
    kinds = {e["type"] for e in errors}
    if {"string_type", "int_type", "bool_type"} <= kinds:
        expected = "a single value (text, a number, or true/false)"
    elif {"int_type", "float_type"} <= kinds:
        expected = "a number"
    else:
        expected = " or ".join(dict.fromkeys(_EXPECTED.get(e["type"], e["msg"]) for e in errors))
    return "bad-type", f"'{name}' must be {expected}, found {_describe(value)}"


def dotted(path: Key) -> str:
    """A key path as a reader writes it: history[2].status."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def fields_at(model: type[BaseModel], path: Key) -> dict[str, str]:
    """Field names (with their docs), in declaration order, of the model found at `path`; empty for
    free-form mappings such as `scope`."""
    current: type[BaseModel] | None = model
    for part in path:
        if current is None or isinstance(part, int):
            continue
        info = current.model_fields.get(part)
        current = _inner_model(info.annotation) if info else None
    if current is None:
        return {}
    return {name: info.description or "" for name, info in current.model_fields.items()}


def _inner_model(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is not None:
        for arg in typing.get_args(annotation):
            found = _inner_model(arg)
            if found:
                return found
    return None


def _value_at(raw: Any, path: Key) -> Any:
    for part in path:
        try:
            raw = raw[part]
        except (KeyError, IndexError, TypeError):
            return None
    return raw


def _describe(value: Any) -> str:
    if value is None:
        return "empty (null)"
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, str):
        shown = value if len(value) <= 60 else value[:57] + "..."
        return f"the text {shown!r}"
    if isinstance(value, int | float):
        shown = str(value)
        return f"the number {shown if len(shown) <= 24 else shown[:12] + f'... ({len(shown)} digits)'}"
    if isinstance(value, date):
        return f"the date {day(value)}"
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return f"{article(type(value).__name__)} value"
