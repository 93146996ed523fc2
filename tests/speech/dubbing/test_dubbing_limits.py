"""The longest media a dub takes (`dubbing.max_duration_ms`, 3 s here): refused at submit
from the header, and in the worker from the decoded audio when the header understates it."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.media.audio import Audio
from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error
from tests.support.audio import audio_bytes, understated_mkv
from tests.support.dubbing import DUBBING, submit, wait
from tests.support.factories import Customer, create_customer
from tests.support.processes import run_worker
from tests.support.servers import FileServer

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

LIMIT_MS = 3000
RATE = 16_000


@pytest.fixture(scope="module")
def worker(settings: Settings) -> Iterator[subprocess.Popen[bytes]]:
    yield from run_worker(settings, SOUNDSTAGE_DUBBING__MAX_DURATION_MS=str(LIMIT_MS))


@pytest.fixture(autouse=True)
def limit(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(settings.dubbing, "max_duration_ms", LIMIT_MS)


@pytest.fixture
def rich(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=20_000)


def tone(frames: int) -> Audio:
    t = np.arange(frames) / RATE
    return Audio((0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32).reshape(-1, 1), RATE)


def balance(client: TestClient, customer: Customer) -> tuple[int, int]:
    body = client.get("/api/v1/credits", headers=customer.auth()).json()
    return int(body["balance"]), int(body["reserved"])


def test_media_longer_than_the_limit_is_refused_at_submit(
    client: TestClient, files: FileServer, rich: Customer
) -> None:
    over = files.put("over.wav", audio_bytes(tone(LIMIT_MS * RATE // 1000 + 16)))
    response = client.post(
        DUBBING,
        headers=rich.auth(),
        json={"media_url": over, "source_language": "en", "target_language": "es"},
    )
    assert_error(response, 422, "media_too_long")
    assert response.json()["error"]["param"] == "media_url"
    assert balance(client, rich) == (20_000, 0)


@pytest.mark.measures
def test_media_whose_header_understates_it_is_refused_once_decoded(
    client: TestClient, files: FileServer, rich: Customer
) -> None:
    # The header says 1 s (within the limit, accepted); the file holds 4 s.
    url = files.put("long.mkv", understated_mkv(tone(4 * RATE), 1000))
    answer = submit(client, rich, media_url=url, source_language="en", target_language="es")
    job = wait(client, rich, answer["job_id"], timeout=120)
    assert job["status"] == "failed", job
    assert job["error"]["code"] == "media_too_long"
    assert job["error"]["param"] == "media_url"
    assert balance(client, rich) == (20_000, 0)


@pytest.mark.measures
@pytest.mark.slow
def test_media_as_long_as_the_limit_passes_both_checks(
    client: TestClient, files: FileServer, rich: Customer
) -> None:
    # Exactly the limit passes both checks and reaches the pipeline, which finds no speech
    # in a tone (a dub that gets that far was not refused for its length).
    url = files.put("limit.wav", audio_bytes(tone(LIMIT_MS * RATE // 1000)))
    answer = submit(client, rich, media_url=url, source_language="en", target_language="es")
    assert answer["duration_ms"] == LIMIT_MS
    job = wait(client, rich, answer["job_id"])
    assert job["status"] == "failed", job
    assert job["error"]["code"] == "no_speech"
