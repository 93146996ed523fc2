"""Studio dates in a studio's local time, availability over HTTP, and the rows a room holds.
(Studios themselves are made by `tests.support.factories.create_studio`.)"""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.models import RoomOccupancy, StudioBooking
from soundstage.studios.catalog import WEEKDAYS
from tests.support.factories import Customer

ALWAYS_OPEN = [{"day": day, "open": "00:00", "close": "24:00"} for day in WEEKDAYS]


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


def availability(
    client: TestClient, customer: Customer, studio_id: str, day: date | str
) -> dict[str, Any]:
    response = client.get(
        f"/api/v1/studios/{studio_id}/availability?date={day}", headers=customer.auth()
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def dst_change(timezone: str, forward: bool) -> date | None:
    """The next date within a year on which the clocks go forward (or back)."""
    tz = ZoneInfo(timezone)
    day = local_today(timezone) + timedelta(days=2)
    for _ in range(360):
        before = datetime(day.year, day.month, day.day, tzinfo=tz).utcoffset()
        after = datetime(day.year, day.month, day.day, 12, tzinfo=tz).utcoffset()
        assert before is not None
        assert after is not None
        if before != after and (after > before) == forward:
            return day
        day += timedelta(days=1)
    return None
