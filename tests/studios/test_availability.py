"""Availability over HTTP: opening hours less bookings, buffers, closures and the past, in
the studio's local time (30- and 45-minute zones, daylight saving), overnight sessions, the
start times that honour the minimum hours, and the `date` parameter's rules."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.studios.catalog import WEEKDAYS
from tests.support.api import assert_error
from tests.support.factories import Customer, MakeStudio, create_customer
from tests.support.studios import (
    ALWAYS_OPEN,
    availability,
    days_ahead,
    dst_change,
    local_today,
    next_weekday,
)

pytestmark = pytest.mark.services


@pytest.fixture
def caller(db: Database) -> Customer:
    return create_customer(db)


def spans(ranges: list[dict[str, Any]]) -> list[tuple[str, str, bool]]:
    return [(r["start_time"], r["end_time"], r["ends_next_day"]) for r in ranges]


def quarter_hours(first: str, last: str) -> list[str]:
    start = datetime.strptime(first, "%H:%M")
    count = int((datetime.strptime(last, "%H:%M") - start).total_seconds() // 900) + 1
    return [(start + timedelta(minutes=15 * n)).strftime("%H:%M") for n in range(count)]


def book(client: TestClient, customer: Customer, studio_id: str, **fields: Any) -> dict[str, Any]:
    response = client.post(
        f"/api/v1/studios/{studio_id}/book",
        headers=customer.auth(),
        json={
            key: str(value) if isinstance(value, date) else value for key, value in fields.items()
        },
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_hours_less_a_booking_and_its_buffer(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()  # every day 09:00-18:00, New York; room A: 2 h minimum, 30 min buffer
    room_a = spec.rooms[0].id
    day = days_ahead("America/New_York", 5)
    book(client, caller, spec.id, date=day, start_time="12:00", end_time="14:00", room_id=room_a)

    body = availability(client, caller, spec.id, day)
    assert body["object"] == "studio_availability"
    assert (body["date"], body["timezone"]) == (str(day), "America/New_York")
    assert (body["closed"], body["closure_reason"]) == (False, None)
    assert spans(body["opening_hours"]) == [("09:00", "18:00", False)]
    first, second = body["rooms"]
    assert (first["object"], first["id"], first["min_booking_hours"]) == ("room", room_a, 2)
    # The booking holds 12:00-14:00 and its 30-minute buffer; a new booking's own buffer
    # must not reach 12:00 either.
    assert spans(first["free"]) == [("09:00", "11:30", False), ("14:30", "18:00", False)]
    assert first["start_times"] == quarter_hours("09:00", "09:30") + quarter_hours("14:30", "16:00")
    assert spans(second["free"]) == [("09:00", "18:00", False)]
    assert second["start_times"] == quarter_hours("09:00", "17:00")
    # The instant is UTC (`Z`); in the studio's zone it is the local start time.
    start = first["free"][1]["start"]
    assert start.endswith("Z")
    local = datetime.fromisoformat(start).astimezone(ZoneInfo("America/New_York"))
    assert (local.date(), local.strftime("%H:%M")) == (day, "14:30")


def test_a_closure_closes_the_date(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    day = days_ahead("America/New_York", 6)
    spec = make_studio(closures=[{"date": str(day), "reason": "Floor repairs"}])
    body = availability(client, caller, spec.id, day)
    assert (body["closed"], body["closure_reason"]) == (True, "Floor repairs")
    assert body["opening_hours"] == []
    assert all(r["free"] == [] and r["start_times"] == [] for r in body["rooms"])
    # The next date opens as usual.
    after = availability(client, caller, spec.id, day + timedelta(days=1))
    assert not after["closed"]
    assert spans(after["opening_hours"]) == [("09:00", "18:00", False)]


def test_a_weekday_without_hours_is_closed(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    hours = [{"day": day, "open": "10:00", "close": "16:00"} for day in WEEKDAYS[:5]]
    spec = make_studio(hours=hours)
    sunday = next_weekday("America/New_York", 6)
    body = availability(client, caller, spec.id, sunday)
    assert (body["closed"], body["closure_reason"], body["opening_hours"]) == (True, None, [])
    assert all(r["start_times"] == [] for r in body["rooms"])
    monday = availability(client, caller, spec.id, sunday + timedelta(days=1))
    assert spans(monday["opening_hours"]) == [("10:00", "16:00", False)]


@pytest.mark.parametrize(
    ("timezone", "offset"),
    [("Asia/Kathmandu", "+05:45"), ("Asia/Kolkata", "+05:30"), ("Pacific/Honolulu", "-10:00")],
)
def test_times_are_the_studios_local_times(
    client: TestClient, caller: Customer, make_studio: MakeStudio, timezone: str, offset: str
) -> None:
    spec = make_studio(timezone=timezone)
    day = days_ahead(timezone, 4)
    body = availability(client, caller, spec.id, day)
    opening = body["opening_hours"][0]
    for key, clock in (("start", "09:00"), ("end", "18:00")):
        assert opening[key].endswith("Z")  # an instant, in UTC
        moment = datetime.fromisoformat(opening[key]).astimezone(ZoneInfo(timezone))
        assert moment.isoformat() == f"{day}T{clock}:00{offset}"
    # A booking at 09:00 local starts at 09:00 local, whatever the server's zone.
    booking = book(
        client, caller, spec.id, date=day, start_time="09:00", end_time="11:00",
        room_id=spec.rooms[0].id,
    )  # fmt: skip
    starts_at = datetime.fromisoformat(booking["starts_at"])
    assert starts_at.astimezone(ZoneInfo(timezone)).isoformat() == f"{day}T09:00:00{offset}"


def test_an_overnight_session_belongs_to_the_night_it_opens(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    friday = next_weekday("Europe/Berlin", 4)
    saturday = friday + timedelta(days=1)
    spec = make_studio(
        timezone="Europe/Berlin", hours=[{"day": "friday", "open": "20:00", "close": "04:00"}]
    )
    room_b = spec.rooms[1].id  # 1 hour minimum, no buffer
    night = availability(client, caller, spec.id, friday)
    assert spans(night["opening_hours"]) == [("20:00", "04:00", True)]
    assert night["rooms"][1]["start_times"] == quarter_hours("20:00", "23:45")
    morning = availability(client, caller, spec.id, saturday)
    assert spans(morning["opening_hours"]) == [("00:00", "04:00", False)]
    assert morning["rooms"][1]["start_times"] == quarter_hours("00:00", "03:00")

    book(
        client, caller, spec.id, date=friday, start_time="22:00", end_time="02:00",
        ends_next_day=True, room_id=room_b,
    )  # fmt: skip
    night = availability(client, caller, spec.id, friday)
    assert spans(night["rooms"][1]["free"]) == [("20:00", "22:00", False), ("02:00", "04:00", True)]
    assert night["rooms"][1]["start_times"] == quarter_hours("20:00", "21:00")
    morning = availability(client, caller, spec.id, saturday)
    assert spans(morning["rooms"][1]["free"]) == [("02:00", "04:00", False)]
    assert morning["rooms"][1]["start_times"] == quarter_hours("02:00", "03:00")


def test_a_closure_cancels_the_night_opening_that_date_not_the_one_before(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    friday = next_weekday("Europe/Berlin", 4)
    saturday = friday + timedelta(days=1)
    hours = [
        {"day": "friday", "open": "20:00", "close": "04:00"},
        {"day": "saturday", "open": "20:00", "close": "04:00"},
    ]
    spec = make_studio(
        timezone="Europe/Berlin", hours=hours, closures=[{"date": str(saturday), "reason": "Gig"}]
    )
    body = availability(client, caller, spec.id, saturday)
    assert body["closure_reason"] == "Gig"
    assert not body["closed"]  # Friday's night still runs until 04:00 on Saturday
    assert spans(body["opening_hours"]) == [("00:00", "04:00", False)]
    sunday = availability(client, caller, spec.id, saturday + timedelta(days=1))
    assert sunday["opening_hours"] == []  # Saturday's night never opened


def test_a_24_7_studios_late_starts_run_into_the_next_day(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio(timezone="UTC", hours=ALWAYS_OPEN)
    body = availability(client, caller, spec.id, days_ahead("UTC", 3))
    assert spans(body["opening_hours"]) == [("00:00", "00:00", True)]
    # Room A needs 2 hours: 23:00 still fits, because the next day is open too.
    assert body["rooms"][0]["start_times"] == quarter_hours("00:00", "23:45")


def test_the_past_is_not_free(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    # A zone where it is now between 02:00 and 22:00, so that today has a past and a future.
    timezone = next(
        tz
        for tz in ("UTC", "Asia/Tokyo", "America/New_York")
        if 2 <= utcnow().astimezone(ZoneInfo(tz)).hour < 22
    )
    spec = make_studio(timezone=timezone, hours=ALWAYS_OPEN)
    now = utcnow().astimezone(ZoneInfo(timezone))
    body = availability(client, caller, spec.id, local_today(timezone))
    first_start = body["rooms"][1]["start_times"][0]
    first_free = datetime.fromisoformat(body["rooms"][1]["free"][0]["start"]).astimezone(
        ZoneInfo(timezone)
    )
    assert now <= first_free < now + timedelta(minutes=15)
    assert first_start == first_free.strftime("%H:%M")
    assert first_free.minute % 15 == 0
    # The whole of today stays in the opening hours; only the free time starts now.
    assert spans(body["opening_hours"])[0][0] == "00:00"


def test_daylight_saving_days_have_23_and_25_hours(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    timezone = "America/New_York"
    spec = make_studio(timezone=timezone, hours=ALWAYS_OPEN)
    spring, autumn = dst_change(timezone, forward=True), dst_change(timezone, forward=False)
    assert spring is not None
    assert autumn is not None
    starts = availability(client, caller, spec.id, spring)["rooms"][1]["start_times"]
    assert {"01:45", "03:00"} <= set(starts)
    assert not any(s.startswith("02:") for s in starts)  # 02:00-02:59 does not exist
    assert len(starts) == 92
    starts = availability(client, caller, spec.id, autumn)["rooms"][1]["start_times"]
    assert starts.count("01:00") == 1  # the repeated hour is offered once, by its first pass
    assert len(starts) == 96


@pytest.mark.parametrize(
    ("query", "code"),
    [
        ("", "parameter_missing"),
        ("?date=", "parameter_invalid"),
        ("?date=2026-13-01", "parameter_invalid"),
        ("?date=2027-02-30", "parameter_invalid"),
        ("?date=20271205", "parameter_invalid"),
        ("?date=2027-12-05T10:00", "parameter_invalid"),
        ("?date=12/05/2027", "parameter_invalid"),
        ("?date=tomorrow", "parameter_invalid"),
        ("?date=%D9%A2%D9%A0%D9%A2%D9%A7-%D9%A0%D9%A1-%D9%A0%D9%A5", "parameter_invalid"),
    ],
)
def test_date_is_required_and_a_calendar_date(
    client: TestClient, caller: Customer, make_studio: MakeStudio, query: str, code: str
) -> None:
    spec = make_studio()
    response = client.get(f"/api/v1/studios/{spec.id}/availability{query}", headers=caller.auth())
    assert assert_error(response, 422, code)["param"] == "date"


def test_date_runs_from_today_to_a_year_ahead(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio(timezone="Pacific/Auckland")
    url = f"/api/v1/studios/{spec.id}/availability?date="
    today = local_today("Pacific/Auckland")
    for inside in (today, today + timedelta(days=365)):
        assert client.get(f"{url}{inside}", headers=caller.auth()).status_code == 200
    past = client.get(f"{url}{today - timedelta(days=1)}", headers=caller.auth())
    assert assert_error(past, 422, "date_in_past")["param"] == "date"
    far = client.get(f"{url}{today + timedelta(days=366)}", headers=caller.auth())
    assert assert_error(far, 422, "date_too_far")["param"] == "date"


def test_an_unknown_studio_is_404(client: TestClient, caller: Customer) -> None:
    response = client.get(
        f"/api/v1/studios/studio_nowhere/availability?date={days_ahead('UTC', 1)}",
        headers=caller.auth(),
    )
    assert assert_error(response, 404, "studio_not_found")["param"] == "id"
