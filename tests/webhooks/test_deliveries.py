"""Signed deliveries to real HTTP receivers: payload and headers, retries with the same
webhook-id, 410 and repeated failures disabling the endpoint, filtering, manual redelivery."""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient
from standardwebhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError

from soundstage import __version__
from soundstage.config import Settings, WebhookSettings
from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.webhooks import service, tasks
from tests.support.api import assert_error
from tests.support.factories import Customer
from tests.support.servers import Receiver
from tests.support.webhooks import JITTER, SCHEDULE, deliveries, drive, emit, register

pytestmark = pytest.mark.services

ENDPOINTS = "/api/v1/webhooks/endpoints"
OUTPUT = {"job_id": "job_123", "output_url": "https://cdn.example/out.wav", "title": "Café"}


def test_an_event_is_delivered_signed(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    endpoint = register(client, customer, receiver)
    event_id = emit(db, customer, "dubbing.completed", OUTPUT)
    assert len(dispatched) == 1  # handed to the queue once the transaction committed
    assert tasks.due_deliveries(db, utcnow()).count(dispatched[0]) == 1

    assert drive(db, settings, dispatched) == 1
    [request] = receiver.requests
    assert request.error is None  # Webhook(secret).verify passed
    assert request.path == "/hooks"
    assert request.headers["webhook-id"] == event_id
    assert request.headers["content-type"] == "application/json"
    assert request.headers["webhook-signature"].startswith("v1,")
    event = client.get(f"/api/v1/events/{event_id}", headers=customer.auth()).json()
    assert request.payload == {
        "type": "dubbing.completed",
        "timestamp": event["created_at"],
        "data": OUTPUT,
    }
    assert event["data"] == OUTPUT

    [delivery] = deliveries(client, customer, endpoint["id"])
    assert delivery["id"] == dispatched[0]
    assert (delivery["event_id"], delivery["event_type"]) == (event_id, "dubbing.completed")
    assert (delivery["status"], delivery["attempt_count"], delivery["next_attempt_at"]) == (
        "succeeded",
        1,
        None,
    )
    [attempt] = delivery["attempts"]
    assert (attempt["status_code"], attempt["error"]) == (200, None)
    assert attempt["duration_ms"] >= 0
    # Done: attempting again sends nothing.
    assert tasks.attempt_delivery(db, settings, delivery["id"]) is None
    assert len(receiver.requests) == 1


def test_a_delivery_carries_one_user_agent(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    register(client, customer, receiver)
    emit(db, customer, "dubbing.completed", OUTPUT)
    drive(db, settings, dispatched)
    [request] = receiver.requests
    agents = [value for name, value in request.raw_headers if name.lower() == "user-agent"]
    assert agents == [f"Soundstage-Webhooks/{__version__}"]


def test_a_rolled_back_emit_sends_nothing(
    client: TestClient, db: Database, customer: Customer, receiver: Receiver, dispatched: list[str]
) -> None:
    register(client, customer, receiver)

    def fail_after_emitting() -> None:
        with db.session() as session:
            service.emit(session, (customer.account_id, "sandbox"), "daw.completed", OUTPUT)
            raise RuntimeError("the job's transaction fails")

    with pytest.raises(RuntimeError):
        fail_after_emitting()
    assert dispatched == []
    assert client.get("/api/v1/events", headers=customer.auth()).json()["data"] == []


def test_a_tampered_body_or_signature_fails_verification(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    register(client, customer, receiver)
    emit(db, customer, "daw.completed", {"download_url": "https://cdn.example/a.zip"})
    drive(db, settings, dispatched)
    [request] = receiver.requests
    webhook = Webhook(receiver.secret)
    assert webhook.verify(request.body, request.headers)["type"] == "daw.completed"

    tampered_body = request.body.replace(b"a.zip", b"b.zip")
    signature = request.headers["webhook-signature"]
    forged = signature[:-6] + ("AAAA==" if not signature.endswith("AAAA==") else "BBBB==")
    cases = [
        (tampered_body, request.headers),
        (request.body, {**request.headers, "webhook-signature": forged}),
        (request.body, {**request.headers, "webhook-id": "evt_other"}),
        (request.body, {**request.headers, "webhook-timestamp": "1000000000"}),
    ]
    for body, headers in cases:
        with pytest.raises(WebhookVerificationError):
            webhook.verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(service.new_secret()).verify(request.body, request.headers)


def test_failures_are_retried_with_the_same_webhook_id(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    endpoint = register(client, customer, receiver)
    receiver.statuses = [500, 503]
    event_id = emit(db, customer, "dubbing.completed", OUTPUT)
    assert drive(db, settings, dispatched) == 3

    assert [r.error for r in receiver.requests] == [None, None, None]
    assert {r.headers["webhook-id"] for r in receiver.requests} == {event_id}
    assert len({r.body for r in receiver.requests}) == 1  # the same payload every time
    gaps = [b.at - a.at for a, b in zip(receiver.requests, receiver.requests[1:], strict=False)]
    for gap, planned in zip(gaps, SCHEDULE, strict=True):
        assert gap >= planned * (1 - JITTER), (gaps, SCHEDULE)

    [delivery] = deliveries(client, customer, endpoint["id"])
    assert (delivery["status"], delivery["attempt_count"]) == ("succeeded", 3)
    assert [a["status_code"] for a in delivery["attempts"]] == [500, 503, 200]
    assert (
        client.get(f"{ENDPOINTS}/{endpoint['id']}", headers=customer.auth()).json()["status"]
        == "enabled"
    )


def test_a_slow_or_absent_receiver_is_a_failed_attempt(
    client: TestClient,
    db: Database,
    settings: Settings,
    webhook_settings: WebhookSettings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    webhook_settings.timeout_seconds = 0.2
    endpoint = register(client, customer, receiver)
    receiver.delay_seconds = 0.5
    emit(db, customer, "dubbing.completed", OUTPUT)
    delay = tasks.attempt_delivery(db, settings, dispatched[0])
    assert delay is not None
    receiver.close()  # now nothing listens there
    time.sleep(delay)
    drive(db, settings, dispatched)

    [delivery] = deliveries(client, customer, endpoint["id"])
    assert (delivery["status"], delivery["attempt_count"]) == ("failed", 3)
    timed_out, *refused = delivery["attempts"]
    assert timed_out["status_code"] is None
    assert timed_out["error"].startswith("media_unreachable: ")
    assert "timed out" in timed_out["error"]
    for attempt in refused:
        assert attempt["status_code"] is None
        assert "refused the connection" in attempt["error"]


def test_410_disables_the_endpoint_and_stops_retries(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    endpoint = register(client, customer, receiver)
    receiver.default = 410
    emit(db, customer, "daw.completed", OUTPUT)
    assert drive(db, settings, dispatched) == 1

    state = client.get(f"{ENDPOINTS}/{endpoint['id']}", headers=customer.auth()).json()
    assert (state["status"], state["disabled_reason"]) == ("disabled", "gone")
    [delivery] = deliveries(client, customer, endpoint["id"])
    assert (delivery["status"], [a["status_code"] for a in delivery["attempts"]]) == (
        "failed",
        [410],
    )
    # Nothing more goes there: no new delivery, no attempt of the old one, no redelivery.
    emit(db, customer, "daw.completed", OUTPUT)
    assert len(dispatched) == 1
    assert tasks.attempt_delivery(db, settings, delivery["id"]) is None
    retry = client.post(
        f"{ENDPOINTS}/{endpoint['id']}/deliveries/{delivery['id']}/retry", headers=customer.auth()
    )
    assert assert_error(retry, 409, "endpoint_disabled")["param"] == "endpoint_id"
    assert len(receiver.requests) == 1
    assert len(client.get("/api/v1/events", headers=customer.auth()).json()["data"]) == 2


def test_repeated_failures_disable_the_endpoint(
    client: TestClient,
    db: Database,
    settings: Settings,
    webhook_settings: WebhookSettings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    endpoint = register(client, customer, receiver)
    receiver.default = 500
    for _ in range(webhook_settings.failure_threshold - 1):
        emit(db, customer, "dubbing.completed", OUTPUT)
    drive(db, settings, dispatched)
    state = client.get(f"{ENDPOINTS}/{endpoint['id']}", headers=customer.auth()).json()
    assert state["status"] == "enabled"  # one failure short of the threshold

    emit(db, customer, "dubbing.completed", OUTPUT)
    drive(db, settings, dispatched)
    state = client.get(f"{ENDPOINTS}/{endpoint['id']}", headers=customer.auth()).json()
    assert (state["status"], state["disabled_reason"]) == ("disabled", "failing")
    listed = deliveries(client, customer, endpoint["id"])
    assert len(listed) == webhook_settings.failure_threshold
    for delivery in listed:
        assert delivery["status"] == "failed"
        assert [a["status_code"] for a in delivery["attempts"]] == [500] * (len(SCHEDULE) + 1)
    assert len(receiver.requests) == webhook_settings.failure_threshold * (len(SCHEDULE) + 1)


def test_a_success_resets_the_failure_count(
    client: TestClient,
    db: Database,
    settings: Settings,
    webhook_settings: WebhookSettings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    endpoint = register(client, customer, receiver)
    webhook_settings.retry_schedule_seconds = [0.01]
    for answer in [500] * (webhook_settings.failure_threshold - 1) + [200]:
        receiver.default = answer
        emit(db, customer, "dubbing.completed", OUTPUT)
        drive(db, settings, dispatched[-1:])
    receiver.default = 500
    emit(db, customer, "dubbing.completed", OUTPUT)
    drive(db, settings, dispatched[-1:])
    state = client.get(f"{ENDPOINTS}/{endpoint['id']}", headers=customer.auth()).json()
    assert state["status"] == "enabled"


def test_a_deleted_endpoints_pending_delivery_is_not_attempted(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    endpoint = register(client, customer, receiver)
    emit(db, customer, "dubbing.completed", OUTPUT)
    client.delete(f"{ENDPOINTS}/{endpoint['id']}", headers=customer.auth())
    assert tasks.attempt_delivery(db, settings, dispatched[0]) is None
    assert dispatched[0] not in tasks.due_deliveries(db, utcnow())
    assert receiver.requests == []


def test_only_subscribed_endpoints_of_the_owner_and_environment_receive(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    other_customer: Customer,
    make_receiver: Callable[[], Receiver],
    dispatched: list[str],
) -> None:
    dubbing, everything, daw, production, stranger = (make_receiver() for _ in range(5))
    register(client, customer, dubbing, enabled_events=["dubbing.completed"])
    register(client, customer, everything)
    register(client, customer, daw, enabled_events=["daw.completed"])
    register(client, customer, production, environment="production")
    register(client, other_customer, stranger)

    emit(db, customer, "dubbing.completed", OUTPUT)
    assert len(dispatched) == 2
    drive(db, settings, dispatched)
    emit(db, customer, "daw.completed", {"download_url": "https://cdn.example/a.zip"})
    drive(db, settings, dispatched)

    def types(receiver: Receiver) -> list[str]:
        assert all(r.error is None for r in receiver.requests)
        return [r.payload["type"] for r in receiver.requests]

    assert types(dubbing) == ["dubbing.completed"]
    assert types(everything) == ["dubbing.completed", "daw.completed"]
    assert types(daw) == ["daw.completed"]
    assert types(production) == types(stranger) == []

    emit(db, customer, "daw.completed", {}, environment="production")
    drive(db, settings, dispatched)
    assert types(production) == ["daw.completed"]
    assert len(everything.requests) == 2


def test_manual_retry_redelivers_with_the_same_webhook_id(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    endpoint = register(client, customer, receiver)
    receiver.default = 500
    event_id = emit(db, customer, "dubbing.completed", OUTPUT)
    drive(db, settings, dispatched)
    [delivery] = deliveries(client, customer, endpoint["id"])
    assert delivery["status"] == "failed"

    receiver.default = 200
    path = f"{ENDPOINTS}/{endpoint['id']}/deliveries/{delivery['id']}/retry"
    response = client.post(path, headers=customer.auth())
    assert response.status_code == 200, response.text
    retried = response.json()
    assert (retried["id"], retried["status"]) == (delivery["id"], "pending")
    assert len(retried["attempts"]) == len(SCHEDULE) + 1
    assert dispatched == [delivery["id"], delivery["id"]]  # handed to the queue again
    assert drive(db, settings, dispatched[-1:]) == 1

    [after] = deliveries(client, customer, endpoint["id"])
    assert after["status"] == "succeeded"
    assert [a["status_code"] for a in after["attempts"]] == [500] * (len(SCHEDULE) + 1) + [200]
    assert {r.headers["webhook-id"] for r in receiver.requests} == {event_id}
    assert json.loads(receiver.requests[-1].body) == receiver.requests[-1].payload

    # A succeeded delivery can be sent again too.
    assert client.post(path, headers=customer.auth()).json()["status"] == "pending"
    drive(db, settings, [delivery["id"]])
    assert len(receiver.requests) == len(SCHEDULE) + 3


def test_deliveries_list_filters_by_status(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    receiver: Receiver,
    dispatched: list[str],
) -> None:
    endpoint = register(client, customer, receiver)
    emit(db, customer, "dubbing.completed", OUTPUT)
    drive(db, settings, dispatched)
    emit(db, customer, "dubbing.completed", OUTPUT)
    path = f"{ENDPOINTS}/{endpoint['id']}/deliveries"
    pending = client.get(f"{path}?status=pending", headers=customer.auth()).json()["data"]
    succeeded = client.get(f"{path}?status=succeeded", headers=customer.auth()).json()["data"]
    assert [d["id"] for d in pending] == [dispatched[1]]
    assert [d["id"] for d in succeeded] == [dispatched[0]]
    assert pending[0]["attempts"] == []
