"""Page 7, studios: search with discover's filters, a studio's rooms and the availability of a
date, booking a room with the API's own subtotal, 2.5% fee and total, and cancelling from the
bookings list. Booking needs no buyer verification (only workforce does): the demo account,
unverified, books."""

from __future__ import annotations

import re
from datetime import date, timedelta
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

from playwright.sync_api import Page, expect

from tests.support.console import ConsolePage, ConsoleServer

STUDIO = "studio_nashville_002"  # USD, rooms a (1 h minimum, no buffer) and b (2 h minimum)
ROOM = "room_nashville_002_a"
DASH = "\u2013"
DAY = 24 * 60
WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")


def usd(cents: int) -> str:
    """What the console shows for an amount in US cents (en-US, as headless Chromium runs)."""
    return f"${cents / 100:,.2f}"


def open_date(server: ConsoleServer, first: int) -> str:
    """The first date from `first` days ahead on which the studio opens and room a can start at
    12:00 and 16:00."""
    for offset in range(first, first + 60):
        day = (date.today() + timedelta(days=offset)).isoformat()
        got = server.api("GET", f"/api/v1/studios/{STUDIO}/availability", params={"date": day})
        assert got.status_code == 200, got.text
        body = got.json()
        room = next(r for r in body["rooms"] if r["id"] == ROOM)
        if not body["closed"] and {"12:00", "16:00"} <= set(room["start_times"]):
            return day
    raise AssertionError("no open date for the demo studio")


def bookings(server: ConsoleServer) -> dict[str, dict[str, Any]]:
    got = server.api("GET", "/api/v1/studios/bookings", params={"limit": 100})
    assert got.status_code == 200, got.text
    return {b["id"]: b for b in got.json()["data"]}


def room_slots(page: Page, room_name: str) -> Any:
    return page.get_by_role("list", name=re.compile(f"^{re.escape(room_name)}"))


def test_search_with_filters_lists_what_discover_returns(
    console: ConsolePage, server: ConsoleServer
) -> None:
    console.sign_in()
    page = console.open("/studios")
    found = page.get_by_role("list", name="Studios found")
    everything = server.api("GET", "/api/v1/studios/discover").json()["data"]
    expect(found.get_by_role("link")).to_have_text([s["name"] for s in everything])

    for filters in (
        {"city": "Nashville", "type": "recording", "capacity": "3"},
        {"state": "quebec"},
    ):
        page.get_by_role("button", name="Clear").click()
        if "city" in filters:
            page.get_by_label("City", exact=True).fill(filters["city"])
        if "state" in filters:
            page.get_by_label("State or province").fill(filters["state"])
        if "type" in filters:
            page.get_by_label("Type of work").select_option(filters["type"])
        if "capacity" in filters:
            page.get_by_label("Minimum booth capacity").fill(filters["capacity"])
        page.get_by_role("button", name="Search").click()
        expected = server.api("GET", "/api/v1/studios/discover", params=filters).json()["data"]
        assert expected, filters
        expect(found.get_by_role("link")).to_have_text([s["name"] for s in expected])
        if "city" in filters:
            for studio in expected:
                assert studio["address"]["city"] == "Nashville"
                assert "recording" in studio["types"]
                assert studio["max_booth_capacity"] >= 3

    page.get_by_label("City", exact=True).fill("Nowhere At All")
    page.get_by_role("button", name="Search").click()
    expect(page.get_by_text("No studio matches every filter.")).to_be_visible()


