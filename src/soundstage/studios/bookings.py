"""Booking a studio room: checkout with the 2.5% platform fee, cancellation with its refund,
and the caller's bookings. A booking is `confirmed` at checkout, `cancelled` when cancelled
before it starts, and reads as `completed` once it has ended (derived from the clock, so no
job has to move it)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from soundstage.core import money
from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.models import Room, StudioBooking
from soundstage.models.studios import StudioBookingStatus
from soundstage.studios import pricing, repository
from soundstage.studios.availability import (
    DAY,
    clock_minute,
    containing,
    exists_locally,
    from_minute,
    local_moment,
    occupied_units,
    to_minute,
)
from soundstage.studios.errors import (
    BelowMinimumHours,
    BookingNotCancellable,
    BookingNotFound,
    BookingTooLong,
    EndBeforeStart,
    NonexistentLocalTime,
    OutsideOpeningHours,
    RoomNotInStudio,
    SlotUnavailable,
    StartInPast,
    StudioClosed,
)
from soundstage.studios.schemas import (
    BookingCancel,
    BookingCreate,
    BookingOut,
    BookingQuoteOut,
    BookingStatus,
)
from soundstage.studios.service import StudioDay, free_intervals, load_day, time_range

ID_PREFIX: Final = "bkg"


def book(
    session: Session, principal: Principal, studio_id: str, request: BookingCreate
) -> BookingOut:
    """Check the request against the studio's date, price it and take the room's units. The
    units' primary key, not a prior read, refuses a time already taken: 409 slot_unavailable."""
    now = utcnow()
    studio_day, room, start, end, charge = _priced(session, studio_id, request, now)
    booking = StudioBooking(
        id=new_id(ID_PREFIX),
        account_id=principal.account_id,
        environment=principal.environment,
        studio_id=studio_day.studio.id,
        room_id=room.id,
        status=StudioBookingStatus.CONFIRMED,
        date=request.date,
        start_time=request.start_time,
        end_time=request.end_time,
        ends_next_day=request.ends_next_day,
        timezone=studio_day.studio.timezone,
        starts_at=from_minute(start, UTC),
        ends_at=from_minute(end, UTC),
        duration_minutes=end - start,
        studio_name=studio_day.studio.name,
        room_name=room.name,
        hourly_rate_cents=room.hourly_rate_cents,
        buffer_minutes=room.buffer_minutes,
        subtotal_cents=charge.amount_cents,
        platform_fee_cents=charge.fee_cents,
        total_cents=charge.total_cents,
        currency=charge.currency,
        notes=request.notes,
        created_at=now,
        updated_at=now,
    )
    try:
        with session.begin_nested():
            repository.add_booking(
                session, booking, occupied_units(start, end, room.buffer_minutes)
            )
    except IntegrityError as exc:
        raise _taken(room, studio_id, request) from exc
    return booking_out(booking, now)


def quote(
    session: Session, principal: Principal, studio_id: str, request: BookingCreate
) -> BookingQuoteOut:
    """What `book` would charge for the same request, with the same checks, booking nothing:
    409 slot_unavailable when the time is not free now (a booking made meanwhile can still
    take it before checkout)."""
    now = utcnow()
    studio_day, room, start, end, charge = _priced(session, studio_id, request, now)
    free = free_intervals(session, principal.environment, studio_day, now)[room.id]
    if containing(free, start, end) is None:
        raise _taken(room, studio_id, request)
    return BookingQuoteOut(
        studio_id=studio_day.studio.id,
        studio_name=studio_day.studio.name,
        room_id=room.id,
        room_name=room.name,
        date=request.date,
        start_time=request.start_time,
        end_time=request.end_time,
        ends_next_day=request.ends_next_day,
        timezone=studio_day.studio.timezone,
        starts_at=from_minute(start, UTC),
        ends_at=from_minute(end, UTC),
        duration_minutes=end - start,
        hourly_rate_cents=room.hourly_rate_cents,
        subtotal_cents=charge.amount_cents,
        platform_fee_cents=charge.fee_cents,
        total_cents=charge.total_cents,
        currency=charge.currency,
    )


def _priced(
    session: Session, studio_id: str, request: BookingCreate, now: datetime
) -> tuple[StudioDay, Room, int, int, money.Charge]:
    """The request checked against the studio's date (422 naming the field at fault) and
    priced: the studio's day, the room, start and end in UTC minutes, the charge."""
    studio_day = load_day(session, studio_id, request.date, now)
    room = next((r for r in studio_day.rooms if r.id == request.room_id), None)
    if room is None:
        raise RoomNotInStudio(
            f"Studio {studio_id} has no room {request.room_id}.",
            param="room_id",
        )
    start, end = _instants(studio_day, request, now)
    _check_fits(studio_day, room, start, end)
    charge = pricing.booking_charge(room.hourly_rate_cents, end - start, room.currency)
    return studio_day, room, start, end, charge


def _taken(room: Room, studio_id: str, request: BookingCreate) -> SlotUnavailable:
    buffer = f" (with its {room.buffer_minutes}-minute buffer)" if room.buffer_minutes else ""
    return SlotUnavailable(
        f"Room {room.id} is already booked for part of that time{buffer}; see "
        f"GET /api/v1/studios/{studio_id}/availability?date={request.date}.",
        param="start_time",
    )


