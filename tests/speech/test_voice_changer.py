"""POST /api/v1/speech/voice-changer end to end: human speech re-voiced by the real worker,
the output transcribed and its speaker embedded; background kept or removed."""

from __future__ import annotations

import math
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.engines.speakers.embeddings import embed, similarity
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import Audio, decode
from soundstage.voices.service import CatalogCounts
from tests.support import mixtures
from tests.support.api import assert_error
from tests.support.audio import audio_bytes
from tests.support.audio_fixtures import librivox_clips, word_error_rate
from tests.support.factories import Customer, create_customer
from tests.support.servers import FileServer

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

CHANGER = "/api/v1/speech/voice-changer"


@pytest.fixture
def rich(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=20_000)


def change(client: TestClient, customer: Customer, **body: Any) -> dict[str, Any]:
    response = client.post(CHANGER, headers=customer.auth(), json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def download(client: TestClient, settings: Settings, url: str) -> Audio:
    response = client.get(url.removeprefix(settings.public_base_url))
    assert response.status_code == 200
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "output"
        path.write_bytes(response.content)
        return decode(path, sample_rate=16_000, channels=1)


@pytest.mark.measures
def test_speech_is_revoiced_with_the_same_words_and_length(
    client: TestClient, settings: Settings, files: FileServer, rich: Customer
) -> None:
    clip = librivox_clips()[0]
    source = clip.audio()
    body = change(
        client,
        rich,
        audio_url=files.put(clip.path.name, clip.path.read_bytes()),
        # flite rms: Piper's decoder is random, and garbles words now and then.
        voice_id="voice_richard",
        format="wav",
    )
    assert body["status"] == "completed"
    assert abs(body["duration_ms"] - source.duration_ms) <= 1
    assert body["credits_used"] == math.ceil(math.ceil(source.duration_ms / 1000) * 1000 / 60)
    # The reader's 22 words, at most 3 misheard (measured: none).
    assert word_error_rate(clip.text, body["transcript"]) <= 0.15
    output = download(client, settings, body["output_url"])
    assert abs(output.frames - source.frames) <= 16
    heard = get_transcriber().transcribe(output, language="en", word_timestamps=False)
    # Richard's reading of them heard again: at most 5 misheard (a listener's margin; silence
    # or garbled audio misses most).
    assert word_error_rate(clip.text, heard.text) <= 0.25, heard.text
    # Richard's voice now, not the reader's.
    richard = get_engine("flite").synthesize(
        "A quite different sentence, read to know how this voice sounds.", "rms"
    )
    assert similarity(embed(output), embed(richard)) > similarity(embed(output), embed(source))


@pytest.mark.measures
def test_background_is_kept_unless_removed(
    client: TestClient, settings: Settings, files: FileServer, rich: Customer
) -> None:
    clip = librivox_clips()[1]  # 3 s of speech, then 3 s of music alone
    speech = clip.audio().samples[:, 0]
    music = mixtures.music(6, 16_000).samples.mean(axis=1)
    voice = np.concatenate([speech, np.zeros(6 * 16_000 - speech.shape[0], dtype=np.float32)])
    music *= mixtures.rms(speech) / mixtures.rms(music) / 3  # about 10 dB under the voice
    mixture = Audio((voice + music).astype(np.float32).reshape(-1, 1), 16_000)
    url = files.put("speech-over-music.wav", audio_bytes(mixture))
    tail = slice(4 * 16_000, 6 * 16_000)
    music_level = mixtures.rms(music[tail])

    kept = download(
        client, settings, change(client, rich, audio_url=url, voice_id="voice_sally")["output_url"]
    )
    assert abs(mixtures.db(mixtures.rms(kept.samples[tail]) / music_level)) <= 3
    removed = change(
        client, rich, audio_url=url, voice_id="voice_sally", remove_background_noise=True
    )
    quiet = download(client, settings, removed["output_url"])
    # Digital silence there, or close to it.
    assert mixtures.db(max(mixtures.rms(quiet.samples[tail]), 1e-9) / music_level) <= -20


def test_errors_before_and_during_the_job(
    client: TestClient, files: FileServer, db: Database, demo_catalog: CatalogCounts
) -> None:
    customer = create_customer(db, credits_each=50)
    clip = librivox_clips()[0]
    url = files.put(clip.path.name, clip.path.read_bytes())
    for body, status, code, param in [
        ({"voice_id": "voice_nobody"}, 404, "voice_not_found", "voice_id"),
        ({"voice_id": "voice_joe", "language": "xx"}, 422, "unsupported_language", "language"),
        ({"voice_id": "voice_joe", "format": "ogg"}, 422, "parameter_invalid", "format"),
        ({"voice_id": "voice_joe"}, 402, "insufficient_credits", None),  # 8 s cost 134
    ]:
        response = client.post(CHANGER, headers=customer.auth(), json={"audio_url": url, **body})
        assert assert_error(response, status, code)["param"] == param
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (50, 0)
