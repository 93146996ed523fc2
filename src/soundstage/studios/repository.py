"""All SQL of the studios marketplace. Catalog tables are platform data (no owner filter);
bookings and occupancy always filter on the owner's account and environment."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Final, TypeVar

from sqlalchemy import (
    ColumnElement,
    Select,
    delete,
    exists,
    func,
    insert,
    literal_column,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy.engine import Row
from sqlalchemy.orm import InstrumentedAttribute, Session

from soundstage.core.pagination import PageParams
from soundstage.core.tenancy import Owned, select_owned
from soundstage.models import Room, RoomOccupancy, Studio, StudioBooking, StudioClosure, StudioHours
from soundstage.models.studios import StudioBookingStatus
from soundstage.studios.catalog import STUDIO_TYPES

CHUNK: Final = 500  # ids per IN (...) and rows per INSERT batch
# A capacity matched by fewer active studios than this is "rare": the capacity index finds
# them and they are sorted, instead of walking the rating order until a page is full.
RARE_CAPACITY_MATCHES: Final = 1000
T = TypeVar("T")


def _chunks(items: Sequence[T], size: int = CHUNK) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


# --- catalog writes --------------------------------------------------------------------------


def studio_hashes(session: Session, studio_ids: Sequence[str]) -> dict[str, str]:
    found: dict[str, str] = {}
    for chunk in _chunks(studio_ids):
        rows = session.execute(select(Studio.id, Studio.content_hash).where(Studio.id.in_(chunk)))
        found.update({studio_id: digest for studio_id, digest in rows})
    return found


def room_owners(session: Session, room_ids: Sequence[str]) -> dict[str, str]:
    """The studio of each of these rooms that exists."""
    found: dict[str, str] = {}
    for chunk in _chunks(room_ids):
        rows = session.execute(select(Room.id, Room.studio_id).where(Room.id.in_(chunk)))
        found.update({room_id: studio_id for room_id, studio_id in rows})
    return found


def insert_rows(session: Session, model: type[Any], rows: Sequence[Mapping[str, Any]]) -> None:
    for chunk in _chunks(rows, 2000):
        session.execute(insert(model), list(chunk))


def update_studio(session: Session, studio_id: str, values: Mapping[str, Any]) -> None:
    session.execute(update(Studio).where(Studio.id == studio_id).values(**values))


def replace_schedule(
    session: Session,
    studio_id: str,
    hours: Sequence[Mapping[str, Any]],
    closures: Sequence[Mapping[str, Any]],
) -> None:
    session.execute(delete(StudioHours).where(StudioHours.studio_id == studio_id))
    session.execute(delete(StudioClosure).where(StudioClosure.studio_id == studio_id))
    insert_rows(session, StudioHours, hours)
    insert_rows(session, StudioClosure, closures)


def update_room(session: Session, room_id: str, values: Mapping[str, Any]) -> None:
    session.execute(update(Room).where(Room.id == room_id).values(**values))


def retire_rooms(session: Session, studio_id: str, keep: Iterable[str]) -> None:
    session.execute(
        update(Room)
        .where(Room.studio_id == studio_id, Room.id.not_in(list(keep)))
        .values(is_active=False)
    )


def analyze(session: Session) -> None:
    """Refresh the planner's statistics of the catalog (SQLite has none until asked), so
    that a city filter picks the city index over a type's, and PostgreSQL's plans of the
    importer's `room.id IN (...)` look-ups know the table is big (not a scan per batch)."""
    for table in ("studio", "room"):
        session.execute(text(f"ANALYZE {table}"))


# --- discovery ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class StudioFilters:
    city_key: str | None = None
    state_key: str | None = None
    type: str | None = None
    capacity: int | None = None


# What a discover page shows of each studio: no long text, read as plain rows (no ORM
# objects to build for a list).
SUMMARY_COLUMNS: Final = tuple(
    getattr(Studio, name)
    for name in (
        "id", "name", *(f"type_{t}" for t in STUDIO_TYPES),
        "address_line1", "city", "state", "state_code", "postal_code", "country", "timezone",
        "latitude", "longitude", "photos", "rating", "review_count", "max_booth_capacity",
        "room_count", "hourly_rate_from_cents", "currency",
    )
)  # fmt: skip


