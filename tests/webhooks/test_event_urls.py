"""Media URLs in webhook events stay valid through the whole retry schedule (Svix's, about
27.6 h), while the same job read through the API gets URLs valid for the usual 24 h."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from urllib.parse import urlsplit

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings, WebhookSettings
from soundstage.core.db import Database
from soundstage.storage import signing
from tests.support.factories import Customer, principal_of
from tests.support.jobs import submit, wait_for
from tests.support.processes import run_worker

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker")]

DAY = 24 * 3600
SCHEDULE = WebhookSettings()  # the default retries, jitter included


@pytest.fixture(scope="module")
def worker(settings: Settings) -> Iterator[subprocess.Popen[bytes]]:
    yield from run_worker(settings, SOUNDSTAGE_WEBHOOKS=SCHEDULE.model_dump_json())


def expires_of(url: str) -> int:
    return int(urlsplit(url).query.split("&")[0].removeprefix("expires="))


def still_valid(settings: Settings, url: str, at: float) -> bool:
    parts = urlsplit(url)
    media_id, filename = parts.path.rsplit("/", 2)[-2:]
    try:
        signing.verify(settings, media_id, filename, parts.query, now=at)
    except signing.MediaUrlExpired:
        return False
    return True


def test_event_urls_outlive_the_retries_and_api_urls_last_a_day(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    job_id = submit(db, settings, principal_of(customer), "test.tone", {}, 10, is_async=True)
    read = wait_for(client, customer, job_id, "completed")["result"]["output_url"]
    events = client.get("/api/v1/events", headers=customer.auth()).json()["data"]
    (event,) = [e for e in events if e["data"]["job_id"] == job_id]
    assert event["type"] == "job.completed"
    sent = event["data"]["result"]["output_url"]
    emitted = time.time()
    # The last automatic attempt comes at most this long after the event.
    last_attempt = sum(SCHEDULE.retry_schedule_seconds) * (1 + SCHEDULE.retry_jitter)
    assert last_attempt > DAY
    assert still_valid(settings, sent, emitted + last_attempt + DAY - 60)
    assert expires_of(sent) <= emitted + last_attempt + DAY + 60
    # Read through the API: 24 h, as ever.
    assert still_valid(settings, read, emitted + DAY - 60)
    assert not still_valid(settings, read, emitted + DAY + 60)
