"""The tools that run models, over /mcp with the `mcp` package's client against a real
`soundstage serve` and worker, on short real inputs: a LibriVox clip transcribed, speech
isolated from noise, a sound effect and a piece of music made; each charged at the rate of
its HTTP endpoint."""

from __future__ import annotations

import pytest

from soundstage.core.db import Database
from soundstage.credits.rates import Operation, for_duration
from tests.support.audio import audio_bytes
from tests.support.audio_fixtures import librivox_clips, word_error_rate
from tests.support.factories import create_customer
from tests.support.mcp import answer, call_tools, download_audio
from tests.support.mixtures import mix, pink_noise, speech
from tests.support.servers import FileServer

# Not `services`: what the models make is the same on any store; the tools' calls through
# PostgreSQL, Redis and S3 are test_http.py's and test_stdio.py's.
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("worker")]

RATE = 16_000


def test_speech_to_text_transcribes_a_librivox_clip_with_its_words(
    server: str, db: Database, files: FileServer
) -> None:
    clip = librivox_clips()[0]
    url = files.put(clip.path.name, clip.path.read_bytes())
    customer = create_customer(db, credits_each=1000)
    (result,) = call_tools(
        server,
        customer.sandbox_key,
        ("speech_to_text", {"audio_url": url, "timestamps": True}),
    )
    body = answer(result)
    assert word_error_rate(clip.text, body["transcript"]) <= 0.1, body["transcript"]
    words = body["words"]
    assert word_error_rate(clip.text, " ".join(word["word"] for word in words)) <= 0.1
    assert all(0 <= w["start_ms"] <= w["end_ms"] <= body["duration_ms"] for w in words)
    assert abs(body["duration_ms"] - clip.audio().duration_ms) <= 50
    assert body["credits_used"] == for_duration(Operation.STT, body["duration_ms"])


def test_isolate_voice_answers_stems_of_the_inputs_length(
    server: str, db: Database, files: FileServer
) -> None:
    made = mix(speech(3, RATE), pink_noise(3 * RATE), RATE, snr_db=6)
    url = files.put("noisy.wav", audio_bytes(made.mixture))
    customer = create_customer(db, credits_each=1000)
    (result,) = call_tools(
        server,
        customer.sandbox_key,
        ("isolate_voice", {"audio_url": url, "return_background": True}),
    )
    body = answer(result)
    assert body["duration_ms"] == 3000
    for stem in (download_audio(body["vocals_url"]), download_audio(body["background_url"])):
        assert (stem.sample_rate, stem.frames) == (RATE, 3 * RATE)
    assert body["credits_used"] == for_duration(Operation.ISOLATION, 3000)


def test_generate_sound_effect_and_music_make_audio_of_the_length_asked(
    server: str, db: Database
) -> None:
    customer = create_customer(db, credits_each=1000)
    sound, music = call_tools(
        server,
        customer.sandbox_key,
        ("generate_sound_effect", {"prompt": "a dog barking", "duration_seconds": 2, "seed": 7}),
        (
            "generate_music",
            {"prompt": "calm lo-fi piano, 80 bpm", "duration_seconds": 10, "seed": 3},
        ),
    )
    effect = answer(sound)
    assert (effect["duration_ms"], effect["seed"], effect["credits_used"]) == (2000, 7, 150)
    assert effect["recipes"][0]["name"] == "dog"
    assert abs(download_audio(effect["output_url"]).duration_ms - 2000) <= 30
    piece = answer(music)
    assert (piece["duration_ms"], piece["bpm"]) == (10_000, 80)
    assert piece["credits_used"] == for_duration(Operation.MUSIC, 10_000)
    assert piece["license"]["type"] == "commercial"
    assert abs(download_audio(piece["output_url"]).duration_ms - 10_000) <= 60
