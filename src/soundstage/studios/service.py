"""The studio catalog as customers see it: discover, one studio, and a date's availability.
Bookings are in studios.bookings; both read a studio's date through `load_day`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from typing import Any, Final
from zoneinfo import ZoneInfo

from sqlalchemy.engine import Row
from sqlalchemy.orm import Session

from soundstage.core.errors import InvalidField
from soundstage.core.pagination import PageParams
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.models import Room, Studio, StudioClosure
from soundstage.studios import repository
from soundstage.studios.availability import (
    DayWindow,
    Interval,
    WeeklySession,
    blocked,
    ceil_quarter,
    clip,
    clock_text,
    day_window,
    from_minute,
    local_moment,
    start_times,
    subtract,
    to_minute,
)
from soundstage.studios.catalog import MAX_BUFFER_MINUTES as MAX_BUFFER
from soundstage.studios.catalog import STUDIO_TYPES, WEEKDAYS
from soundstage.studios.errors import DateInPast, DateTooFar, StudioNotFound
from soundstage.studios.places import place_key
from soundstage.studios.repository import StudioFilters
from soundstage.studios.schemas import (
    AddressOut,
    ClosureOut,
    CoordinatesOut,
    OpeningHoursOut,
    RoomAvailabilityOut,
    RoomOut,
    StudioAvailabilityOut,
    StudioOut,
    StudioSummaryOut,
    TimeRangeOut,
)

# Availability and bookings reach this many days ahead of the studio's today.
BOOKING_HORIZON_DAYS: Final = 365
FOREVER: Final = 2**62


def discover(
    session: Session,
    page: PageParams,
    *,
    city: str | None,
    state: str | None,
    studio_type: str | None,
    capacity: int | None,
) -> tuple[list[StudioSummaryOut], bool]:
    filters = StudioFilters(
        city_key=_place_filter(city, "city"),
        state_key=_place_filter(state, "state"),
        type=studio_type,
        capacity=capacity,
    )
    found = repository.discover_page(session, filters, page)
    if found is None:
        param = "starting_after" if page.starting_after else "ending_before"
        cursor = page.starting_after or page.ending_before
        raise StudioNotFound(f"No such studio: {cursor}", param=param)
    studios, has_more = found
    return [summary_out(studio) for studio in studios], has_more


def _place_filter(value: str | None, param: str) -> str | None:
    if value is None:
        return None
    key = place_key(value)
    if not key:
        raise InvalidField(f"{param} must contain a letter or a digit.", param=param)
    return key


def get_studio(session: Session, studio_id: str) -> StudioOut:
    studio = active_studio(session, studio_id)
    today = utcnow().astimezone(ZoneInfo(studio.timezone)).date()
    horizon = today + timedelta(days=BOOKING_HORIZON_DAYS)
    closures = repository.closures_between(session, studio.id, today, horizon)
    return StudioOut(
        **summary_out(studio).model_dump(),
        description=studio.description,
        amenities=studio.amenities,
        equipment=studio.equipment,
        photos=studio.photos,
        rooms=[
            RoomOut.model_validate(room) for room in repository.active_rooms(session, studio.id)
        ],
        opening_hours=[
            OpeningHoursOut(
                day=WEEKDAYS[hours.weekday],
                open=clock_text(hours.opens_minute),
                close=clock_text(hours.closes_minute),
                overnight=hours.closes_minute <= hours.opens_minute,
            )
            for hours in repository.weekly_hours(session, studio.id)
        ],
        upcoming_closures=[ClosureOut(date=c.date, reason=c.reason) for c in closures],
    )


def active_studio(session: Session, studio_id: str) -> Studio:
    studio = repository.get_studio(session, studio_id)
    if studio is None:
        raise StudioNotFound(f"No such studio: {studio_id}", param="id")
    return studio


@dataclass(frozen=True)
class StudioDay:
    """A studio's local date, ready for availability and booking."""

    studio: Studio
    tz: ZoneInfo
    day: date
    window: DayWindow
    closure: StudioClosure | None
    rooms: list[Room]


def load_day(session: Session, studio_id: str, day: date, now: datetime) -> StudioDay:
    """The studio's date; 404 for an unknown studio, 422 (param `date`) for a date before
    the studio's today or more than a year ahead."""
    studio = active_studio(session, studio_id)
    tz = ZoneInfo(studio.timezone)
    today = now.astimezone(tz).date()
    if day < today:
        raise DateInPast(
            f"date {day} is in the past (today is {today} in {studio.timezone}).",
            param="date",
        )
    if day > today + timedelta(days=BOOKING_HORIZON_DAYS):
        raise DateTooFar(
            f"date must be at most {BOOKING_HORIZON_DAYS} days ahead (until "
            f"{today + timedelta(days=BOOKING_HORIZON_DAYS)}).",
            param="date",
        )
    hours = [
        WeeklySession(h.weekday, h.opens_minute, h.closes_minute)
        for h in repository.weekly_hours(session, studio.id)
    ]
    closures = repository.closures_between(
        session, studio.id, day - timedelta(days=1), day + timedelta(days=1)
    )
    window = day_window(hours, {c.date for c in closures}, tz, day)
    closure = next((c for c in closures if c.date == day), None)
    return StudioDay(studio, tz, day, window, closure, repository.active_rooms(session, studio.id))