def _instants(studio_day: StudioDay, request: BookingCreate, now: datetime) -> tuple[int, int]:
    """The booking's start and end in UTC minutes, or 422 naming the field at fault."""
    start_minute = clock_minute(request.start_time)
    end_minute = clock_minute(request.end_time, midnight_end=True)
    if request.ends_next_day:
        if end_minute > start_minute or request.end_time == "24:00":
            raise BookingTooLong(
                "With ends_next_day, end_time is on the next date and at most start_time "
                "(a booking lasts 24 hours at most).",
                param="end_time",
            )
        end_minute += DAY
    elif end_minute <= start_minute:
        raise EndBeforeStart(
            "end_time must be after start_time; to book past midnight set ends_next_day.",
            param="end_time",
        )
    instants = []
    for param, minute in (("start_time", start_minute), ("end_time", end_minute)):
        moment = local_moment(studio_day.day, minute, studio_day.tz)
        if not exists_locally(moment):
            raise NonexistentLocalTime(
                f"{param} does not exist on that date in {studio_day.studio.timezone} "
                "(the clocks go forward).",
                param=param,
            )
        instants.append(to_minute(moment))
    if instants[0] * 60 < now.timestamp():
        raise StartInPast("The booking must start in the future.", param="start_time")
    return instants[0], instants[1]


def _check_fits(studio_day: StudioDay, room: Room, start: int, end: int) -> None:
    if end - start < room.min_booking_hours * 60:
        raise BelowMinimumHours(
            f"Room {room.id} is booked for at least {room.min_booking_hours} hour(s).",
            param="end_time",
        )
    reach = studio_day.window.reach
    if containing(reach, start, end) is not None:
        return
    opening = ", ".join(
        f"{r.start_time}-{r.end_time}{' (+1 day)' if r.ends_next_day else ''}"
        for r in (time_range(studio_day, interval) for interval in studio_day.window.opening)
    )
    closure = studio_day.closure
    if closure is not None and containing(reach, start, start + 1) is None:
        raise StudioClosed(
            f"The studio is closed on {studio_day.day}"
            f"{': ' + closure.reason if closure.reason else ''}.",
            param="date",
        )
    inside = containing(reach, start, start + 1) is not None
    raise OutsideOpeningHours(
        f"The booking must be within opening hours; on {studio_day.day} they are "
        f"{opening or 'none (closed)'}.",
        param="end_time" if inside else "start_time",
    )


def cancel(
    session: Session, principal: Principal, booking_id: str, request: BookingCancel | None
) -> BookingOut:
    """Cancel before the start: refund by the policy (pricing.refund_cents), free the room's
    time. A cancelled, started or completed booking is 409 booking_not_cancellable."""
    booking = _own_booking(session, principal, booking_id)
    now = utcnow()
    charge = money.Charge(booking.subtotal_cents, booking.platform_fee_cents, booking.currency)
    refund = pricing.refund_cents(charge, booking.starts_at, now)
    reason = request.reason if request else None
    if not repository.mark_cancelled(
        session, booking.id, refund_cents=refund, reason=reason, now=now
    ):
        session.refresh(booking)
        state = (
            "already cancelled"
            if booking.status == StudioBookingStatus.CANCELLED
            else "already started"
        )
        raise BookingNotCancellable(f"Booking {booking.id} is {state}.", param="booking_id")
    repository.release(session, booking.id)
    session.refresh(booking)
    return booking_out(booking, now)


def get_booking(session: Session, principal: Principal, booking_id: str) -> BookingOut:
    return booking_out(_own_booking(session, principal, booking_id), utcnow())


def list_bookings(
    session: Session,
    principal: Principal,
    page: PageParams,
    *,
    status: BookingStatus | None,
    studio_id: str | None,
) -> tuple[list[BookingOut], bool]:
    now = utcnow()
    query = repository.bookings_query(principal, status=status, studio_id=studio_id, now=now)
    bookings, has_more = paginate(session, query, StudioBooking, page, BookingNotFound)
    return [booking_out(b, now) for b in bookings], has_more


def _own_booking(session: Session, principal: Principal, booking_id: str) -> StudioBooking:
    booking = repository.get_booking(session, principal, booking_id)
    if booking is None:
        raise BookingNotFound(f"No such booking: {booking_id}", param="booking_id")
    return booking


def status_of(booking: StudioBooking, now: datetime) -> BookingStatus:
    if booking.status == StudioBookingStatus.CONFIRMED and booking.ends_at <= now:
        return "completed"
    return "cancelled" if booking.status == StudioBookingStatus.CANCELLED else "confirmed"


def booking_out(booking: StudioBooking, now: datetime) -> BookingOut:
    """The booking with its status as of `now` (`completed` is derived)."""
    return BookingOut(
        id=booking.id,
        status=status_of(booking, now),
        studio_id=booking.studio_id,
        studio_name=booking.studio_name,
        room_id=booking.room_id,
        room_name=booking.room_name,
        date=booking.date,
        start_time=booking.start_time,
        end_time=booking.end_time,
        ends_next_day=booking.ends_next_day,
        timezone=booking.timezone,
        starts_at=booking.starts_at,
        ends_at=booking.ends_at,
        duration_minutes=booking.duration_minutes,
        hourly_rate_cents=booking.hourly_rate_cents,
        subtotal_cents=booking.subtotal_cents,
        platform_fee_cents=booking.platform_fee_cents,
        total_cents=booking.total_cents,
        currency=booking.currency,
        refund_cents=booking.refund_cents,
        notes=booking.notes,
        cancellation_reason=booking.cancellation_reason,
        created_at=booking.created_at,
        cancelled_at=booking.cancelled_at,
    )
