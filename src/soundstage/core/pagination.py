"""Cursor pagination (limit, starting_after, ending_before) shared by every list endpoint."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Generic, Literal, TypeVar

from fastapi import Depends, Query
from pydantic import BaseModel
from sqlalchemy import ColumnElement, Select, and_, or_
from sqlalchemy.orm import QueryableAttribute, Session

from soundstage.core.errors import InvalidField, NotFound
from soundstage.core.params import QueryInt

T = TypeVar("T")
M = TypeVar("M")


class ListResponse(BaseModel, Generic[T]):
    object: Literal["list"] = "list"
    data: list[T]
    has_more: bool


@dataclass(frozen=True)
class PageParams:
    limit: int = 20
    starting_after: str | None = None
    ending_before: str | None = None


async def page_params(
    limit: Annotated[QueryInt, Query(ge=1, le=100, description="Page size, 1 to 100.")] = 20,
    starting_after: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=64,
            description="Cursor: the id of the last object of the previous page.",
        ),
    ] = None,
    ending_before: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=64,
            description="Cursor: the id of the first object of the next page.",
        ),
    ] = None,
) -> PageParams:
    if starting_after is not None and ending_before is not None:
        raise InvalidField("Pass starting_after or ending_before, not both.", param="ending_before")
    return PageParams(limit, starting_after, ending_before)


PageDep = Annotated[PageParams, Depends(page_params)]


# A list's order: expressions, each with whether it sorts descending; the last must be unique
# (the id), so that a cursor names one place.
Order = Sequence[tuple[ColumnElement[Any] | QueryableAttribute[Any], bool]]


def paginate(
    session: Session,
    stmt: Select[Any],
    model: type[M],
    params: PageParams,
    missing: type[NotFound],
    order: Order | None = None,
) -> tuple[list[M], bool]:
    """Newest first, ordered by (created_at, id), or in `order`. `stmt` already carries the
    owner's filters, so a cursor that is not the caller's is unknown: 404 `missing` (the
    listed resource's `<resource>_not_found`) naming the cursor parameter, like any other id."""
    ident = model.id  # type: ignore[attr-defined]
    if order is None:
        order = ((model.created_at, True), (ident, True))  # type: ignore[attr-defined]
    cursor_id = params.starting_after or params.ending_before
    values: tuple[Any, ...] = ()
    if cursor_id is not None:
        cursor = session.execute(
            stmt.with_only_columns(*(expr for expr, _ in order)).where(ident == cursor_id)
        ).first()
        if cursor is None:
            param = "starting_after" if params.starting_after else "ending_before"
            noun = missing.code.removesuffix("_not_found").replace("_", " ")
            raise missing(f"No such {noun}: {cursor_id}", param=param)
        values = tuple(cursor)
    if params.ending_before is not None:
        backwards = [(expr, not descending) for expr, descending in order]
        stmt = stmt.where(_after(backwards, values))
        rows = list(session.scalars(_ordered(stmt, backwards).limit(params.limit + 1)))
        has_more = len(rows) > params.limit
        return list(reversed(rows[: params.limit])), has_more
    if params.starting_after is not None:
        stmt = stmt.where(_after(order, values))
    rows = list(session.scalars(_ordered(stmt, order).limit(params.limit + 1)))
    return rows[: params.limit], len(rows) > params.limit


def _ordered(stmt: Select[Any], order: Order) -> Select[Any]:
    return stmt.order_by(*(expr.desc() if descending else expr.asc() for expr, descending in order))


def _after(order: Order, cursor: tuple[Any, ...]) -> ColumnElement[bool]:
    """Rows past the cursor's values in `order` (keyset pagination): greater on the first
    expression that differs, ascending, or smaller, descending."""
    alternatives = []
    for index, (expr, descending) in enumerate(order):
        equal = [
            earlier == value for (earlier, _), value in zip(order[:index], cursor, strict=False)
        ]
        beyond = expr < cursor[index] if descending else expr > cursor[index]
        alternatives.append(and_(*equal, beyond))
    return or_(*alternatives)


def paginate_items(
    items: Sequence[M], params: PageParams, key: Callable[[M], str], missing: type[NotFound]
) -> tuple[list[M], bool]:
    """A list that is not a table (a fixed catalog) paged like one: in its own order, the
    cursors being the `key` of an item (`missing`, a 404, for a key it does not hold)."""
    keys = [key(item) for item in items]
    cursor_id = params.starting_after or params.ending_before
    if cursor_id is not None and cursor_id not in keys:
        param = "starting_after" if params.starting_after else "ending_before"
        raise missing(f"No such object: {cursor_id}", param=param)
    if params.ending_before is not None:
        end = keys.index(params.ending_before)
        start = max(0, end - params.limit)
        return list(items[start:end]), start > 0
    start = keys.index(params.starting_after) + 1 if params.starting_after is not None else 0
    end = start + params.limit
    return list(items[start:end]), end < len(items)