def free_intervals(
    session: Session, environment: str, studio_day: StudioDay, now: datetime
) -> dict[str, list[Interval]]:
    """By room: where a new booking can be, from now on, in every session a booking of this
    date may use (the previous night's tail to the next night's)."""
    reach = studio_day.window.reach
    rooms = studio_day.rooms
    if not reach or not rooms:
        return {room.id: [] for room in rooms}
    taken = repository.occupied(
        session,
        environment,
        [room.id for room in rooms],
        reach[0][0],
        reach[-1][1] + MAX_BUFFER,
    )
    earliest = _next_quarter(now)
    return {
        room.id: clip(
            subtract(reach, blocked(taken[room.id], room.buffer_minutes)), earliest, FOREVER
        )
        for room in rooms
    }


def availability(
    session: Session, principal: Principal, studio_id: str, day: date
) -> StudioAvailabilityOut:
    now = utcnow()
    studio_day = load_day(session, studio_id, day, now)
    window = studio_day.window
    free = free_intervals(session, principal.environment, studio_day, now)
    earliest = _next_quarter(now)
    rooms = []
    for room in studio_day.rooms:
        starts = start_times(
            free[room.id],
            max(window.day_start, earliest),
            window.day_end,
            room.min_booking_hours * 60,
        )
        shown = [r for o in window.opening for r in clip(free[room.id], o[0], o[1])]
        rooms.append(
            RoomAvailabilityOut(
                **RoomOut.model_validate(room).model_dump(),
                free=[time_range(studio_day, interval) for interval in shown],
                start_times=_start_labels(studio_day, starts),
            )
        )
    return StudioAvailabilityOut(
        studio_id=studio_day.studio.id,
        date=day,
        timezone=studio_day.studio.timezone,
        closed=not window.opening,
        closure_reason=studio_day.closure.reason if studio_day.closure else None,
        opening_hours=[time_range(studio_day, interval) for interval in window.opening],
        rooms=rooms,
    )


def _next_quarter(now: datetime) -> int:
    """Bookings start on the quarter hour: the first one still ahead."""
    return ceil_quarter(math.ceil(now.timestamp() / 60))


def _start_labels(studio_day: StudioDay, starts: list[int]) -> list[str]:
    """HH:MM of each start; the second pass of an hour repeated when clocks go back cannot
    be named by HH:MM, so only its first pass is offered."""
    labels = []
    for minute in starts:
        local = from_minute(minute, studio_day.tz)
        minute_of_day = local.hour * 60 + local.minute
        if to_minute(local_moment(studio_day.day, minute_of_day, studio_day.tz)) == minute:
            labels.append(clock_text(minute_of_day))
    return labels


def time_range(studio_day: StudioDay, interval: Interval) -> TimeRangeOut:
    start = from_minute(interval[0], studio_day.tz)
    end = from_minute(interval[1], studio_day.tz)
    return TimeRangeOut(
        start_time=clock_text(start.hour * 60 + start.minute),
        end_time=clock_text(end.hour * 60 + end.minute),
        ends_next_day=end.date() > studio_day.day,
        start=start,
        end=end,
    )


def summary_out(studio: Studio | Row[Any]) -> StudioSummaryOut:
    """From a studio, or a discover row of its summary columns."""
    return StudioSummaryOut(
        id=studio.id,
        name=studio.name,
        types=[t for t in STUDIO_TYPES if getattr(studio, f"type_{t}")],
        address=AddressOut(
            line1=studio.address_line1,
            city=studio.city,
            state=studio.state,
            state_code=studio.state_code,
            postal_code=studio.postal_code,
            country=studio.country,
        ),
        coordinates=CoordinatesOut(latitude=studio.latitude, longitude=studio.longitude),
        timezone=studio.timezone,
        rating=studio.rating if studio.review_count else None,
        review_count=studio.review_count,
        max_booth_capacity=studio.max_booth_capacity,
        room_count=studio.room_count,
        hourly_rate_from_cents=studio.hourly_rate_from_cents,
        currency=studio.currency,
        cover_photo_url=studio.photos[0] if studio.photos else None,
    )
