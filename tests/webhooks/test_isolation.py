"""Webhook deliveries never take an audio worker: with 20 endpoints that hang, another
account's short TTS answers about as fast as without them, from a real `soundstage worker`.
Deliveries run on the audio processes would hold its speech until they time out (15 s); the
margin here is for the other test process's load, which changes between the two measurements
(in one CI run a baseline of 0.13 s came back 0.27 s), and bench/webhook_isolation.py measures
the latency itself."""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.webhooks import service
from tests.support.factories import Customer, create_customer
from tests.support.servers import Receiver
from tests.support.webhooks import register, wait_until

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

TTS = "/api/v1/speech/tts"
SLOW_ENDPOINTS = 20
OWNERS = 3  # 7 + 7 + 6 endpoints: each account within its share of the delivery pool


def speak_seconds(client: TestClient, customer: Customer) -> float:
    started = time.monotonic()
    response = client.post(
        TTS, headers=customer.auth(), json={"voice_id": "voice_joe", "text": "Hello!"}
    )
    assert response.status_code == 200, response.text
    return time.monotonic() - started


def median_speak_seconds(client: TestClient, customer: Customer, times: int = 5) -> float:
    return statistics.median(speak_seconds(client, customer) for _ in range(times))


def warm_up(client: TestClient, customer: Customer) -> None:
    """Load the voice in both job processes: two requests at once, twice."""
    for _ in range(2):
        threads = [
            threading.Thread(target=speak_seconds, args=(client, customer)) for _ in range(2)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()


def test_slow_endpoints_do_not_delay_another_accounts_speech(
    client: TestClient, db: Database, make_receiver: Callable[[], Receiver]
) -> None:
    speaker = create_customer(db, credits_each=1000)
    warm_up(client, speaker)
    baseline = median_speak_seconds(client, speaker)

    slow = make_receiver()
    slow.delay_seconds = 60  # hangs past the worker's webhook timeout, until released
    owners = [create_customer(db) for _ in range(OWNERS)]
    for n in range(SLOW_ENDPOINTS):
        register(client, owners[n % OWNERS], slow, url=f"{slow.url}?n={n}")
    with db.session() as session:  # one event per account, fanning out to its endpoints
        for owner in owners:
            service.emit(session, (owner.account_id, "sandbox"), "daw.completed", {})
    wait_until(lambda: slow.held() == SLOW_ENDPOINTS, 15, "every slow endpoint to be called")

    during = median_speak_seconds(client, speaker)
    held = slow.held()
    slow.release.set()
    assert held >= SLOW_ENDPOINTS  # they were all still hanging
    assert during <= 2 * baseline + 1.0, (during, baseline)