def discover_page(
    session: Session, filters: StudioFilters, page: PageParams
) -> tuple[list[Row[Any]], bool] | None:
    """A page of active studios (SUMMARY_COLUMNS), best rated first (rating, then id,
    descending), after or before the cursor studio; None when the cursor is no studio."""
    stmt = discover_statement(session, filters, page)
    if stmt is None:
        return None
    rows = list(session.execute(stmt))
    has_more = len(rows) > page.limit
    rows = rows[: page.limit]
    if page.ending_before is not None:
        rows.reverse()  # fetched nearest the cursor first
    return rows, has_more


def discover_statement(
    session: Session, filters: StudioFilters, page: PageParams
) -> Select[Any] | None:
    """The query of a discover page (one row more than the page, to tell `has_more`); None
    when the cursor is no studio. Every filter is an indexed equality or a filter on an
    index walked in rating order (see bench/studios_discover.py's EXPLAIN check)."""
    stmt = _discover_query(session, filters)
    cursor_id = page.starting_after or page.ending_before
    descending = page.ending_before is None
    if cursor_id is not None:
        cursor = session.execute(
            select(Studio.rating, Studio.id).where(Studio.id == cursor_id)
        ).first()
        if cursor is None:
            return None
        key = tuple_(Studio.rating, Studio.id)
        stmt = stmt.where(key < tuple_(*cursor) if descending else key > tuple_(*cursor))
    order = (
        (Studio.rating.desc(), Studio.id.desc())
        if descending
        else (Studio.rating.asc(), Studio.id.asc())
    )
    return stmt.order_by(*order).limit(page.limit + 1)


def _discover_query(session: Session, filters: StudioFilters) -> Select[Any]:
    stmt = select(*SUMMARY_COLUMNS).where(Studio.is_active.is_(True))
    if filters.city_key is not None:
        stmt = stmt.where(Studio.city_key == filters.city_key)
    if filters.state_key is not None:
        stmt = stmt.where(_state_column(session, filters.state_key) == filters.state_key)
    if filters.type is not None:
        stmt = stmt.where(type_column(filters.type).is_(True))
    if filters.capacity is not None:
        wanted: ColumnElement[bool] = Studio.max_booth_capacity >= filters.capacity
        located = filters.city_key is not None or filters.state_key is not None
        if not located and _sqlite_and_rare_capacity(session, filters.capacity):
            # SQLite keeps no value statistics: say the term is selective, so that it takes
            # the capacity index instead of scanning the rating order for rare matches.
            wanted = func.likelihood(wanted, literal_column("0.001"))
        stmt = stmt.where(wanted)
    return stmt


def type_column(studio_type: str) -> InstrumentedAttribute[bool]:
    column: InstrumentedAttribute[bool] = getattr(Studio, f"type_{studio_type}")
    return column


def _state_column(session: Session, key: str) -> InstrumentedAttribute[Any]:
    """The state filter matches a state's name, or else its code ("CA" for California): one
    indexed equality either way, never an OR that would need a sort. Only active studios
    count: a retired studio in a state named like a code must not hide the code's studios."""
    named = session.scalar(
        select(exists().where(Studio.state_key == key, Studio.is_active.is_(True)))
    )
    return Studio.state_key if named else Studio.state_code_key


def _sqlite_and_rare_capacity(session: Session, capacity: int) -> bool:
    if session.get_bind().dialect.name != "sqlite":
        return False  # PostgreSQL's planner has the column's histogram
    # Counted on the capacity index alone (retired studios too: an estimate is enough).
    probe = (
        select(Studio.max_booth_capacity)
        .where(Studio.max_booth_capacity >= capacity)
        .limit(RARE_CAPACITY_MATCHES)
        .subquery()
    )
    matches = session.scalar(select(func.count()).select_from(probe)) or 0
    return matches < RARE_CAPACITY_MATCHES


def get_studio(session: Session, studio_id: str) -> Studio | None:
    return session.scalars(
        select(Studio).where(Studio.id == studio_id, Studio.is_active.is_(True))
    ).first()


