"""A streamed TTS job with `encoding` (the compatible APIs' output formats): the bytes it
streams are in that encoding, the file it stores stays in `format`."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.jobs.streams import Relay
from soundstage.media.encodings import ENCODINGS
from soundstage.speech.tts.tasks import KIND
from soundstage.voices.service import CatalogCounts
from tests.support.audio import encoded_frames
from tests.support.factories import Customer, create_customer, principal_of
from tests.support.jobs import submit, wait_for_job

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

TEXT = "The harbour was quiet before dawn. A single boat went out past the light."


@pytest.fixture
def customer(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=5000)


def tts_request(**fields: Any) -> dict[str, Any]:
    """What the TTS service stores for voice_joe (Piper, 22.05 kHz), streamed."""
    return {
        "text": TEXT,
        "format": "mp3",
        "speed": 1.0,
        "pitch": 0,
        "engine": "piper",
        "engine_voice": "en_US-joe-medium",
        "language": "en",
        "stream": True,
        **fields,
    }


def relayed(db: Database, settings: Settings, job_id: str) -> bytes:
    """Every byte of the job's stream, as the endpoint relays it."""

    async def read() -> bytes:
        relay = Relay(db, settings, job_id)
        chunks = [await relay.first_chunk()]
        chunks += [chunk async for chunk in relay.rest()]
        return b"".join(chunks)

    return asyncio.run(read())


def decoded_seconds(data: bytes, name: str) -> tuple[int, float]:
    frames = encoded_frames(ENCODINGS[name], data)
    rate = frames[0].sample_rate
    return rate, sum(frame.samples for frame in frames) / rate


@pytest.mark.parametrize(
    "name", ["pcm_16000", "ulaw_8000", "opus_48000_64", "mp3_22050_32", "openai_wav", "openai_aac"]
)
def test_a_streamed_job_sends_its_encoding_and_stores_its_format(
    client: TestClient, db: Database, settings: Settings, customer: Customer, name: str
) -> None:
    job_id = submit(
        db, settings, principal_of(customer), KIND, tts_request(encoding=name), len(TEXT)
    )
    data = relayed(db, settings, job_id)
    job = wait_for_job(client, customer, job_id)
    assert job["status"] == "completed", job
    assert job["credits_used"] == len(TEXT)
    rate, seconds = decoded_seconds(data, name)
    assert rate == ENCODINGS[name].sample_rate
    # The stream is the stored file's audio (lossy codecs add their delay and padding).
    stored = job["result"]["duration_ms"] / 1000
    assert stored > 3
    assert abs(seconds - stored) <= 0.1
    stored_file = client.get(job["result"]["output_url"].removeprefix(settings.public_base_url))
    assert stored_file.status_code == 200
    assert stored_file.headers["content-type"] == "audio/mpeg"


def test_an_unknown_encoding_fails_the_job_uncharged(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    request = tts_request(encoding="mp3_44100_999")
    job_id = submit(db, settings, principal_of(customer), KIND, request, len(TEXT))
    job = wait_for_job(client, customer, job_id)
    assert job["status"] == "failed"
    assert job["error"]["code"] == "internal_error"
    assert job["credits_used"] == 0
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (5000, 0)
