"""POST /api/v1/speech/alignment end to end: a LibriVox clip and the text it reads, placed word
by word and character by character (against the clip's offline forced alignment), a text the
audio does not say, credits, a retry under the same Idempotency-Key, the bounds and the
asynchronous submission."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.media.audio import Audio
from tests.support.api import assert_error
from tests.support.audio import audio_bytes, wav_bytes
from tests.support.audio_fixtures import Clip, librivox_clips
from tests.support.factories import Customer, create_customer
from tests.support.realtime_audio import first_piece, timing_offsets
from tests.support.servers import FileServer

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "local_media")]

ALIGN = "/api/v1/speech/alignment"


@pytest.fixture(scope="module")
def clip() -> Clip:
    return librivox_clips()[0]


@pytest.fixture
def rich(db: Database) -> Customer:
    return create_customer(db, credits_each=20_000)


def align(client: TestClient, customer: Customer, **body: Any) -> dict[str, Any]:
    response = client.post(ALIGN, headers=customer.auth(), json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def balance_of(client: TestClient, customer: Customer) -> int:
    answer = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert answer["reserved"] == 0
    return int(answer["balance"])


@pytest.mark.measures
@pytest.mark.parametrize("index", [0, 1, 2])
def test_a_reading_is_placed_on_its_recording(
    client: TestClient, files: FileServer, rich: Customer, index: int
) -> None:
    clip = librivox_clips()[index]
    url = files.put(clip.path.name, clip.path.read_bytes())
    body = align(client, rich, audio_url=url, text=clip.text)
    words = body["words"]
    # Every word of the text as written, in order, on the reference's times: word starts
    # within 100 ms of the clip's offline forced alignment.
    assert [word["word"] for word in words] == clip.text.split()
    # Starts only: a hyphenated word's first piece ("ill" of "ill-disposed") is compared.
    starts = [(first_piece(w["word"]), w["start_ms"], w["start_ms"]) for w in words]
    reference = [(word.word, word.start_ms, word.start_ms) for word in clip.words]
    offsets = timing_offsets(starts, reference)
    assert len(offsets) >= 1.6 * len(clip.words)
    assert max(offsets) <= 100, offsets
    assert all(word["confidence"] > 0.3 for word in words), words
    assert body["loss"] < 0.3
    # Every character, in order, never going back in time.
    characters = body["characters"]
    assert "".join(c["character"] for c in characters) == clip.text
    character_starts = [c["start_ms"] for c in characters]
    assert character_starts == sorted(character_starts)
    assert characters[-1]["end_ms"] <= body["duration_ms"]
    # Charged as speech to text, per started second.
    seconds = math.ceil(body["duration_ms"] / 1000)
    assert body["credits_used"] == math.ceil(seconds * 250 / 60)
    assert balance_of(client, rich) == 20_000 - body["credits_used"]
    assert body["language"] == "en"


@pytest.mark.measures
def test_a_text_the_audio_does_not_say_is_answered_with_a_high_loss(
    client: TestClient, files: FileServer, rich: Customer, clip: Clip
) -> None:
    url = files.put(clip.path.name, clip.path.read_bytes())
    other = "Quantum chromodynamics describes quarks bound by gluons inside every proton."
    body = align(client, rich, audio_url=url, text=other)
    assert [word["word"] for word in body["words"]] == other.split()
    assert body["loss"] > 0.7, body
    assert all(
        0 <= word["start_ms"] <= word["end_ms"] <= body["duration_ms"] for word in body["words"]
    )


def test_silence_places_every_word_with_no_confidence(
    client: TestClient, files: FileServer, rich: Customer
) -> None:
    url = files.put("silence.wav", wav_bytes(2.0))
    body = align(client, rich, audio_url=url, text="Nothing is said here.")
    assert [word["word"] for word in body["words"]] == ["Nothing", "is", "said", "here."]
    assert body["loss"] == 1.0
    assert body["credits_used"] == math.ceil(2 * 250 / 60)


def test_a_retried_alignment_is_made_and_charged_once(
    client: TestClient, files: FileServer, rich: Customer
) -> None:
    url = files.put("retried.wav", wav_bytes(2.0))
    headers = {**rich.auth(), "Idempotency-Key": "alignment-1"}
    body = {"audio_url": url, "text": "Said once."}
    first = client.post(ALIGN, headers=headers, json=body)
    again = client.post(ALIGN, headers=headers, json=body)
    assert first.status_code == again.status_code == 200, first.text
    # The first answer again: one job, charged once.
    assert again.json() == first.json()
    assert again.json()["job_id"] == first.json()["job_id"]
    assert balance_of(client, rich) == 20_000 - math.ceil(2 * 250 / 60)
    other = client.post(ALIGN, headers=headers, json={**body, "text": "Said twice."})
    assert_error(other, 422, "idempotency_key_reused")
    assert balance_of(client, rich) == 20_000 - math.ceil(2 * 250 / 60)


@pytest.mark.parametrize(
    ("body", "code", "param"),
    [
        ({"text": ""}, "parameter_invalid", "text"),
        ({"text": "   "}, "parameter_invalid", "text"),
        ({"text": "word " * 20_001}, "parameter_invalid", "text"),
        ({"text": "Hello.", "language": "xx-Nope"}, "unsupported_language", "language"),
    ],
)
def test_bad_requests_name_their_field(
    client: TestClient,
    files: FileServer,
    rich: Customer,
    body: dict[str, Any],
    code: str,
    param: str,
) -> None:
    url = files.put("short.wav", wav_bytes(0.5))
    response = client.post(ALIGN, headers=rich.auth(), json={"audio_url": url, **body})
    assert assert_error(response, 422, code)["param"] == param
    assert balance_of(client, rich) == 20_000


def test_the_longest_text_is_taken(client: TestClient, files: FileServer, rich: Customer) -> None:
    url = files.put("short.wav", wav_bytes(0.5))
    text = ("word " * 20_000).rstrip()
    assert len(text) == 99_999
    body = align(client, rich, audio_url=url, text=text)
    assert len(body["words"]) == 20_000


def silence_of(seconds: int) -> Audio:
    return Audio(np.zeros((seconds * 8_000, 1), dtype=np.float32), 8_000)


def test_audio_over_an_hour_is_refused_before_any_work(
    client: TestClient, files: FileServer, db: Database
) -> None:
    customer = create_customer(db, credits_each=1_000_000)
    # An hour and a second of 8 kHz silence, stored compactly as FLAC.
    long = files.put("long.flac", audio_bytes(silence_of(3_601), "flac"))
    response = client.post(
        ALIGN,
        headers={**customer.auth(), "Prefer": "respond-async"},
        json={"audio_url": long, "text": "Hello."},
    )
    assert assert_error(response, 422, "media_too_long")["param"] == "audio_url"
    inside = files.put("hour.flac", audio_bytes(silence_of(3_599), "flac"))
    accepted = client.post(
        ALIGN,
        headers={**customer.auth(), "Prefer": "respond-async"},
        json={"audio_url": inside, "text": "Hello."},
    )
    assert accepted.status_code == 200, accepted.text
    job = accepted.json()
    assert job["status"] == "processing"
    assert job["credits_reserved"] == math.ceil(3_599 * 250 / 60)
    cancel = client.post(f"/api/v1/jobs/{job['job_id']}/cancel", headers=customer.auth())
    assert cancel.status_code == 200, cancel.text
