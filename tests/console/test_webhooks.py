"""The console's Webhooks page against a real receiver on 127.0.0.1 that verifies every
request's Standard Webhooks signature: an endpoint created in the console (its secret read
from the page) is sent a real DAW export's `daw.completed`; the console shows that delivery
with its attempt, redelivers it, lists the event and its deliveries, and deletes the endpoint."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from soundstage.webhooks.schemas import EVENT_TYPES
from tests.support.audio import wav_bytes
from tests.support.console import DESKTOP, PHONE, ConsolePage, ConsoleServer, console_server
from tests.support.servers import Received, Receiver


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleServer]:
    """The console's server, allowed to deliver webhooks to 127.0.0.1 (the receiver)."""
    with console_server(tmp_path_factory.mktemp("webhooks"), FETCH_ALLOW_HOSTS="127.0.0.1") as live:
        yield live


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    live = Receiver()
    yield live
    live.close()


def assert_fits_a_phone(page: Page) -> None:
    """At 390 px nothing makes the page scroll sideways (wide tables scroll in their box)."""
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.set_viewport_size(DESKTOP)


def received(receiver: Receiver, count: int, timeout: float = 60) -> list[Received]:
    """Wait until the receiver has had `count` requests; all of them."""
    deadline = time.monotonic() + timeout
    while len(receiver.requests) < count:
        assert time.monotonic() < deadline, f"{len(receiver.requests)} of {count} deliveries"
        time.sleep(0.1)
    return list(receiver.requests)


def export_daw(server: ConsoleServer) -> str:
    """A real DAW export of a short upload, run by the embedded worker: its job id."""
    upload = server.api(
        "POST", "/api/v1/uploads", files={"file": ("take.wav", wav_bytes(2.0), "audio/wav")}
    )
    assert upload.status_code == 200, upload.text
    accepted = server.api(
        "POST",
        "/api/v1/creative/daw",
        json={"tracks": [{"name": "Take", "audio_url": upload.json()["url"]}]},
    )
    assert accepted.status_code == 200, accepted.text
    job_id: str = accepted.json()["job_id"]
    return job_id


