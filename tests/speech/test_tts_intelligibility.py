"""Every English voice of the demo catalog is understood: speech from POST /api/v1/speech/tts,
transcribed by whisper-base, gives back the text (word error rate at most 10%)."""

from __future__ import annotations

import io

import numpy as np
import pytest
import soundfile
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.media.audio import Audio
from soundstage.voices.service import CatalogCounts
from tests.support.audio_fixtures import word_error_rate
from tests.support.factories import Customer, create_customer

pytestmark = [
    pytest.mark.services,
    pytest.mark.slow,
    pytest.mark.measures,
    pytest.mark.usefixtures("worker", "demo_catalog"),
]

# 35 everyday words, no numbers or names (whose spelling a recognizer may choose). Measured
# with the engines directly: 0% to 2.9% per voice.
TEXT = (
    "The weather was cold and clear when we left the house. We walked along the river to the "
    "old bridge, where a small boat was waiting to take us across the water to the village."
)
MAX_WER = 0.10


@pytest.fixture
def rich(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=20_000)


def english_voices(client: TestClient, customer: Customer) -> list[str]:
    response = client.get("/api/v1/voices?language=en&limit=100", headers=customer.auth())
    assert response.status_code == 200, response.text
    body = response.json()
    assert not body["has_more"]
    return [voice["voice_id"] for voice in body["data"] if voice["language"].startswith("en")]


def spoken_audio(client: TestClient, settings: Settings, customer: Customer, voice: str) -> Audio:
    response = client.post(
        "/api/v1/speech/tts",
        headers=customer.auth(),
        json={"voice_id": voice, "text": TEXT, "format": "wav"},
    )
    assert response.status_code == 200, response.text
    url = response.json()["output_url"]
    download = client.get(url.removeprefix(settings.public_base_url))
    assert download.status_code == 200
    samples, rate = soundfile.read(io.BytesIO(download.content), dtype="float32", always_2d=True)
    return Audio(np.ascontiguousarray(samples), rate)


def test_every_english_voice_is_understood(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    voices = english_voices(client, rich)
    # The demo catalog's English core: Piper, Festival and flite voices.
    assert {"voice_joe", "voice_sally", "voice_kal", "voice_alan"} <= set(voices)
    transcriber = get_transcriber(settings=settings)
    heard = {}
    for voice in voices:
        audio = spoken_audio(client, settings, rich, voice)
        transcript = transcriber.transcribe(audio, language="en", word_timestamps=False)
        heard[voice] = (word_error_rate(TEXT, transcript.text), transcript.text)
    failed = {voice: result for voice, result in heard.items() if result[0] > MAX_WER}
    assert not failed, failed
