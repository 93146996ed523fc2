"""The delivery loop (`webhooks.loop`), run in this process as `soundstage worker` runs it in
its main process: due deliveries go out from the database, one request at a time per endpoint
even with two loops (two machines) on one database, and one account takes at most its share
of the pool while others are served."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings, WebhookSettings
from soundstage.core.db import Database
from soundstage.webhooks.loop import DeliveryLoop
from tests.support.factories import Customer, create_customer
from tests.support.servers import Receiver
from tests.support.webhooks import deliveries, emit, register, wait_until

pytestmark = pytest.mark.services

OUTPUT = {"job_id": "job_123", "output_url": "https://cdn.example/out.wav"}


@pytest.fixture
def start_loop(
    db: Database, settings: Settings, webhook_settings: WebhookSettings
) -> Iterator[Callable[..., DeliveryLoop]]:
    """Start a delivery loop on the test database (polling quickly); stopped after the test."""
    loops: list[DeliveryLoop] = []

    def start(**overrides: Any) -> DeliveryLoop:
        config = webhook_settings.model_copy(update={"poll_interval_seconds": 0.05, **overrides})
        loop = DeliveryLoop(db, settings.model_copy(update={"webhooks": config}))
        loop.start()
        loops.append(loop)
        return loop

    yield start
    for loop in loops:
        loop.stop()


def test_an_endpoint_gets_one_request_at_a_time_from_two_workers(
    client: TestClient,
    db: Database,
    customer: Customer,
    receiver: Receiver,
    start_loop: Callable[..., DeliveryLoop],
) -> None:
    endpoint = register(client, customer, receiver)
    receiver.delay_seconds = 0.3
    for _ in range(4):
        emit(db, customer, "dubbing.completed", OUTPUT)
    start_loop()
    start_loop()  # another machine

    def all_delivered() -> bool:
        listed = deliveries(client, customer, endpoint["id"])
        return [d["status"] for d in listed] == ["succeeded"] * 4

    wait_until(all_delivered, 20, "the four deliveries")
    assert len(receiver.requests) == 4
    assert all(request.error is None for request in receiver.requests)
    assert receiver.most_at_once == {"/hooks": 1}
    assert [d["attempt_count"] for d in deliveries(client, customer, endpoint["id"])] == [1] * 4


def test_one_account_takes_at_most_its_share_of_the_pool(
    client: TestClient,
    db: Database,
    make_receiver: Callable[[], Receiver],
    start_loop: Callable[..., DeliveryLoop],
) -> None:
    busy, other = create_customer(db), create_customer(db)
    slow, quick = make_receiver(), make_receiver()
    slow.delay_seconds = 30  # until released
    for n in range(6):
        register(client, busy, slow, url=f"{slow.url}?n={n}")
    register(client, other, quick)
    start_loop(delivery_concurrency=3, account_concurrency=2, timeout_seconds=30)

    emit(db, busy, "dubbing.completed", OUTPUT)  # six deliveries that hang
    wait_until(lambda: slow.held() == 2, 10, "two requests to the slow endpoints")
    emit(db, other, "dubbing.completed", OUTPUT)
    wait_until(lambda: len(quick.requests) == 1, 10, "the other account's delivery")
    assert slow.most_held == 2  # its share (2), never the whole pool (3)
    assert quick.requests[0].error is None

    slow.release.set()
    wait_until(lambda: len(slow.requests) == 6, 20, "the rest of the slow deliveries")
    assert slow.most_held == 2
    assert set(slow.most_at_once.values()) == {1}
