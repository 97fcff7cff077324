"""A pure function of one record (and a few hashable settings), worked out once per record object.

Records are frozen pydantic models, and a long-lived process (`mkdocs serve`) keeps the models of
unchanged record files from one check to the next (`record_cache.hold_in_memory`): the site asks the
same questions of the same 2,000 objects after every save. Results are kept by the object itself
(its identity, not its value: comparing or hashing a record costs more than most answers) and
dropped with it.
"""

from __future__ import annotations

import functools
import weakref
from collections.abc import Callable, Hashable
from typing import Any, Concatenate, ParamSpec, TypeVar

Result = TypeVar("Result")
Record = TypeVar("Record")
Rest = ParamSpec("Rest")


def by_record(function: Callable[Concatenate[Record, Rest], Result]) -> Callable[Concatenate[Record, Rest], Result]:
    """`function(record, *rest)` kept for as long as `record` lives (`rest`: hashable, given by
    position). The result is shared: it must be immutable."""
    known: dict[int, tuple[weakref.ref[Any], dict[tuple[Hashable, ...], Result]]] = {}

    def drop(key: int) -> Callable[[weakref.ref[Any]], None]:
        def dropped(_: weakref.ref[Any]) -> None:
            known.pop(key, None)
        return dropped

    @functools.wraps(function)
    def once(record: Record, *rest: Rest.args, **named: Rest.kwargs) -> Result:
        if named:  # not a key
            return function(record, *rest, **named)
        key = id(record)
        found = known.get(key)
        if found is None or found[0]() is not record:
            found = known[key] = (weakref.ref(record, drop(key)), {})
        results = found[1]
        if rest not in results:
            results[rest] = function(record, *rest, **named)
        return results[rest]
    return once
