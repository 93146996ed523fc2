"""ElevenLabs' forced alignment through the official SDK against a live server: a LibriVox
clip and its text (word starts on the clip's offline forced alignment), a text the audio does
not say, the credits and the bounds."""

from __future__ import annotations

import math

import httpx
import pytest
from elevenlabs.core.api_error import ApiError
from elevenlabs.errors import UnprocessableEntityError

from soundstage.core.db import Database
from tests.support.audio_fixtures import librivox_clips
from tests.support.elevenlabs import ONCE, sdk
from tests.support.factories import create_customer
from tests.support.realtime_audio import first_piece, timing_offsets


def balance(live_url: str, headers: dict[str, str]) -> int:
    answer = httpx.get(f"{live_url}/api/v1/credits", headers=headers, timeout=30).json()
    assert answer["reserved"] == 0
    return int(answer["balance"])


@pytest.mark.measures
def test_a_reading_is_aligned_to_its_text(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=10_000)
    client = sdk(live_url, customer.sandbox_key)
    clip = librivox_clips()[1]
    answer = client.forced_alignment.create(
        file=(clip.path.name, clip.path.read_bytes(), "audio/flac"),
        text=clip.text,
        request_options=ONCE,
    )
    assert [word.text for word in answer.words] == clip.text.split()
    # Starts only: a hyphenated word's first piece ("ill" of "ill-disposed") is compared.
    starts = [
        (first_piece(w.text), round(w.start * 1000), round(w.start * 1000)) for w in answer.words
    ]
    reference = [(w.word, w.start_ms, w.start_ms) for w in clip.words]
    offsets = timing_offsets(starts, reference)
    assert len(offsets) >= 1.6 * len(clip.words)
    assert max(offsets) <= 100, offsets
    assert "".join(c.text for c in answer.characters) == clip.text
    assert answer.loss < 0.3
    assert all(0 <= w.loss <= 1 for w in answer.words)
    seconds = math.ceil(clip.audio().duration_ms / 1000)
    assert balance(live_url, customer.auth()) == 10_000 - math.ceil(seconds * 250 / 60)


@pytest.mark.measures
def test_a_text_not_said_has_a_high_loss(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=10_000)
    client = sdk(live_url, customer.sandbox_key)
    clip = librivox_clips()[1]
    answer = client.forced_alignment.create(
        file=(clip.path.name, clip.path.read_bytes(), "audio/flac"),
        text="Forty purple giraffes sold their umbrellas to a submarine.",
        request_options=ONCE,
    )
    assert answer.loss > 0.7
    assert len(answer.words) == 9


def test_bounds_and_errors(live_url: str, db: Database) -> None:
    customer = create_customer(db, credits_each=10_000)
    client = sdk(live_url, customer.sandbox_key)
    clip = librivox_clips()[1]
    upload = (clip.path.name, clip.path.read_bytes(), "audio/flac")
    with pytest.raises(UnprocessableEntityError):
        client.forced_alignment.create(file=upload, text="a" * 100_001, request_options=ONCE)
    with pytest.raises(ApiError) as caught:
        client.forced_alignment.create(
            file=("notes.txt", b"not audio at all", "text/plain"),
            text="Hello.",
            request_options=ONCE,
        )
    assert caught.value.status_code in (400, 415, 422), caught.value.body
    assert balance(live_url, customer.auth()) == 10_000
