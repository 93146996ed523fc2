"""ElevenLabs' music composition through the official SDK against a live server: the native
music job's piece, as long as asked, in the `output_format` asked (codec, rate and bit rate),
charged as the native API charges it; and its bounds."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from elevenlabs import ElevenLabs
from elevenlabs.core.api_error import ApiError
from elevenlabs.errors import UnprocessableEntityError

from soundstage.core.db import Database
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from tests.support.elevenlabs import ONCE, decode_output, sdk
from tests.support.factories import create_customer

PROMPT = "a calm lo-fi hip hop beat with rhodes piano, 80 bpm, in D minor"


def balance(client: ElevenLabs) -> int:
    return int(client.user.subscription.get(request_options=ONCE).character_limit)


def compose(client: ElevenLabs, **fields: Any) -> bytes:
    return b"".join(client.music.compose(request_options=ONCE, **fields))


def test_ten_seconds_of_music_in_the_format_asked(live_url: str, db: Database) -> None:
    client = sdk(live_url, create_customer(db, credits_each=1_000).sandbox_key)
    # `auto` (the default) is MP3 at 44.1 kHz and 128 kb/s.
    data = compose(client, prompt=PROMPT, music_length_ms=10_000, model_id="music_v1", seed=7)
    piece = decode_output(data, "mp3_44100_128")
    assert (piece.sample_rate, piece.bit_rate) == (44_100, 128_000)
    # Ten seconds (an MP3 decoder may add up to ~50 ms of encoder delay and padding).
    assert piece.seconds == pytest.approx(10, abs=0.1), piece
    price = rates.for_duration(Operation.MUSIC, 10_000)
    assert price == 125  # 750 credits a minute, per started second
    assert balance(client) == 1_000 - price

    # Raw PCM at the rate named, a length rounded to the nearest whole second.
    raw = compose(
        client,
        prompt=PROMPT,
        music_length_ms=10_400,
        output_format="pcm_16000",
        force_instrumental=True,
    )
    # Stereo, as the piece is made (as sound generation's): 16-bit samples, two a frame,
    # ten seconds exactly.
    samples = np.frombuffer(raw, dtype="<i2").reshape(-1, 2)
    assert samples.shape == (160_000, 2)
    assert np.abs(samples).max() > 1_000  # music, not silence
    assert balance(client) == 1_000 - 2 * price


def test_bounds_and_refusals(live_url: str, db: Database) -> None:
    client = sdk(live_url, create_customer(db, credits_each=100).sandbox_key)

    def refused(**fields: Any) -> dict[str, Any]:
        with pytest.raises(UnprocessableEntityError) as error:
            compose(client, **fields)
        detail: dict[str, Any] = error.value.body["detail"]
        return detail

    # 10 s to 5 min, the native generator's bounds.
    for length in (9_999, 300_001):
        short = refused(prompt=PROMPT, music_length_ms=length)
        assert short["status"] == "parameter_invalid"
        assert short["message"].startswith("music_length_ms")
    assert refused(music_length_ms=10_000)["status"] == "parameter_missing"
    plan: Any = {"positive_global_styles": ["jazz"], "negative_global_styles": [], "sections": []}
    assert refused(composition_plan=plan)["message"].startswith("composition_plan")
    assert refused(prompt="x" * 501)["message"].startswith("prompt")
    assert refused(prompt=PROMPT, output_format="wav_44100")["message"].startswith("output_format")
    # 10 s are 125 credits: 100 do not buy them, and nothing is charged.
    with pytest.raises(ApiError) as poor:
        compose(client, prompt=PROMPT, music_length_ms=10_000)
    assert poor.value.status_code == 402
    assert poor.value.body["detail"]["status"] == "insufficient_credits"
    assert balance(client) == 100
