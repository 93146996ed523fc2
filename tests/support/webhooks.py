"""Webhook endpoints registered over HTTP, events emitted through the service, and a driver
standing in for the queue."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.webhooks import service, tasks
from tests.support.factories import Customer
from tests.support.servers import Receiver

# A retry schedule short enough for tests, long enough to see that retries wait.
SCHEDULE = [0.05, 0.1]
JITTER = 0.2


def register(
    client: TestClient,
    customer: Customer,
    receiver: Receiver,
    environment: str = "sandbox",
    **fields: Any,
) -> dict[str, Any]:
    """Create an endpoint for `receiver` over HTTP and give the receiver its secret."""
    response = client.post(
        "/api/v1/webhooks/endpoints",
        headers=customer.auth(environment),
        json={"url": receiver.url, **fields},
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    receiver.secret = body["secret"]
    return body


def emit(
    db: Database, customer: Customer, type_: str, data: dict[str, Any], environment: str = "sandbox"
) -> str:
    with db.session() as session:
        event = service.emit(session, (customer.account_id, environment), type_, data)
    return event.id


def drive(db: Database, settings: Settings, delivery_ids: list[str], timeout: float = 5) -> int:
    """What the queue and sweeper will do: attempt the due ones among `delivery_ids`, wait
    as long as the returned delays say, until none of them has a next attempt. Returns the
    number of attempts made."""
    waiting = set(delivery_ids)
    wake = dict.fromkeys(delivery_ids, 0.0)
    attempts = 0
    deadline = time.monotonic() + timeout
    while waiting:
        assert time.monotonic() < deadline, f"deliveries still pending: {waiting}"
        checked_at = time.monotonic()
        due = set(tasks.due_deliveries(db, utcnow()))
        for delivery_id in sorted(waiting):
            if wake[delivery_id] > checked_at:
                continue
            if delivery_id not in due:
                # Past its wake-up time and not due: no longer pending (e.g. given up
                # because its endpoint was disabled).
                waiting.discard(delivery_id)
                continue
            attempts += 1
            delay = tasks.attempt_delivery(db, settings, delivery_id)
            if delay is None:
                waiting.discard(delivery_id)
            else:
                wake[delivery_id] = time.monotonic() + delay
        if waiting:
            time.sleep(max(0.005, min(wake[d] for d in waiting) - time.monotonic()))
    return attempts


def deliveries(
    client: TestClient, customer: Customer, endpoint_id: str, environment: str = "sandbox"
) -> list[dict[str, Any]]:
    response = client.get(
        f"/api/v1/webhooks/endpoints/{endpoint_id}/deliveries?limit=100",
        headers=customer.auth(environment),
    )
    assert response.status_code == 200, response.text
    data: list[dict[str, Any]] = response.json()["data"]
    return data


def wait_until(condition: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"still waiting for {what}"
        time.sleep(0.02)