def test_an_endpoint_made_in_the_console_gets_signed_deliveries_and_redeliveries(
    console: ConsolePage, server: ConsoleServer, receiver: Receiver
) -> None:
    console.sign_in()
    page = console.open("/webhooks")
    page.get_by_label("Endpoint URL").fill(receiver.url)
    page.get_by_label("Description (optional)").fill("console test receiver")
    page.get_by_label("Every event type").uncheck()
    page.get_by_label("daw.completed").check()
    page.get_by_label("daw.failed").check()
    page.get_by_role("button", name="Create endpoint").click()
    secret = page.get_by_label("Signing secret").input_value()
    assert secret.startswith("whsec_")
    receiver.secret = secret

    endpoints = server.api("GET", "/api/v1/webhooks/endpoints").json()["data"]
    (endpoint,) = [e for e in endpoints if e["url"] == receiver.url]
    assert endpoint["enabled_events"] == ["daw.completed", "daw.failed"]
    assert "secret" not in endpoint
    table = page.get_by_role("table", name="Endpoints")
    expect(table.get_by_role("row").filter(has_text=receiver.url)).to_contain_text(
        "daw.completed, daw.failed"
    )
    page.get_by_role("button", name="Done").click()
    expect(page.get_by_label("Signing secret")).to_have_count(0)

    # A real job's end, delivered signed with the secret the page showed.
    job_id = export_daw(server)
    (first,) = received(receiver, 1)
    assert first.error is None, first.error
    assert first.payload["type"] == "daw.completed"
    assert first.payload["data"]["job_id"] == job_id
    event_id = first.headers["webhook-id"]

    page.get_by_role("button", name=f"Deliveries to {receiver.url}").click()
    panel = page.get_by_role("region", name=f"Deliveries to {receiver.url}")
    delivery = panel.get_by_role("listitem").filter(has_text=event_id)
    expect(delivery.locator(".status")).to_have_text("succeeded")
    expect(delivery).to_contain_text("daw.completed")
    expect(delivery).to_contain_text("1 attempt")
    expect(delivery.get_by_role("table").locator("tbody tr")).to_have_count(1)
    expect(delivery.get_by_role("table")).to_contain_text("HTTP 200")
    (listed,) = server.api("GET", f"/api/v1/webhooks/endpoints/{endpoint['id']}/deliveries").json()[
        "data"
    ]
    assert (listed["event_id"], listed["status"], listed["attempt_count"]) == (
        event_id, "succeeded", 1)  # fmt: skip

    # Redelivered from the console: the same event again, signed, and a second attempt.
    delivery.get_by_role("button", name="Redeliver").click()
    again = received(receiver, 2)[1]
    assert again.error is None, again.error
    assert again.headers["webhook-id"] == event_id
    expect(delivery.get_by_role("table").locator("tbody tr")).to_have_count(2)
    expect(delivery).to_contain_text("2 attempts")
    expect(delivery.locator(".status")).to_have_text("succeeded")
    listed = server.api("GET", f"/api/v1/webhooks/endpoints/{endpoint['id']}/deliveries").json()[
        "data"
    ][0]
    assert (listed["status"], listed["attempt_count"]) == ("succeeded", 2)

    # The event is listed, with its deliveries.
    page.get_by_role("button", name="Refresh events").click()
    events = page.get_by_role("table", name="Events")
    expect(events.get_by_role("row").filter(has_text=event_id)).to_contain_text("daw.completed")
    assert server.api("GET", "/api/v1/events").json()["data"][0]["id"] == event_id
    page.get_by_role("button", name=f"Deliveries of {event_id}").click()
    of_event = page.get_by_role("region", name=f"Deliveries of event {event_id}")
    expect(of_event.get_by_role("listitem").filter(has_text=listed["id"])).to_contain_text(
        receiver.url
    )
    console.screenshot("06-webhooks")
    assert_fits_a_phone(page)


def test_an_endpoint_deleted_in_the_console_is_gone(
    console: ConsolePage, server: ConsoleServer, receiver: Receiver
) -> None:
    made = server.api("POST", "/api/v1/webhooks/endpoints", json={"url": receiver.url})
    assert made.status_code == 200, made.text
    endpoint_id = made.json()["id"]
    console.sign_in()
    page = console.open("/webhooks")
    row = (
        page.get_by_role("table", name="Endpoints").get_by_role("row").filter(has_text=endpoint_id)
    )
    row.get_by_role("button", name=f"Delete {receiver.url}").click()
    row.get_by_role("button", name="Delete for good").click()
    expect(page.get_by_text(endpoint_id)).to_have_count(0)
    gone = server.api("GET", f"/api/v1/webhooks/endpoints/{endpoint_id}")
    assert gone.status_code == 404
    assert gone.json()["error"]["code"] == "webhook_endpoint_not_found"


def test_a_refused_url_shows_the_apis_error(console: ConsolePage) -> None:
    console.allow_error("422")
    console.sign_in()
    page = console.open("/webhooks")
    page.get_by_label("Endpoint URL").fill("http://10.0.0.1/hooks")
    page.get_by_role("button", name="Create endpoint").click()
    expect(page.get_by_role("alert")).to_contain_text("url_not_allowed")
    expect(page.get_by_label("Signing secret")).to_have_count(0)


def test_the_event_choices_are_the_apis_event_types(console: ConsolePage) -> None:
    console.sign_in()
    page = console.open("/webhooks")
    page.get_by_label("Every event type").uncheck()
    events = page.get_by_role("group", name="Events to receive")
    choices = events.get_by_role("checkbox").evaluate_all(
        "boxes => boxes.map(b => b.labels[0].textContent)"
    )
    assert choices[1:] == list(EVENT_TYPES)
    types = page.get_by_label("Event type", exact=True).locator("option")
    assert types.evaluate_all("options => options.map(o => o.value)") == ["", *EVENT_TYPES]
