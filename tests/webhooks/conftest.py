"""Webhook test fixtures: real HTTP receivers on 127.0.0.1 that verify every request with the
standardwebhooks library, a short retry schedule, and a driver standing in for the queue."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient
from standardwebhooks import Webhook

from soundstage.config import Settings, WebhookSettings
from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.webhooks import service, tasks
from tests.conftest import Customer

# Short enough for tests, long enough to see that retries wait.
SCHEDULE = [0.05, 0.1]
JITTER = 0.2


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes
    payload: Any  # what Webhook.verify returned; None when verification failed
    error: str | None  # why verification failed
    raw_headers: list[tuple[str, str]] = field(default_factory=list)  # as sent, repeats kept
    at: float = field(default_factory=time.monotonic)


class Receiver:
    """An HTTP server answering POSTs with `statuses` in turn, then `default`, each after
    `delay_seconds` (cut short once `release` is set). It counts the requests it is answering,
    per path (`in_flight`), at most at once per path (`most_at_once`) and over all paths
    (`most_held`)."""

    def __init__(self) -> None:
        self.secret = ""
        self.statuses: list[int] = []
        self.default = 200
        self.delay_seconds = 0.0
        self.release = threading.Event()
        self.requests: list[Received] = []
        self.in_flight: dict[str, int] = {}
        self.most_at_once: dict[str, int] = {}
        self.most_held = 0  # over every path
        self._lock = threading.Lock()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", "0")))
                raw = list(self.headers.items())
                receiver.record(self.path, {k.lower(): v for k, v in raw}, body, raw)
                receiver.count(self.path, +1)
                try:
                    receiver.release.wait(receiver.delay_seconds)
                finally:
                    receiver.count(self.path, -1)
                self.send_response(receiver.next_status())
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/hooks"

    def record(
        self, path: str, headers: dict[str, str], body: bytes, raw: list[tuple[str, str]]
    ) -> None:
        try:
            payload, error = Webhook(self.secret).verify(body, headers), None
        except Exception as exc:
            payload, error = None, f"{type(exc).__name__}: {exc}"
        with self._lock:
            self.requests.append(Received(path, headers, body, payload, error, raw))

    def count(self, path: str, change: int) -> None:
        with self._lock:
            now = self.in_flight[path] = self.in_flight.get(path, 0) + change
            self.most_at_once[path] = max(self.most_at_once.get(path, 0), now)
            self.most_held = max(self.most_held, sum(self.in_flight.values()))

    def held(self) -> int:
        """Requests being answered now, over every path."""
        with self._lock:
            return sum(self.in_flight.values())

    def next_status(self) -> int:
        with self._lock:
            return self.statuses.pop(0) if self.statuses else self.default

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def make_receiver() -> Iterator[Callable[[], Receiver]]:
    receivers: list[Receiver] = []

    def make() -> Receiver:
        receivers.append(Receiver())
        return receivers[-1]

    yield make
    for receiver in receivers:
        receiver.close()


@pytest.fixture
def receiver(make_receiver: Callable[[], Receiver]) -> Receiver:
    return make_receiver()


@pytest.fixture(autouse=True)
def webhook_settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> WebhookSettings:
    """A short retry schedule, and 127.0.0.1 allowed (the receivers live there)."""
    short = WebhookSettings(
        retry_schedule_seconds=SCHEDULE, retry_jitter=JITTER, timeout_seconds=2, failure_threshold=3
    )
    monkeypatch.setattr(settings, "webhooks", short)
    monkeypatch.setattr(settings, "fetch_allow_hosts", ["127.0.0.1"])
    return short


@pytest.fixture
def dispatched() -> Iterator[list[str]]:
    """Delivery ids handed to the dispatcher after commit (the queue's place)."""
    handed: list[str] = []
    service.set_dispatcher(handed.append)
    yield handed
    service.set_dispatcher(service.dispatched.append)


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
        event = service.emit(session, customer.account_id, environment, type_, data)
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
