"""POST /api/v1/speech/tts end to end: real engines in a real worker, real files decoded."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
import soundfile
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

TTS = "/api/v1/speech/tts"
SENTENCE = "The quick brown fox jumps over the lazy dog near the quiet river bank."


def speak(client: TestClient, customer: Customer, **body: Any) -> Any:
    return client.post(TTS, headers=customer.auth(), json={"voice_id": "voice_kal", **body})


def fetch_audio(client: TestClient, settings: Settings, url: str) -> tuple[np.ndarray, int, bytes]:
    assert url.startswith(settings.media_base_url)
    response = client.get(url.removeprefix(settings.public_base_url))
    assert response.status_code == 200
    samples, rate = soundfile.read(io.BytesIO(response.content), dtype="float32")
    return samples, rate, response.content


@pytest.fixture
def rich(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=20_000)


@pytest.mark.parametrize("fmt", ["mp3", "wav", "flac"])
def test_each_format_decodes_to_the_stated_duration(
    client: TestClient, settings: Settings, rich: Customer, fmt: str
) -> None:
    response = speak(client, rich, text=SENTENCE, format=fmt)
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["status"] == "completed"
    assert body["job_id"].startswith("job_")
    assert (body["characters_processed"], body["credits_used"]) == (len(SENTENCE), len(SENTENCE))
    samples, rate, data = fetch_audio(client, settings, body["output_url"])
    assert abs(len(samples) * 1000 / rate - body["duration_ms"]) <= 30
    assert 2000 < body["duration_ms"] < 10000
    assert float(np.sqrt(np.mean(np.square(samples)))) > 0.01  # speech, not silence
    magic = {"mp3": (b"ID3", b"\xff\xfb", b"\xff\xf3"), "wav": (b"RIFF",), "flac": (b"fLaC",)}
    assert data.startswith(magic[fmt])


def test_credits_are_charged_once_and_only_on_success(
    client: TestClient, db: Database, demo_catalog: CatalogCounts
) -> None:
    customer = create_customer(db, credits_each=100)
    assert speak(client, customer, text="Hello there.").status_code == 200
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (100 - 12, 0)
    ledger = client.get("/api/v1/credits/ledger?limit=100", headers=customer.auth()).json()
    assert [t["type"] for t in ledger["data"]] == ["capture", "reserve", "grant"]

    assert_error(speak(client, customer, text="x" * 89), 402, "insufficient_credits")
    assert_error(
        speak(client, customer, text="Hi.", voice_id="voice_nobody"), 404, "voice_not_found"
    )
    assert_error(speak(client, customer, text="Hi.", speed=3), 422, "parameter_invalid")
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (88, 0)


@pytest.mark.parametrize(
    ("field", "inside", "outside"),
    [("speed", 0.5, 0.49), ("speed", 2.0, 2.01), ("pitch", -12, -13), ("pitch", 12, 13)],
)
def test_bounds(
    client: TestClient, rich: Customer, field: str, inside: float, outside: float
) -> None:
    assert speak(client, rich, text="Yes.", **{field: inside}).status_code == 200
    error = assert_error(
        speak(client, rich, text="Yes.", **{field: outside}), 422, "parameter_invalid"
    )
    assert error["param"] == field


def test_text_length_bounds(client: TestClient, db: Database, demo_catalog: CatalogCounts) -> None:
    customer = create_customer(db, credits_each=6000)
    longest = ("Una frase corta en castellano. " * 200)[:5000]
    response = client.post(
        TTS,
        headers=customer.auth(),
        json={"voice_id": "voice_es_lucia", "text": longest, "format": "wav"},
    )
    assert response.status_code == 200, response.text
    assert response.json()["credits_used"] == 5000
    error = assert_error(speak(client, customer, text="x" * 5001), 422, "parameter_invalid")
    assert error["param"] == "text"
    assert (
        assert_error(speak(client, customer, text=""), 422, "parameter_invalid")["param"] == "text"
    )
    assert (
        assert_error(speak(client, customer, text="   "), 422, "parameter_invalid")["param"]
        == "text"
    )


def duration_of(client: TestClient, customer: Customer, **body: Any) -> int:
    response = speak(client, customer, text=SENTENCE + " " + SENTENCE, format="wav", **body)
    assert response.status_code == 200, response.text
    return int(response.json()["duration_ms"])


@pytest.mark.measures
@pytest.mark.parametrize("voice_id", ["voice_joe", "voice_kal", "voice_richard", "voice_es_lucia"])
def test_double_speed_is_half_as_long(client: TestClient, rich: Customer, voice_id: str) -> None:
    normal = duration_of(client, rich, voice_id=voice_id)
    fast = duration_of(client, rich, voice_id=voice_id, speed=2.0)
    assert abs(fast / normal - 0.5) <= 0.5 * 0.15, (normal, fast)


def median_f0(samples: np.ndarray, rate: int) -> float:
    """Median fundamental frequency of the voiced frames (normalized autocorrelation)."""
    frame, hop = int(0.04 * rate), int(0.01 * rate)
    low, high = int(rate / 500), int(rate / 60)
    estimates = []
    for start in range(0, len(samples) - frame, hop):
        x = samples[start : start + frame] - np.mean(samples[start : start + frame])
        energy = float(np.dot(x, x))
        if energy < 1e-3:
            continue
        corr = np.correlate(x, x, "full")[frame - 1 :] / energy
        lag = low + int(np.argmax(corr[low:high]))
        if corr[lag] > 0.6:
            estimates.append(rate / lag)
    return float(np.median(estimates))


def test_pitch_twelve_doubles_the_fundamental(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    def f0(pitch: int) -> float:
        body = speak(client, rich, text=SENTENCE, format="wav", pitch=pitch).json()
        samples, rate, _ = fetch_audio(client, settings, body["output_url"])
        return median_f0(samples, rate)

    assert abs(f0(12) / f0(0) - 2.0) <= 0.2
