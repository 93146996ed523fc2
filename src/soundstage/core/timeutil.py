"""UTC clock (which tests can move forward), a timezone-aware DateTime column type that
also survives SQLite, and `Timestamp`: how every response spells an instant."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from pydantic import PlainSerializer, WithJsonSchema
from sqlalchemy import DateTime
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

_offset = timedelta(0)


def utcnow() -> datetime:
    return datetime.now(UTC) + _offset


@contextmanager
def travel(by: timedelta) -> Iterator[None]:
    """Moves this process's clock `by` forward (tests: a license's expiry, a booking's end).
    The clock keeps ticking, so leases and heartbeats still work; nested travels add up."""
    global _offset
    before = _offset
    _offset = before + by
    try:
        yield
    finally:
        _offset = before


def rfc3339(moment: datetime) -> str:
    """RFC 3339 in UTC with milliseconds and `Z`, always the same width
    (`2026-11-23T10:00:00.000Z`), so that strings sort as their instants. A naive datetime
    (SQLite drops the zone) is taken as UTC."""
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(tzinfo=None).isoformat(timespec="milliseconds") + "Z"


TIMESTAMP_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z$"

# Every instant in every response (the `*_at` fields, webhook events included).
Timestamp = Annotated[
    datetime,
    PlainSerializer(rfc3339, return_type=str),
    WithJsonSchema(
        {
            "type": "string",
            "format": "date-time",
            "pattern": TIMESTAMP_PATTERN,
            "example": "2026-11-23T10:00:00.000Z",
        }
    ),
]


class UTCDateTime(TypeDecorator[datetime]):
    """Stores UTC; always returns aware datetimes (SQLite drops the zone otherwise)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> Any:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime given to a UTC column")
        return value.astimezone(UTC)

    def process_result_value(self, value: Any, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        moment: datetime = value
        if moment.tzinfo is None:
            return moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC)
