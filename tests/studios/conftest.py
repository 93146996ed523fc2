"""Studio fixtures: the demo catalog, and a factory of small studios made for one test (a
unique id and city each, so tests never see each other's bookings)."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from datetime import date, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from sqlalchemy import func, select

from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.models import RoomOccupancy, StudioBooking
from soundstage.studios.catalog import WEEKDAYS, StudioSpec
from soundstage.studios.demo import load_demo_studios
from soundstage.studios.importer import StudioCounts, upsert_studios

EVERY_DAY_9_TO_6 = [{"day": day, "open": "09:00", "close": "18:00"} for day in WEEKDAYS]
ROOM_A = {
    "name": "Studio A",
    "booth_capacity": 4,
    "hourly_rate_cents": 5000,
    "currency": "USD",
    "min_booking_hours": 2,
    "buffer_minutes": 30,
}
ROOM_B = {
    "name": "Vocal Booth",
    "booth_capacity": 2,
    "hourly_rate_cents": 3333,
    "currency": "USD",
    "min_booking_hours": 1,
    "buffer_minutes": 0,
}
MakeStudio = Callable[..., StudioSpec]


def studio_spec(
    *,
    timezone: str = "America/New_York",
    hours: Sequence[dict[str, str]] = EVERY_DAY_9_TO_6,
    rooms: Sequence[dict[str, Any]] = (ROOM_A, ROOM_B),
    closures: Sequence[dict[str, Any]] = (),
    city: str | None = None,
    state: str = "Test State",
    types: Sequence[str] = ("recording", "podcast"),
    rating: float | None = 4.5,
    **extra: Any,
) -> StudioSpec:
    """A studio with a unique id and city; rooms get ids `<studio id>_a`, `_b`, ..."""
    token = secrets.token_hex(5)
    studio_id = f"studio_t{token}"
    return StudioSpec.model_validate(
        {
            "id": studio_id,
            "name": f"Test Studio {token}",
            "types": list(types),
            "address": {
                "city": city or f"Testville {token}",
                "state": state,
                "country": "US",
            },
            "timezone": timezone,
            "latitude": 40.7,
            "longitude": -74.0,
            "rating": rating,
            "review_count": 0 if rating is None else 12,
            "rooms": [{"id": f"{studio_id}_{chr(97 + n)}", **room} for n, room in enumerate(rooms)],
            "opening_hours": list(hours),
            "closures": list(closures),
            **extra,
        }
    )


@pytest.fixture(scope="session")
def demo_studios(db: Database) -> StudioCounts:
    """The demo studio catalog in the test database, loaded once through the service."""
    with db.session() as session:
        return load_demo_studios(session)


@pytest.fixture
def make_studio(db: Database) -> MakeStudio:
    def make(**options: Any) -> StudioSpec:
        spec = studio_spec(**options)
        with db.session() as session:
            upsert_studios(session, [spec])
        return spec

    return make


def local_today(timezone: str) -> date:
    return utcnow().astimezone(ZoneInfo(timezone)).date()


def days_ahead(timezone: str, days: int) -> date:
    return local_today(timezone) + timedelta(days=days)


def next_weekday(timezone: str, weekday: int, at_least: int = 3) -> date:
    """The first date at least `at_least` days ahead falling on `weekday` (0 = Monday)."""
    day = days_ahead(timezone, at_least)
    return day + timedelta(days=(weekday - day.weekday()) % 7)


def rows_of_room(db: Database, room_id: str) -> tuple[int, int]:
    """Bookings and occupied units of a room, all environments."""
    with db.read_session() as session:
        bookings = session.scalar(
            select(func.count()).select_from(StudioBooking).where(StudioBooking.room_id == room_id)
        )
        units = session.scalar(
            select(func.count()).select_from(RoomOccupancy).where(RoomOccupancy.room_id == room_id)
        )
    return int(bookings or 0), int(units or 0)
