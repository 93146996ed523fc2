"""Webhook test fixtures: real HTTP receivers on 127.0.0.1 that verify every request with the
standardwebhooks library (`tests/support/servers.py`), a short retry schedule, and the
dispatcher's place taken by a list (the driver standing in for the queue is
`tests/support/webhooks.py`)."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest

from soundstage.config import Settings, WebhookSettings
from soundstage.webhooks import service
from tests.support.servers import Receiver
from tests.support.webhooks import JITTER, SCHEDULE


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
