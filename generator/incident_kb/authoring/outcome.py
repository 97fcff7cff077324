"""What an editing act returns (`Outcome`), and how it writes a record entry: keys in the schema's
order, what was not given left out. Shared by every act; prints nothing."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel

from ..findings import Finding


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a command did (one line), what else needs doing, and what `kb check` now reports."""

    done: str
    next_steps: tuple[str, ...] = ()
    check: tuple[Finding, ...] = field(default=())
    details: tuple[str, ...] = ()  # lines about what was done, shown under it


def fields(model: type[BaseModel]) -> list[str]:
    """A model's field names in declaration order: the canonical key order of its records."""
    return list(model.model_fields)


def entry(model: type[BaseModel], **values: Any) -> dict[str, Any]:
    """A record entry with its keys in the schema's order, leaving out what was not given."""
    return {name: values[name] for name in fields(model) if values.get(name) is not None}
