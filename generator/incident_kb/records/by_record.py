"""A pure function of one record, worked out once per record object.

Records are frozen pydantic models, and a long-lived process (`mkdocs serve`) keeps the models of
unchanged record files from one check to the next (`record_cache.hold_in_memory`): the site asks the
same questions of the same 2,000 objects after every save. Results are kept by the object itself
(its identity, not its value: comparing or hashing a record costs more than most answers) and
dropped with it.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable
from typing import Any, TypeVar

Result = TypeVar("Result")
Record = TypeVar("Record")


def by_record(function: Callable[[Record], Result]) -> Callable[[Record], Result]:
    """`function(record)` kept for as long as `record` lives. The result is shared: it must be immutable."""
    known: dict[int, tuple[weakref.ref[Any], Result]] = {}

    def drop(key: int) -> Callable[[weakref.ref[Any]], None]:
        def dropped(_: weakref.ref[Any]) -> None:
            known.pop(key, None)
        return dropped

    @functools.wraps(function)
    def once(record: Record) -> Result:
        key = id(record)
        found = known.get(key)
        if found is not None and found[0]() is record:
            return found[1]
        result = function(record)
        known[key] = (weakref.ref(record, drop(key)), result)
        return result
    once.__wrapped__ = function  # type: ignore[attr-defined]
    return once