def test_booking_in_the_console_shows_the_apis_amounts_and_takes_the_slot(
    console: ConsolePage, server: ConsoleServer
) -> None:
    # Studio booking needs no buyer verification: the demo account is unverified and books.
    verification = server.api("GET", "/api/v1/buyers/verification").json()
    assert verification["status"] == "unverified"
    day = open_date(server, 10)
    before = bookings(server)
    console.sign_in()
    page = console.open(f"/studios/{STUDIO}?date={day}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Golden Vault Recording")
    expect(page.get_by_label(re.compile("^Date"))).to_have_value(day)
    slots = room_slots(page, "Podcast Suite")
    expect(slots.get_by_role("listitem").filter(has_text=f"12:00{DASH}12:30")).to_have_text(
        re.compile("free$")
    )

    # Choosing a free cell starts the booking there; 1 h 15 min prices 3,625 cents, whose
    # 2.5% (90.625) the API rounds half-up to 91.
    slots.get_by_role("button", name=f"12:00{DASH}12:30 free").click()
    expect(page.get_by_label("Room", exact=True)).to_have_value(ROOM)
    expect(page.get_by_label("Start time")).to_have_value("12:00")
    page.get_by_label("End time").select_option(label="13:15")
    # Before checkout, the API's quote of that time (nothing reserved yet).
    expect(page.get_by_test_id("price-total")).to_have_text(usd(3716))
    quoted = {
        name: page.get_by_test_id(f"price-{name}").inner_text()
        for name in ("subtotal", "fee", "total")
    }
    assert bookings(server) == before
    console.screenshot("studio-detail")
    page.get_by_role("button", name="Book this slot").click()
    expect(page.get_by_role("heading", name="Booking confirmed")).to_be_visible()
    booking_id = page.get_by_test_id("booking-id").inner_text()
    shown = {
        name: page.get_by_test_id(f"quote-{name}").inner_text()
        for name in ("subtotal", "fee", "total")
    }

    booking = bookings(server)[booking_id]
    assert (booking["status"], booking["date"], booking["room_id"]) == ("confirmed", day, ROOM)
    assert (booking["start_time"], booking["end_time"]) == ("12:00", "13:15")
    subtotal, fee, total = (
        booking["subtotal_cents"],
        booking["platform_fee_cents"],
        booking["total_cents"],
    )
    assert subtotal == 3625 == booking["hourly_rate_cents"] * 75 // 60
    assert fee == int((Decimal(subtotal) * Decimal("0.025")).quantize(1, ROUND_HALF_UP)) == 91
    assert total == subtotal + fee
    assert shown == quoted == {"subtotal": usd(subtotal), "fee": usd(fee), "total": usd(total)}

    # The calendar reloads: the booked half hours are taken, the ones around it free.
    for cell, state in (("11:30", "free"), ("12:00", "taken"), ("13:00", "taken")):
        item = slots.get_by_role("listitem").filter(has_text=re.compile(f"^{cell}{DASH}"))
        expect(item).to_have_text(re.compile(f"{state}$"))
    expect(slots.get_by_role("listitem").filter(has_text=f"13:30{DASH}14:00")).to_have_text(
        re.compile("free$")
    )
    availability = server.api(
        "GET", f"/api/v1/studios/{STUDIO}/availability", params={"date": day}
    ).json()
    starts = next(r for r in availability["rooms"] if r["id"] == ROOM)["start_times"]
    assert "12:00" not in starts
    assert "13:00" not in starts
    assert "13:15" in starts
    # The studio's own bookings list shows it too.
    row = page.get_by_role("row").filter(has_text=booking_id)
    expect(row).to_contain_text(usd(total))

    # Booking again offers only the starts still free.
    page.get_by_role("button", name="Book another slot").click()
    page.get_by_label("Room", exact=True).select_option(ROOM)
    expect(page.get_by_label("Start time").locator("option", has_text="13:15")).to_have_count(1)
    assert "12:00" not in page.get_by_label("Start time").locator("option").all_inner_texts()


def late_night(server: ConsoleServer) -> tuple[str, str, str, str]:
    """A demo studio open past midnight and a date a few days ahead on which its first room's
    first free start is 00:00, in the night the day before ran into, while the date's own
    hours open later: (studio, date, room, the date's opening time)."""
    found = server.api("GET", "/api/v1/studios/discover", params={"limit": 100})
    assert found.status_code == 200, found.text
    for summary in found.json()["data"]:
        studio = server.api("GET", f"/api/v1/studios/{summary['id']}").json()
        if not any(h["overnight"] for h in studio["opening_hours"]):
            continue
        for offset in range(3, 10):
            day = date.today() + timedelta(days=offset)
            opens = [
                h["open"] for h in studio["opening_hours"] if h["day"] == WEEKDAYS[day.weekday()]
            ]
            got = server.api(
                "GET", f"/api/v1/studios/{studio['id']}/availability", params={"date": str(day)}
            ).json()
            if not opens or got["closed"] or not got["rooms"]:
                continue
            room = got["rooms"][0]
            if room["start_times"][:1] == ["00:00"] and min(opens) > "00:00":
                return studio["id"], day.isoformat(), room["id"], min(opens)
    raise AssertionError("no demo studio open past midnight")