def active_rooms(session: Session, studio_id: str) -> list[Room]:
    return list(
        session.scalars(
            select(Room)
            .where(Room.studio_id == studio_id, Room.is_active.is_(True))
            .order_by(Room.position)
        )
    )


def weekly_hours(session: Session, studio_id: str) -> list[StudioHours]:
    return list(
        session.scalars(
            select(StudioHours)
            .where(StudioHours.studio_id == studio_id)
            .order_by(StudioHours.weekday, StudioHours.opens_minute)
        )
    )


def closures_between(
    session: Session, studio_id: str, first: date, last: date
) -> list[StudioClosure]:
    return list(
        session.scalars(
            select(StudioClosure)
            .where(
                StudioClosure.studio_id == studio_id,
                StudioClosure.date >= first,
                StudioClosure.date <= last,
            )
            .order_by(StudioClosure.date)
        )
    )


# --- bookings ------------------------------------------------------------------------------------


def occupied(
    session: Session, environment: str, room_ids: Sequence[str], low: int, high: int
) -> dict[str, list[int]]:
    """Units taken in [low, high), by room."""
    taken: dict[str, list[int]] = {room_id: [] for room_id in room_ids}
    rows = session.execute(
        select(RoomOccupancy.room_id, RoomOccupancy.minute).where(
            RoomOccupancy.environment == environment,
            RoomOccupancy.room_id.in_(list(room_ids)),
            RoomOccupancy.minute >= low,
            RoomOccupancy.minute < high,
        )
    )
    for room_id, minute in rows:
        taken[room_id].append(minute)
    return taken


def add_booking(session: Session, booking: StudioBooking, units: Iterable[int]) -> None:
    """The booking and its occupied units, in ascending order (concurrent bookings then
    queue on the first unit they share instead of deadlocking). Raises IntegrityError when a
    unit is taken."""
    session.add(booking)
    session.flush()
    rows = [
        {
            "environment": booking.environment,
            "room_id": booking.room_id,
            "minute": unit,
            "booking_id": booking.id,
        }
        for unit in sorted(units)
    ]
    session.execute(insert(RoomOccupancy), rows)


def get_booking(session: Session, owner: Owned, booking_id: str) -> StudioBooking | None:
    return session.scalars(
        select_owned(StudioBooking, owner).where(StudioBooking.id == booking_id)
    ).first()


def bookings_query(
    owner: Owned,
    *,
    status: str | None,
    studio_id: str | None,
    now: datetime,
) -> Select[StudioBooking]:
    """The owner's bookings; `completed` is a confirmed booking that has ended."""
    stmt = select_owned(StudioBooking, owner)
    if status == StudioBookingStatus.CANCELLED:
        stmt = stmt.where(StudioBooking.status == StudioBookingStatus.CANCELLED)
    elif status == StudioBookingStatus.CONFIRMED:
        stmt = stmt.where(
            StudioBooking.status == StudioBookingStatus.CONFIRMED, StudioBooking.ends_at > now
        )
    elif status == "completed":  # not stored: derived from ends_at
        stmt = stmt.where(
            StudioBooking.status == StudioBookingStatus.CONFIRMED, StudioBooking.ends_at <= now
        )
    if studio_id is not None:
        stmt = stmt.where(StudioBooking.studio_id == studio_id)
    return stmt


def mark_cancelled(
    session: Session, booking_id: str, *, refund_cents: int, reason: str | None, now: datetime
) -> bool:
    """Cancel a confirmed booking that has not started, in one conditional UPDATE: of two
    concurrent cancellations one wins, the other changes nothing."""
    result = session.execute(
        update(StudioBooking)
        .where(
            StudioBooking.id == booking_id,
            StudioBooking.status == StudioBookingStatus.CONFIRMED,
            StudioBooking.starts_at > now,
        )
        .values(
            status=StudioBookingStatus.CANCELLED,
            refund_cents=refund_cents,
            cancellation_reason=reason,
            cancelled_at=now,
            updated_at=now,
        )
        .execution_options(synchronize_session=False)
    )
    return bool(result.rowcount)  # type: ignore[attr-defined]


def release(session: Session, booking_id: str) -> None:
    """Free the units of a cancelled booking."""
    session.execute(delete(RoomOccupancy).where(RoomOccupancy.booking_id == booking_id))
