"""POST /api/v1/creative/music with `instrumental: false`: a catalog voice sings lyrics made from
the prompt on the melody. The vocal stem's pitch (Praat) follows the sung line of the MIDI file,
and whisper-base understands the words from the stem alone."""

from __future__ import annotations

import re
from collections import Counter

import numpy as np
import parselmouth
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.media.audio import Audio
from tests.support import music_analysis as analysis
from tests.support.factories import Customer
from tests.support.music import compose, fetch, fetch_audio, fetch_midi, midi_notes

pytestmark = [
    pytest.mark.services,
    pytest.mark.slow,
    pytest.mark.measures,
    pytest.mark.usefixtures("worker", "demo_catalog"),
]

MIN_PITCH_AGREEMENT = 0.70
MIN_WORDS_RECOVERED = 0.50


def pitch_agreement(vocals: Audio, notes: list[tuple[float, float, int]]) -> float:
    """Of the stem's voiced frames (Praat, 10 ms), the share within a semitone of the note of
    the sung line that sounds then (or sounded last)."""
    sound = parselmouth.Sound(vocals.samples[:, 0].astype(np.float64), vocals.sample_rate)
    pitch = sound.to_pitch(time_step=0.01, pitch_floor=60, pitch_ceiling=700)
    hertz = pitch.selected_array["frequency"]
    starts = np.array([start for start, _, _ in notes])
    agreeing = voiced = 0
    for time, frequency in zip(pitch.xs(), hertz, strict=True):
        if frequency <= 0:
            continue
        voiced += 1
        index = int(np.searchsorted(starts, time, side="right")) - 1
        if index < 0:
            continue
        semitones = 69 + 12 * np.log2(frequency / 440.0)
        if abs(semitones - notes[index][2]) <= 1.0:
            agreeing += 1
    assert voiced > 100, "the vocal stem has almost no voiced frames"
    return agreeing / voiced


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


def recall(expected: list[str], heard: list[str]) -> float:
    """The share of the expected words (with repeats) found among the heard ones."""
    available = Counter(heard)
    found = 0
    for word in expected:
        if available[word] > 0:
            available[word] -= 1
            found += 1
    return found / len(expected)


@pytest.mark.parametrize(
    ("prompt", "voice"),
    [
        ("an upbeat pop song about summer love at the beach", None),
        ("a sad folk song about the rain and the long road home", "voice_sally"),
    ],
)
def test_the_vocal_line_is_sung_on_the_melody(
    client: TestClient, settings: Settings, rich: Customer, prompt: str, voice: str | None
) -> None:
    request = {"prompt": prompt, "duration_seconds": 30, "instrumental": False, "seed": 5}
    if voice:
        request["voice_id"] = voice
    body = compose(client, rich, format="wav", **request)
    assert body["credits_used"] == 375
    assert "vocals" in {part["part"] for part in body["instruments"]}
    lines = [line for section in body["sections"] for line in section["lines"]]
    assert lines
    assert all(not s["lines"] for s in body["sections"] if s["name"] in ("intro", "outro"))
    theme = "summer" if "summer" in prompt else "rain"
    assert any(theme in line for line in lines)

    mix = fetch_audio(client, settings, body["output_url"])
    assert abs(analysis.loudness(mix) + 14) <= 1
    vocals = fetch_audio(client, settings, body["vocals_url"])
    assert vocals.frames == mix.frames
    sung = midi_notes(fetch_midi(client, settings, body["midi_url"]), "Vocals")
    assert len(sung) >= sum(len(line.split()) for line in lines)

    agreement = pitch_agreement(vocals, sung)
    assert agreement >= MIN_PITCH_AGREEMENT, agreement

    transcriber = get_transcriber(settings=settings)
    heard = transcriber.transcribe(vocals, language="en", word_timestamps=False).text
    expected = [word for line in lines for word in words(line)]
    recovered = recall(expected, words(heard))
    assert recovered >= MIN_WORDS_RECOVERED, (recovered, heard, lines)


def test_same_seed_same_song_with_vocals(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    request = {
        "prompt": "a happy pop song about the sea",
        "duration_seconds": 10,
        "format": "wav",
        "instrumental": False,
        "seed": 11,
    }
    first, second = compose(client, rich, **request), compose(client, rich, **request)
    assert any(section["lines"] for section in first["sections"])
    for url in ("output_url", "vocals_url"):
        assert fetch(client, settings, first[url]) == fetch(client, settings, second[url]), url
