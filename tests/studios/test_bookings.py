"""Booking over HTTP: checkout with the 2.5% fee, every rule of the request (one value
inside, one outside), buffers between bookings, overnight bookings, daylight saving, the
lifecycle (confirmed, cancelled with its refund, completed after the end), Idempotency-Key,
and isolation between accounts and between sandbox and production."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.core.timeutil import travel, utcnow
from tests.support.api import Answer, assert_error
from tests.support.factories import Customer, MakeStudio, create_customer
from tests.support.studios import (
    ALWAYS_OPEN,
    availability,
    days_ahead,
    dst_change,
    local_today,
    next_weekday,
    rows_of_room,
)

pytestmark = pytest.mark.services

BOOKING_FIELDS = {
    "object", "id", "status", "studio_id", "studio_name", "room_id", "room_name", "date",
    "start_time", "end_time", "ends_next_day", "timezone", "starts_at", "ends_at",
    "duration_minutes", "hourly_rate_cents", "subtotal_cents", "platform_fee_cents",
    "total_cents", "currency", "refund_cents", "notes", "cancellation_reason", "created_at",
    "cancelled_at",
}  # fmt: skip


@pytest.fixture
def caller(db: Database) -> Customer:
    return create_customer(db)


def post_booking(
    client: TestClient,
    customer: Customer,
    studio_id: str,
    *,
    environment: str = "sandbox",
    headers: dict[str, str] | None = None,
    **fields: object,
) -> Answer:
    body = {k: str(v) if isinstance(v, date) else v for k, v in fields.items()}
    return client.post(
        f"/api/v1/studios/{studio_id}/book",
        headers={**customer.auth(environment), **(headers or {})},
        json=body,
    )


def booked(response: Answer) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def test_checkout_confirms_and_prices_the_booking(
    client: TestClient, db: Database, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    room_b = spec.rooms[1]  # 33.33 an hour, 1 hour minimum, no buffer
    day = days_ahead("America/New_York", 4)
    booking = booked(
        post_booking(
            client, caller, spec.id, date=day, start_time="10:00", end_time="11:15",
            room_id=room_b.id, notes="Two vocalists, bring the pop filter.",
        )
    )  # fmt: skip
    assert set(booking) == BOOKING_FIELDS
    assert booking["id"].startswith("bkg_")
    assert booking["object"] == "studio_booking"
    assert booking["status"] == "confirmed"
    assert (booking["studio_id"], booking["room_id"]) == (spec.id, room_b.id)
    assert (booking["studio_name"], booking["room_name"]) == (spec.name, "Vocal Booth")
    assert (booking["date"], booking["start_time"], booking["end_time"]) == (
        str(day),
        "10:00",
        "11:15",
    )
    assert booking["duration_minutes"] == 75
    # 3333 x 1.25 h = 4166.25 -> 4166; 2.5% of 4166 = 104.15 -> 104.
    assert booking["hourly_rate_cents"] == 3333
    assert (booking["subtotal_cents"], booking["platform_fee_cents"]) == (4166, 104)
    assert (
        booking["total_cents"] == 4270 == booking["subtotal_cents"] + booking["platform_fee_cents"]
    )
    assert booking["currency"] == "USD"
    assert booking["notes"] == "Two vocalists, bring the pop filter."
    assert (booking["refund_cents"], booking["cancelled_at"]) == (None, None)
    starts_at = datetime.fromisoformat(booking["starts_at"])
    assert starts_at.utcoffset() == timedelta(0)
    assert datetime.fromisoformat(booking["ends_at"]) - starts_at == timedelta(minutes=75)
    assert rows_of_room(db, room_b.id) == (1, 5)  # five quarter hours, no buffer

    shown = client.get(f"/api/v1/studios/bookings/{booking['id']}", headers=caller.auth())
    assert shown.json() == booking
    listed = client.get("/api/v1/studios/bookings", headers=caller.auth()).json()
    assert listed["data"] == [booking]


@pytest.mark.parametrize("missing", ["date", "start_time", "end_time", "room_id"])
def test_required_fields(
    client: TestClient, caller: Customer, make_studio: MakeStudio, missing: str
) -> None:
    spec = make_studio()
    fields: dict[str, Any] = {
        "date": str(days_ahead("America/New_York", 3)),
        "start_time": "10:00",
        "end_time": "12:00",
        "room_id": spec.rooms[0].id,
    }
    del fields[missing]
    response = post_booking(client, caller, spec.id, **fields)
    assert assert_error(response, 422, "parameter_missing")["param"] == missing


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("date", "2027-02-30"),
        ("date", "2027-1-5"),
        ("date", 20270105),
        # Non-ASCII digits: `\\d` and int() take them, the API does not.
        ("date", "\u0662\u0660\u0662\u0667-\u0660\u0661-\u0660\u0665"),
        ("date", "\uff12\uff10\uff12\uff17-01-05"),
        ("start_time", "1\u0660:00"),
        ("end_time", "1\uff12:00"),
        ("end_time", "²4:00"),
        ("start_time", "10:10"),
        ("start_time", "9:00"),
        ("start_time", "24:00"),
        ("start_time", "10:00:00"),
        ("end_time", "24:15"),
        ("end_time", "12:05"),
        ("end_time", 1200),
        ("room_id", "r" * 41),
        ("notes", "n" * 1001),
        ("ends_next_day", "maybe"),
        ("colour", "blue"),
    ],
)
def test_malformed_fields_are_422_naming_the_field(
    client: TestClient, caller: Customer, make_studio: MakeStudio, field: str, value: Any
) -> None:
    spec = make_studio()
    fields: dict[str, Any] = {
        "date": str(days_ahead("America/New_York", 3)),
        "start_time": "10:00",
        "end_time": "12:00",
        "room_id": spec.rooms[0].id,
        field: value,
    }
    response = post_booking(client, caller, spec.id, **fields)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["param"] == field


def test_notes_up_to_1000_characters(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    booking = booked(
        post_booking(
            client, caller, spec.id, date=days_ahead("America/New_York", 3), start_time="10:00",
            end_time="12:00", room_id=spec.rooms[0].id, notes="n" * 1000,
        )
    )  # fmt: skip
    assert len(booking["notes"]) == 1000


@pytest.mark.parametrize(
    ("start", "end", "code", "param"),
    [
        ("12:00", "12:00", "end_before_start", "end_time"),
        ("12:00", "11:00", "end_before_start", "end_time"),
        ("10:00", "11:45", "below_minimum_hours", "end_time"),
        ("08:45", "10:45", "outside_opening_hours", "start_time"),
        ("16:30", "18:30", "outside_opening_hours", "end_time"),
        ("18:00", "20:00", "outside_opening_hours", "start_time"),
    ],
)
def test_booking_rules(
    client: TestClient,
    caller: Customer,
    make_studio: MakeStudio,
    start: str,
    end: str,
    code: str,
    param: str,
) -> None:
    spec = make_studio()  # 09:00-18:00; room A books 2 hours at least
    day = days_ahead("America/New_York", 3)
    response = post_booking(
        client, caller, spec.id, date=day, start_time=start, end_time=end, room_id=spec.rooms[0].id
    )
    assert assert_error(response, 422, code)["param"] == param


def test_the_edges_of_the_rules_are_bookable(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    day = days_ahead("America/New_York", 3)
    room_a = spec.rooms[0].id
    # Exactly the minimum, from opening; then up to closing time.
    booked(
        post_booking(
            client, caller, spec.id, date=day, start_time="09:00", end_time="11:00", room_id=room_a
        )
    )
    booked(
        post_booking(
            client, caller, spec.id, date=day, start_time="16:00", end_time="18:00", room_id=room_a
        )
    )


def test_a_room_of_another_studio_and_an_unknown_studio(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    spec, other = make_studio(), make_studio()
    fields: dict[str, Any] = {
        "date": days_ahead("America/New_York", 3),
        "start_time": "10:00",
        "end_time": "12:00",
        "room_id": other.rooms[0].id,
    }
    response = post_booking(client, caller, spec.id, **fields)
    assert assert_error(response, 422, "room_not_in_studio")["param"] == "room_id"
    response = post_booking(client, caller, "studio_nowhere", **fields)
    assert assert_error(response, 404, "studio_not_found")["param"] == "id"


def test_dates_closed_past_and_too_far(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    timezone = "America/New_York"
    closed = days_ahead(timezone, 8)
    spec = make_studio(closures=[{"date": str(closed), "reason": "Holiday"}])
    room = spec.rooms[0].id
    times: dict[str, Any] = {"start_time": "10:00", "end_time": "12:00", "room_id": room}
    cases = [
        (closed, 422, "studio_closed", "date"),
        (local_today(timezone) - timedelta(days=1), 422, "date_in_past", "date"),
        (local_today(timezone) + timedelta(days=366), 422, "date_too_far", "date"),
    ]
    for day, status, code, param in cases:
        response = post_booking(client, caller, spec.id, date=day, **times)
        assert assert_error(response, status, code)["param"] == param
    booked(
        post_booking(
            client, caller, spec.id, date=local_today(timezone) + timedelta(days=365), **times
        )
    )


def test_a_start_in_the_past_is_refused(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio(timezone="UTC", hours=ALWAYS_OPEN)
    # An hour ago (on today's date as long as it is past 01:15 UTC; else tomorrow's clock
    # moves there).
    with travel(timedelta(hours=2) if utcnow().hour < 2 else timedelta(0)):
        now = utcnow()
        start = (now - timedelta(hours=1)).replace(minute=0)
        response = post_booking(
            client, caller, spec.id, date=now.date(), start_time=start.strftime("%H:%M"),
            end_time="24:00", room_id=spec.rooms[1].id,
        )  # fmt: skip
    assert assert_error(response, 422, "start_in_past")["param"] == "start_time"


def test_buffers_keep_bookings_of_a_room_apart(
    client: TestClient, db: Database, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    room_a, room_b = spec.rooms[0].id, spec.rooms[1].id  # room A: 30-minute buffer
    day = days_ahead("America/New_York", 5)

    def attempt(start: str, end: str, room: str = room_a) -> Answer:
        return post_booking(
            client, caller, spec.id, date=day, start_time=start, end_time=end, room_id=room
        )

    booked(attempt("12:00", "14:00"))
    assert rows_of_room(db, room_a) == (1, 10)  # 8 quarter hours + 2 of buffer
    for start, end in [
        ("14:00", "16:00"),
        ("14:15", "16:15"),
        ("09:00", "11:45"),
        ("11:00", "13:00"),
    ]:
        error = assert_error(attempt(start, end), 409, "slot_unavailable")
        assert error["param"] == "start_time"
        assert error["type"] == "invalid_request_error"
    booked(attempt("14:30", "16:30"))
    booked(attempt("09:00", "11:30"))
    booked(attempt("12:00", "14:00", room_b))  # another room is another calendar
    assert rows_of_room(db, room_a)[0] == 3


def test_overnight_bookings_say_so(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    friday = next_weekday("Europe/Berlin", 4)
    spec = make_studio(
        timezone="Europe/Berlin", hours=[{"day": "friday", "open": "20:00", "close": "04:00"}]
    )
    room = spec.rooms[0].id
    fields: dict[str, Any] = {
        "date": friday,
        "start_time": "22:00",
        "end_time": "02:00",
        "room_id": room,
    }
    refused = post_booking(client, caller, spec.id, **fields)
    assert assert_error(refused, 422, "end_before_start")["param"] == "end_time"
    booking = booked(post_booking(client, caller, spec.id, ends_next_day=True, **fields))
    assert (booking["ends_next_day"], booking["duration_minutes"]) == (True, 240)
    assert booking["subtotal_cents"] == 20_000
    ends_at = datetime.fromisoformat(booking["ends_at"])
    assert ends_at - datetime.fromisoformat(booking["starts_at"]) == timedelta(hours=4)
    too_long = post_booking(
        client, caller, spec.id, date=friday, start_time="21:00", end_time="22:00",
        ends_next_day=True, room_id=spec.rooms[1].id,
    )  # fmt: skip
    assert assert_error(too_long, 422, "booking_too_long")["param"] == "end_time"
    past_closing = post_booking(
        client, caller, spec.id, date=friday, start_time="20:00", end_time="05:00",
        ends_next_day=True, room_id=spec.rooms[1].id,
    )  # fmt: skip
    assert assert_error(past_closing, 422, "outside_opening_hours")["param"] == "end_time"


def test_a_whole_day_and_midnight_ends(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio(timezone="UTC", hours=ALWAYS_OPEN)
    day = days_ahead("UTC", 3)
    room_a, room_b = spec.rooms[0].id, spec.rooms[1].id
    midnight = booked(
        post_booking(
            client, caller, spec.id, date=day, start_time="20:00", end_time="24:00", room_id=room_b
        )
    )
    assert (midnight["duration_minutes"], midnight["ends_next_day"]) == (240, False)
    whole_day = booked(
        post_booking(
            client, caller, spec.id, date=day, start_time="06:00", end_time="06:00",
            ends_next_day=True, room_id=room_a,
        )
    )  # fmt: skip
    assert whole_day["duration_minutes"] == 1440
    assert whole_day["subtotal_cents"] == 24 * 5000
    assert whole_day["platform_fee_cents"] == 3000


def test_daylight_saving_bookings_are_priced_by_real_time(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio(timezone="America/New_York", hours=ALWAYS_OPEN)
    spring = dst_change("America/New_York", forward=True)
    assert spring is not None
    room_b = spec.rooms[1].id
    booking = booked(
        post_booking(
            client,
            caller,
            spec.id,
            date=spring,
            start_time="01:00",
            end_time="04:00",
            room_id=room_b,
        )
    )
    assert booking["duration_minutes"] == 120  # 02:00-03:00 never happens that night
    assert booking["subtotal_cents"] == 6666
    skipped = post_booking(
        client, caller, spec.id, date=spring, start_time="02:30", end_time="05:00", room_id=room_b
    )
    assert assert_error(skipped, 422, "nonexistent_local_time")["param"] == "start_time"


def test_a_sandbox_booking_is_invisible_to_production_keys(
    client: TestClient, db: Database, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    day = days_ahead("America/New_York", 6)
    fields: dict[str, Any] = {
        "date": day,
        "start_time": "10:00",
        "end_time": "12:00",
        "room_id": spec.rooms[0].id,
    }
    sandbox = booked(post_booking(client, caller, spec.id, **fields))
    url = f"/api/v1/studios/bookings/{sandbox['id']}"
    response = client.get(url, headers=caller.auth("production"))
    assert assert_error(response, 404, "booking_not_found")["param"] == "booking_id"
    assert_error(
        client.post(f"{url}/cancel", headers=caller.auth("production")), 404, "booking_not_found"
    )
    listed = client.get("/api/v1/studios/bookings", headers=caller.auth("production")).json()
    assert listed["data"] == []
    # Production's calendar does not see sandbox bookings, and books the same time.
    response = client.get(
        f"/api/v1/studios/{spec.id}/availability?date={day}", headers=caller.auth("production")
    )
    assert "10:00" in response.json()["rooms"][0]["start_times"]
    assert "10:00" not in availability(client, caller, spec.id, day)["rooms"][0]["start_times"]
    production = booked(post_booking(client, caller, spec.id, environment="production", **fields))
    assert production["id"] != sandbox["id"]
    assert_error(post_booking(client, caller, spec.id, **fields), 409, "slot_unavailable")
    assert rows_of_room(db, spec.rooms[0].id)[0] == 2


def test_another_accounts_booking_is_404(
    client: TestClient, db: Database, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    fields: dict[str, Any] = {
        "date": days_ahead("America/New_York", 6),
        "start_time": "10:00",
        "end_time": "12:00",
        "room_id": spec.rooms[0].id,
    }
    booking = booked(post_booking(client, caller, spec.id, **fields))
    stranger = create_customer(db)
    url = f"/api/v1/studios/bookings/{booking['id']}"
    assert_error(client.get(url, headers=stranger.auth()), 404, "booking_not_found")
    assert_error(client.post(f"{url}/cancel", headers=stranger.auth()), 404, "booking_not_found")
    cursor = client.get(
        f"/api/v1/studios/bookings?starting_after={booking['id']}", headers=stranger.auth()
    )
    assert assert_error(cursor, 404, "booking_not_found")["param"] == "starting_after"
    assert client.get(url, headers=caller.auth()).json()["status"] == "confirmed"


def test_idempotency_key_replays_the_booking(
    client: TestClient, db: Database, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    fields: dict[str, Any] = {
        "date": days_ahead("America/New_York", 7),
        "start_time": "10:00",
        "end_time": "12:00",
        "room_id": spec.rooms[0].id,
    }
    key = {"Idempotency-Key": f"book-{spec.id}"}
    first = booked(post_booking(client, caller, spec.id, headers=key, **fields))
    again = post_booking(client, caller, spec.id, headers=key, **fields)
    assert booked(again) == first
    assert again.headers["Idempotent-Replayed"] == "true"
    assert rows_of_room(db, spec.rooms[0].id)[0] == 1
    other = post_booking(
        client,
        caller,
        spec.id,
        headers=key,
        **{**fields, "start_time": "14:00", "end_time": "16:00"},
    )
    assert assert_error(other, 422, "idempotency_key_reused")["param"] == "Idempotency-Key"
    assert rows_of_room(db, spec.rooms[0].id)[0] == 1
    # Without the key, the same request is a second attempt at a taken slot.
    assert_error(post_booking(client, caller, spec.id, **fields), 409, "slot_unavailable")


def _book_in(
    client: TestClient, customer: Customer, make_studio: MakeStudio, days: int
) -> tuple[dict[str, Any], str]:
    spec = make_studio(timezone="UTC", hours=ALWAYS_OPEN)
    fields: dict[str, Any] = {
        "date": days_ahead("UTC", days),
        "start_time": "12:00",
        "end_time": "14:00",
        "room_id": spec.rooms[0].id,
    }
    return booked(post_booking(client, customer, spec.id, **fields)), spec.id


def _until(booking: dict[str, Any], before_start: timedelta) -> timedelta:
    """How far to move the clock so that the booking starts `before_start` from now."""
    return datetime.fromisoformat(booking["starts_at"]) - before_start - utcnow()


def test_cancel_with_48_hours_notice_refunds_everything_and_frees_the_time(
    client: TestClient, db: Database, caller: Customer, make_studio: MakeStudio
) -> None:
    booking, studio_id = _book_in(client, caller, make_studio, days=5)
    url = f"/api/v1/studios/bookings/{booking['id']}/cancel"
    with travel(_until(booking, timedelta(hours=48, seconds=5))):
        response = client.post(url, headers=caller.auth(), json={"reason": "Artist is ill"})
    cancelled = booked(response)
    assert cancelled["status"] == "cancelled"
    assert cancelled["refund_cents"] == booking["total_cents"] == 10_250
    assert cancelled["cancellation_reason"] == "Artist is ill"
    assert cancelled["cancelled_at"] is not None
    assert rows_of_room(db, booking["room_id"]) == (1, 0)
    # The time is free again: in availability, and for a new booking.
    day = booking["date"]
    assert "12:00" in availability(client, caller, studio_id, day)["rooms"][0]["start_times"]
    again = post_booking(
        client,
        caller,
        studio_id,
        date=day,
        start_time="12:00",
        end_time="14:00",
        room_id=booking["room_id"],
    )
    assert booked(again)["status"] == "confirmed"
    # Cancelling twice is refused, and changes nothing.
    second = client.post(url, headers=caller.auth())
    assert assert_error(second, 409, "booking_not_cancellable")["param"] == "booking_id"
    shown = client.get(f"/api/v1/studios/bookings/{booking['id']}", headers=caller.auth()).json()
    assert shown == cancelled


@pytest.mark.parametrize(
    ("notice", "refund"),
    [
        (timedelta(hours=47, minutes=59), 5000),  # half of the 10,000 subtotal
        (timedelta(hours=24, seconds=5), 5000),
        (timedelta(hours=23, minutes=59), 0),
        (timedelta(minutes=1), 0),
    ],
)
def test_late_cancellations_refund_less(
    client: TestClient,
    caller: Customer,
    make_studio: MakeStudio,
    notice: timedelta,
    refund: int,
) -> None:
    booking, _ = _book_in(client, caller, make_studio, days=4)
    url = f"/api/v1/studios/bookings/{booking['id']}/cancel"
    with travel(_until(booking, notice)):
        cancelled = booked(client.post(url, headers=caller.auth()))
    assert (cancelled["status"], cancelled["refund_cents"]) == ("cancelled", refund)


def test_a_booking_completes_after_its_end_and_cannot_be_cancelled_once_started(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    booking, _ = _book_in(client, caller, make_studio, days=2)
    url = f"/api/v1/studios/bookings/{booking['id']}"

    def statuses(status: str) -> list[str]:
        listed = client.get(f"/api/v1/studios/bookings?status={status}", headers=caller.auth())
        return [b["id"] for b in listed.json()["data"]]

    assert statuses("confirmed") == [booking["id"]]
    with travel(_until(booking, -timedelta(minutes=30))):  # half an hour in
        assert client.get(url, headers=caller.auth()).json()["status"] == "confirmed"
        started = client.post(f"{url}/cancel", headers=caller.auth())
        assert_error(started, 409, "booking_not_cancellable")
    with travel(_until(booking, -timedelta(hours=2))):  # at its end
        assert client.get(url, headers=caller.auth()).json()["status"] == "completed"
        assert statuses("completed") == [booking["id"]]
        assert statuses("confirmed") == []
        assert_error(
            client.post(f"{url}/cancel", headers=caller.auth()), 409, "booking_not_cancellable"
        )
    assert statuses("cancelled") == []


def test_cancel_reason_is_capped(
    client: TestClient, caller: Customer, make_studio: MakeStudio
) -> None:
    booking, _ = _book_in(client, caller, make_studio, days=3)
    url = f"/api/v1/studios/bookings/{booking['id']}/cancel"
    too_long = client.post(url, headers=caller.auth(), json={"reason": "r" * 501})
    assert assert_error(too_long, 422, "parameter_invalid")["param"] == "reason"
    assert (
        booked(client.post(url, headers=caller.auth(), json={"reason": "r" * 500}))["status"]
        == "cancelled"
    )


def test_bookings_list_pages_and_filters(
    client: TestClient, db: Database, make_studio: MakeStudio
) -> None:
    customer = create_customer(db)
    first, second = make_studio(timezone="UTC", hours=ALWAYS_OPEN), make_studio()
    made = []
    for spec, hour in ((first, "08:00"), (first, "12:00"), (second, "10:00")):
        end = f"{int(hour[:2]) + 2:02d}:00"
        made.append(
            booked(
                post_booking(
                    client, customer, spec.id, date=days_ahead(spec.timezone, 3), start_time=hour,
                    end_time=end, room_id=spec.rooms[0].id,
                )
            )["id"]
        )  # fmt: skip
    page = client.get("/api/v1/studios/bookings?limit=2", headers=customer.auth()).json()
    assert [b["id"] for b in page["data"]] == made[::-1][:2]
    assert page["has_more"] is True
    rest = client.get(
        f"/api/v1/studios/bookings?limit=2&starting_after={page['data'][-1]['id']}",
        headers=customer.auth(),
    ).json()
    assert ([b["id"] for b in rest["data"]], rest["has_more"]) == ([made[0]], False)
    of_first = client.get(
        f"/api/v1/studios/bookings?studio_id={first.id}", headers=customer.auth()
    ).json()
    assert [b["id"] for b in of_first["data"]] == [made[1], made[0]]
    bad = client.get("/api/v1/studios/bookings?status=pending", headers=customer.auth())
    assert assert_error(bad, 422, "parameter_invalid")["param"] == "status"


def test_an_unknown_booking_is_404(client: TestClient, caller: Customer) -> None:
    response = client.get("/api/v1/studios/bookings/bkg_nothing", headers=caller.auth())
    assert assert_error(response, 404, "booking_not_found")["param"] == "booking_id"


# POST /api/v1/studios/{id}/quote: the amounts checkout would charge for the same body, the
# same rules, a time already taken refused, nothing reserved.

QUOTE_FIELDS = (
    BOOKING_FIELDS
    - {"id", "status", "refund_cents", "notes", "cancellation_reason", "created_at"}
    - {"cancelled_at"}
)


def post_quote(client: TestClient, customer: Customer, studio_id: str, **fields: Any) -> Answer:
    body = {k: str(v) if not isinstance(v, bool) else v for k, v in fields.items()}
    return client.post(f"/api/v1/studios/{studio_id}/quote", headers=customer.auth(), json=body)


def test_a_quote_is_what_checkout_then_charges_and_reserves_nothing(
    client: TestClient, db: Database, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    room_b = spec.rooms[1]  # 33.33 an hour, 1 hour minimum, no buffer
    day = days_ahead("America/New_York", 4)
    fields: dict[str, Any] = {
        "date": day,
        "start_time": "10:00",
        "end_time": "11:15",
        "room_id": room_b.id,
    }
    answer = post_quote(client, caller, spec.id, **fields)
    assert answer.status_code == 200, answer.text
    quote = answer.json()
    assert set(quote) == QUOTE_FIELDS
    assert quote["object"] == "studio_booking_quote"
    # 3333 x 1.25 h = 4166.25 -> 4166; 2.5% of 4166 = 104.15 -> 104.
    assert (quote["subtotal_cents"], quote["platform_fee_cents"], quote["total_cents"]) == (
        4166,
        104,
        4270,
    )
    assert rows_of_room(db, room_b.id) == (0, 0)  # nothing reserved
    booking = booked(post_booking(client, caller, spec.id, **fields))
    assert {k: booking[k] for k in QUOTE_FIELDS - {"object"}} == {
        k: quote[k] for k in QUOTE_FIELDS - {"object"}
    }
    # Now taken: the same quote is refused as checkout would refuse it.
    assert (
        assert_error(post_quote(client, caller, spec.id, **fields), 409, "slot_unavailable")[
            "param"
        ]
        == "start_time"
    )
    # The hour after is free (room B has no buffer).
    later = {**fields, "start_time": "11:15", "end_time": "12:15"}
    assert post_quote(client, caller, spec.id, **later).status_code == 200


@pytest.mark.parametrize(
    ("start", "end", "code", "param"),
    [
        ("10:00", "12:00", None, None),  # room A's minimum, inside the hours
        ("10:00", "11:45", "below_minimum_hours", "end_time"),
        ("16:00", "18:00", None, None),  # up to closing time
        ("16:30", "18:30", "outside_opening_hours", "end_time"),
    ],
)
def test_a_quote_applies_the_booking_rules(
    client: TestClient,
    caller: Customer,
    make_studio: MakeStudio,
    start: str,
    end: str,
    code: str | None,
    param: str | None,
) -> None:
    spec = make_studio()  # 09:00-18:00; room A books 2 hours at least
    day = days_ahead("America/New_York", 3)
    answer = post_quote(
        client, caller, spec.id, date=day, start_time=start, end_time=end, room_id=spec.rooms[0].id
    )
    if code is None:
        assert answer.status_code == 200, answer.text
        assert answer.json()["duration_minutes"] == 120
    else:
        assert assert_error(answer, 422, code)["param"] == param


def test_another_accounts_booking_makes_the_time_unavailable_to_quote(
    client: TestClient, db: Database, caller: Customer, make_studio: MakeStudio
) -> None:
    spec = make_studio()
    other = create_customer(db)
    day = days_ahead("America/New_York", 5)
    fields: dict[str, Any] = {
        "date": day,
        "start_time": "13:00",
        "end_time": "14:00",
        "room_id": spec.rooms[1].id,
    }
    booked(post_booking(client, other, spec.id, **fields))
    assert_error(post_quote(client, caller, spec.id, **fields), 409, "slot_unavailable")
    unknown = post_quote(client, caller, spec.id, **{**fields, "room_id": "room_nope"})
    assert assert_error(unknown, 422, "room_not_in_studio")["param"] == "room_id"
