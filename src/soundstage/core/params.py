"""Query strings and form bodies, one rule for every endpoint: a parameter the matched route
does not declare is 422 `parameter_unknown` (as an unknown JSON field is), and a query value
is read as its JSON spelling (`QueryBool`, `QueryInt`).

Routes whose query string is a credential (signed media and demo URLs) check it whole
themselves: they are marked with `@raw_query`, and this check leaves them alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import Annotated, Any, TypeVar

from fastapi import Request
from fastapi.dependencies.models import Dependant
from fastapi.params import File, Form
from pydantic import AwareDatetime, BaseModel, BeforeValidator, WithJsonSchema
from starlette.requests import HTTPConnection

from soundstage.core.errors import ParameterUnknown
from soundstage.core.timeutil import TIMESTAMP_PATTERN

F = TypeVar("F", bound=Callable[..., Any])

_RAW_QUERY = "__soundstage_raw_query__"


def raw_query(endpoint: F) -> F:
    """Marks an endpoint that verifies its query string whole (a signature over exactly
    `expires=…&signature=…`): the unknown-parameter check does not apply to it."""
    setattr(endpoint, _RAW_QUERY, True)
    return endpoint


def takes_raw_query(endpoint: Callable[..., Any] | None) -> bool:
    return bool(getattr(endpoint, _RAW_QUERY, False))


def _dependants(dependant: Dependant) -> Iterator[Dependant]:
    yield dependant
    for sub in dependant.dependencies:
        yield from _dependants(sub)


def _names(fields: Any) -> Iterator[str]:
    for field in fields:
        annotation = field.field_info.annotation
        if isinstance(annotation, type) and issubclass(annotation, BaseModel):
            # A pydantic model declared as the query (or form) takes its fields.
            for name, info in annotation.model_fields.items():
                yield info.alias or name
        else:
            yield field.alias


def declared_query(dependant: Dependant) -> frozenset[str]:
    """Every query parameter the route reads, its sub-dependencies' (pagination) included,
    by the name the client sends (its alias)."""
    return frozenset(n for d in _dependants(dependant) for n in _names(d.query_params))


def declared_form(dependant: Dependant) -> frozenset[str] | None:
    """The form fields (multipart or urlencoded) the route reads; None if it takes no form."""
    fields = [
        f
        for d in _dependants(dependant)
        for f in d.body_params
        if isinstance(f.field_info, Form | File)
    ]
    return frozenset(_names(fields)) if fields else None


_known: dict[int, tuple[Dependant, frozenset[str], frozenset[str] | None]] = {}


def _declared(dependant: Dependant) -> tuple[frozenset[str], frozenset[str] | None]:
    cached = _known.get(id(dependant))
    if cached is None or cached[0] is not dependant:
        cached = (dependant, declared_query(dependant), declared_form(dependant))
        _known[id(dependant)] = cached
    return cached[1], cached[2]


def _unknown(where: str, name: str, known: frozenset[str]) -> ParameterUnknown:
    takes = f"takes: {', '.join(sorted(known))}" if known else f"takes no {where} parameters"
    return ParameterUnknown(
        f"{name}: Unknown {where} parameter; this endpoint {takes}.", param=name
    )


async def refuse_unknown_parameters(connection: HTTPConnection) -> None:
    """An app-wide dependency: 422 `parameter_unknown` naming the first query parameter (or
    form field) the matched route does not declare. Repeating a declared one is not checked
    here (a list parameter takes each; a single one takes the last). WebSocket routes read
    their query themselves (realtime.gate)."""
    if not isinstance(connection, Request):
        return
    request = connection
    route = request.scope.get("route")
    dependant = getattr(route, "dependant", None)
    if dependant is None or takes_raw_query(getattr(route, "endpoint", None)):
        return
    query, form = _declared(dependant)
    for name in request.query_params:
        if name not in query:
            raise _unknown("query", name, query)
    if form is not None and _is_form(request):
        for name in await request.form():
            if name not in form:
                raise _unknown("form", name, form)


def _is_form(request: Request) -> bool:
    content_type = request.headers.get("content-type", "").lower()
    return content_type.startswith(("multipart/form-data", "application/x-www-form-urlencoded"))


# Query values are strings: each is read as its JSON spelling, nothing looser.

_INTEGER = re.compile(r"-?[0-9]+", re.ASCII)


def _query_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    if value == "true":
        return True
    if value == "false":
        return False
    raise ValueError("must be `true` or `false`")


def _query_int(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    raise ValueError("must be an integer in decimal digits")


# A boolean query parameter: exactly `true` or `false` (not `1`, `yes`, `True`).
QueryBool = Annotated[bool, BeforeValidator(_query_bool)]
# An integer query parameter: ASCII decimal digits, an optional leading `-` (not `+5`, ` 5`,
# `5.0`, `1_000`, `5e1`).
QueryInt = Annotated[int, BeforeValidator(_query_int)]


_TIMESTAMP = re.compile(TIMESTAMP_PATTERN, re.ASCII)


def _query_timestamp(value: Any) -> Any:
    if isinstance(value, str) and not _TIMESTAMP.fullmatch(value):
        raise ValueError(
            "must be an instant as the API writes them (RFC 3339 UTC with milliseconds), "
            "e.g. `2026-11-23T10:00:00.000Z`"
        )
    return value


# An instant as a query parameter: spelt exactly as every `*_at` of every answer
# (`2026-11-23T10:00:00.000Z`), so a value read from an answer can be sent back as it is.
QueryTimestamp = Annotated[
    AwareDatetime,
    BeforeValidator(_query_timestamp),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "pattern": TIMESTAMP_PATTERN,
            "example": "2026-11-23T10:00:00.000Z",
        }
    ),
]