def test_the_booking_form_starts_at_the_first_free_time_of_the_dates_own_hours(
    console: ConsolePage, server: ConsoleServer
) -> None:
    studio, day, room, opens = late_night(server)
    got = server.api("GET", f"/api/v1/studios/{studio}/availability", params={"date": day})
    booth = next(r for r in got.json()["rooms"] if r["id"] == room)
    starts = booth["start_times"]
    # Not 00:00, the small hours of the night before, but the first free start from opening.
    first = next(t for t in starts if t >= opens)
    assert first != starts[0] == "00:00"
    console.sign_in()
    page = console.open(f"/studios/{studio}?date={day}")
    expect(page.get_by_label(re.compile("^Date"))).to_have_value(day)
    expect(page.get_by_label("Room", exact=True)).to_have_value(room)
    expect(page.get_by_label("Start time")).to_have_value(first)
    # The end offered first is the room's minimum after it, and the API quotes that time.
    hours, minutes = map(int, first.split(":"))
    ends = hours * 60 + minutes + booth["min_booking_hours"] * 60
    clock = ends - DAY if ends > DAY else ends  # 24:00 is the date's midnight
    end = f"{clock // 60:02d}:{clock % 60:02d}"
    expect(page.get_by_label("End time")).to_have_value(f"{end}|{str(ends > DAY).lower()}")
    duration = page.get_by_label("Price", exact=True).get_by_role("definition").first
    expect(duration).to_have_text(f"{booth['min_booking_hours'] * 60} min")


def test_cancel_in_the_bookings_list_cancels_via_the_api_and_frees_the_slot(
    console: ConsolePage, server: ConsoleServer
) -> None:
    day = open_date(server, 20)
    made = server.api(
        "POST",
        f"/api/v1/studios/{STUDIO}/book",
        json={"date": day, "room_id": ROOM, "start_time": "16:00", "end_time": "18:00"},
    )
    assert made.status_code == 200, made.text
    booking = made.json()
    console.sign_in()
    page = console.open("/studios")
    expect(page.get_by_role("list", name="Studios found").get_by_role("link").first).to_be_visible()
    row = page.get_by_role("row").filter(has_text=booking["id"])
    expect(row).to_contain_text("confirmed")
    expect(row).to_contain_text(usd(booking["platform_fee_cents"]))
    console.screenshot("07-studios")

    row.get_by_role("button", name=f"Cancel booking {booking['id']}").click()
    expect(row).to_contain_text("cancelled")
    expect(page.get_by_role("status")).to_contain_text(f"Booking {booking['id']} is cancelled")
    after = server.api("GET", f"/api/v1/studios/bookings/{booking['id']}").json()
    assert after["status"] == "cancelled"
    assert after["refund_cents"] == booking["total_cents"]  # 48 hours' notice or more
    expect(row).to_contain_text(usd(after["refund_cents"]))
    expect(row.get_by_role("button")).to_have_count(0)

    # Its time is free again on the studio's calendar.
    row.get_by_role("link", name="Golden Vault Recording").click()
    expect(page.get_by_label(re.compile("^Date"))).to_have_value(day)
    slots = room_slots(page, "Podcast Suite")
    expect(slots.get_by_role("listitem").filter(has_text=f"16:00{DASH}16:30")).to_have_text(
        re.compile("free$")
    )


def test_a_slot_taken_meanwhile_shows_the_apis_409_and_the_calendar_updates(
    console: ConsolePage, server: ConsoleServer
) -> None:
    console.allow_error("409")
    day = open_date(server, 30)
    console.sign_in()
    page = console.open(f"/studios/{STUDIO}?date={day}")
    slots = room_slots(page, "Podcast Suite")
    # The time's price answered first, as the user sees it before booking: a quote still on
    # its way when the time is taken answers 409 too, and its alert would be a second one.
    with page.expect_response(
        lambda answer: (
            answer.url.endswith("/quote")
            and (answer.request.post_data_json or {}).get("start_time") == "16:00"
        )
    ):
        slots.get_by_role("button", name=f"16:00{DASH}16:30 free").click()
    expect(page.get_by_label("Start time")).to_have_value("16:00")
    expect(page.get_by_test_id("price-total")).to_be_visible()
    taken = server.api(
        "POST",
        f"/api/v1/studios/{STUDIO}/book",
        json={"date": day, "room_id": ROOM, "start_time": "16:00", "end_time": "17:00"},
    )
    assert taken.status_code == 200, taken.text
    page.get_by_role("button", name="Book this slot").click()
    expect(page.get_by_role("alert")).to_contain_text("slot_unavailable")
    expect(slots.get_by_role("listitem").filter(has_text=f"16:00{DASH}16:30")).to_have_text(
        re.compile("taken$")
    )
    mine = [b for b in bookings(server).values() if b["date"] == day]
    assert [b["id"] for b in mine] == [taken.json()["id"]]
