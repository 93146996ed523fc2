"""POST /api/v1/creative/music end to end: real composition, FluidSynth, mastering and encoding
in the real worker; the audio decoded and measured by independent tools (librosa's tempo, a
Krumhansl key finder, pyloudnorm); the MIDI read back with mido."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.media.audio import Audio
from tests.support import music_analysis as analysis
from tests.support.api import Answer, assert_error
from tests.support.factories import Customer, create_customer
from tests.support.music import (
    ELEVEN_MELODIC,
    MUSIC,
    compose,
    fetch,
    fetch_audio,
    fetch_midi,
    midi_notes,
    programs,
)

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker")]

RATE = 750  # credits per minute of output


def balance(client: TestClient, customer: Customer) -> tuple[int, int]:
    body = client.get("/api/v1/credits", headers=customer.auth()).json()
    return body["balance"], body["reserved"]


def assert_mastered(audio: Audio, seconds: int) -> None:
    """Exact length, -14 +/- 1 LUFS, no clipping."""
    assert abs(audio.frames / audio.sample_rate - seconds) <= 0.05
    assert abs(analysis.loudness(audio) - (-14.0)) <= 1.0, analysis.loudness(audio)
    assert float(np.max(np.abs(audio.samples))) < 0.999


@pytest.mark.measures
def test_duration_cadence_fade_loudness_and_price(
    client: TestClient, settings: Settings, db: Database
) -> None:
    customer = create_customer(db, credits_each=1000)
    for seconds, fmt in ((10, "wav"), (30, "mp3")):
        body = compose(
            client, customer, prompt="a happy pop song", duration_seconds=seconds, format=fmt
        )
        assert body["status"] == "completed"
        assert abs(body["duration_ms"] - seconds * 1000) <= 50
        assert body["credits_used"] == math.ceil(seconds * RATE / 60)
        assert body["output_url"].split("?")[0].endswith(f".{fmt}")
        assert "vocals_url" not in body
        audio = fetch_audio(client, settings, body["output_url"])
        assert_mastered(audio, seconds)
        # The plan covers the piece and ends at its end, with an outro.
        sections = body["sections"]
        assert (sections[0]["start_ms"], sections[-1]["end_ms"]) == (0, seconds * 1000)
        assert sections[-1]["name"] == "outro"
        assert all(a["end_ms"] == b["start_ms"] for a, b in itertools.pairwise(sections))
        # A cadence: the bass ends on the tonic, held to the end (not cut by the end).
        midi = fetch_midi(client, settings, body["midi_url"])
        last_bass = midi_notes(midi, "Bass")[-1]
        tonic = analysis.NOTE_NAMES.index(body["key"].split()[0])
        assert last_bass[2] % 12 == tonic
        assert seconds - last_bass[0] >= 1.5
        assert seconds - last_bass[1] < 0.1
        # A short fade: the last 100 ms are near silence, the second before them is not.
        mono = analysis.mono(audio)
        rate = audio.sample_rate
        tail = float(np.sqrt(np.mean(mono[-rate // 10 :] ** 2)))
        whole = float(np.sqrt(np.mean(mono**2)))
        assert tail < whole * 0.1
        before_fade = mono[-4 * rate : -3 * rate]
        assert float(np.sqrt(np.mean(before_fade**2))) > whole * 0.2
    assert balance(client, customer) == (1000 - 125 - 375, 0)


@pytest.mark.measures
@pytest.mark.slow
def test_five_minutes_are_exact(client: TestClient, settings: Settings, rich: Customer) -> None:
    body = compose(client, rich, prompt="chill lo-fi beats", duration_seconds=300, format="flac")
    assert abs(body["duration_ms"] - 300_000) <= 50
    assert body["credits_used"] == 3750
    audio = fetch_audio(client, settings, body["output_url"])
    assert abs(audio.frames / audio.sample_rate - 300) <= 0.05
    names = [section["name"] for section in body["sections"]]
    assert (names[0], names[-1]) == ("intro", "outro")
    assert {"verse", "chorus", "bridge"} <= set(names)


@pytest.mark.measures
@pytest.mark.parametrize(
    ("prompt", "genre", "bpm", "key"),
    [
        ("an upbeat pop song in D minor at 104 bpm", "pop", 104, "D minor"),
        ("a driving rock anthem in E major, 132 bpm", "rock", 132, "E major"),
        ("deep house in A minor", "electronic", None, "A minor"),
        ("a country song in the key of G major at 110 bpm", "country", 110, "G major"),
        ("gentle folk in C major", "folk", None, "C major"),
    ],
)
def test_tempo_and_key_are_heard(
    client: TestClient,
    settings: Settings,
    rich: Customer,
    prompt: str,
    genre: str,
    bpm: int | None,
    key: str,
) -> None:
    body = compose(client, rich, prompt=prompt, duration_seconds=30, format="wav", seed=7)
    assert body["genre"] == genre
    assert body["key"] == key
    if bpm is not None:
        assert body["bpm"] == bpm
    audio = fetch_audio(client, settings, body["output_url"])
    assert_mastered(audio, 30)
    heard_tempo = analysis.tempo(audio)
    assert analysis.tempo_agrees(heard_tempo, body["bpm"]), (heard_tempo, body["bpm"])
    assert analysis.key(audio) == key


@pytest.mark.measures
def test_named_instruments_play(client: TestClient, settings: Settings, rich: Customer) -> None:
    body = compose(
        client,
        rich,
        prompt="a tender ballad for piano and strings with a cello and a flute",
        duration_seconds=10,
    )
    midi = fetch_midi(client, settings, body["midi_url"])
    # Acoustic grand piano, string ensemble, cello, flute (General MIDI programs).
    assert {0, 48, 42, 73} <= programs(midi)
    named = {p["program"]: p for p in body["instruments"] if p["part"] != "drums"}
    assert {0, 48, 42, 73} <= set(named)
    assert named[0]["name"] == "Acoustic Grand Piano"
    assert {named[program]["part"] for program in (0, 48, 42, 73)} >= {"chords", "pad", "lead"}


@pytest.mark.measures
def test_the_most_instruments_a_prompt_may_name_each_play_on_their_own_channel(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    body = compose(client, rich, prompt=ELEVEN_MELODIC, duration_seconds=10, seed=3)
    midi = fetch_midi(client, settings, body["midi_url"])
    channels = [
        {m.channel for m in track if m.type in ("program_change", "note_on")}
        for track in midi.tracks
    ]
    parts = [track for track in channels if track and track != {9}]
    assert all(len(track) == 1 for track in parts)
    played = [p for p in body["instruments"] if p["part"] != "drums"]
    assert len({next(iter(track)) for track in parts}) == len(parts) == len(played)
    assert len(programs(midi)) >= 11


@pytest.mark.measures
def test_genres_differ_in_instruments_and_tempo(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    metal = compose(client, rich, prompt="heavy metal", duration_seconds=10, seed=1)
    ambient = compose(client, rich, prompt="ambient soundscape", duration_seconds=10, seed=1)
    assert (metal["genre"], ambient["genre"]) == ("metal", "ambient")
    assert metal["bpm"] >= 140 > 90 >= ambient["bpm"]
    metal_programs = programs(fetch_midi(client, settings, metal["midi_url"]))
    ambient_programs = programs(fetch_midi(client, settings, ambient["midi_url"]))
    assert 30 in metal_programs  # distortion guitar
    assert not metal_programs & ambient_programs
    assert "drums" in {p["part"] for p in metal["instruments"]}
    assert "drums" not in {p["part"] for p in ambient["instruments"]}


@pytest.mark.measures
def test_same_seed_same_bytes(client: TestClient, settings: Settings, rich: Customer) -> None:
    request = {"prompt": "jazz trio", "duration_seconds": 10, "format": "wav", "seed": 42}
    first, second = compose(client, rich, **request), compose(client, rich, **request)
    other = compose(client, rich, **{**request, "seed": 43})
    assert first["seed"] == 42
    audio = [fetch(client, settings, body["output_url"]) for body in (first, second, other)]
    assert audio[0] == audio[1] != audio[2]
    unseeded = compose(client, rich, prompt="jazz trio", duration_seconds=10)
    assert isinstance(unseeded["seed"], int)


@pytest.mark.measures
def test_musescore_general_plays_the_same_notes_with_other_samples(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    """The soundfont changes the samples, not the piece: the same score (MIDI), tempo and
    key, mastered the same, from other recordings; and a seed still gives the same bytes."""
    request = {"prompt": "pop with piano", "duration_seconds": 10, "format": "wav", "seed": 7}
    fluid = compose(client, rich, **request)
    musescore = compose(client, rich, **request, soundfont="musescore_general")
    again = compose(client, rich, **request, soundfont="musescore_general")
    assert (fluid["soundfont"], musescore["soundfont"]) == ("fluidr3_gm", "musescore_general")
    midi = [fetch(client, settings, body["midi_url"]) for body in (fluid, musescore)]
    assert midi[0] == midi[1]
    assert (fluid["bpm"], fluid["key"]) == (musescore["bpm"], musescore["key"])
    played = [fetch(client, settings, body["output_url"]) for body in (fluid, musescore, again)]
    assert played[1] == played[2] != played[0]
    heard = [fetch_audio(client, settings, body["output_url"]) for body in (fluid, musescore)]
    assert_mastered(heard[1], 10)
    # The same pitch classes sound in the same proportions (measured 0.9+).
    similarity = np.corrcoef(analysis.chroma(heard[0]), analysis.chroma(heard[1]))[0, 1]
    assert similarity >= 0.8, similarity


def test_bounds_and_errors_charge_nothing(client: TestClient, db: Database) -> None:
    customer = create_customer(db, credits_each=325)
    cases = [
        ({"prompt": ""}, "prompt"),
        ({"prompt": "   "}, "prompt"),
        ({"prompt": "x" * 501}, "prompt"),
        ({"prompt": "pop", "duration_seconds": 9}, "duration_seconds"),
        ({"prompt": "pop", "duration_seconds": 301}, "duration_seconds"),
        ({"prompt": "pop", "duration_seconds": 12.5}, "duration_seconds"),
        ({"prompt": "pop", "format": "ogg"}, "format"),
        ({"prompt": "pop", "seed": -1}, "seed"),
        ({"prompt": "pop", "seed": 2**32}, "seed"),
        ({"prompt": "pop at 300 bpm"}, "prompt"),
        ({"prompt": "pop at 39 bpm"}, "prompt"),
        ({"prompt": ELEVEN_MELODIC + " and a flute"}, "prompt"),
        ({"prompt": "pop", "voice_id": "voice_joe"}, "voice_id"),
        ({"prompt": "pop", "mood": "happy"}, "mood"),
        ({"prompt": "pop", "soundfont": "timgm6mb"}, "soundfont"),
    ]
    for payload, param in cases:
        response = client.post(MUSIC, headers=customer.auth(), json=payload)
        assert response.status_code == 422, (payload, response.text)
        assert response.json()["error"]["param"] == param, payload
    # 30 s cost 375 credits: more than this customer has.
    assert_error(
        client.post(MUSIC, headers=customer.auth(), json={"prompt": "pop"}),
        402,
        "insufficient_credits",
    )
    assert balance(client, customer) == (325, 0)
    # The bounds themselves are accepted: 500 characters, 40 and 240 bpm; 16 s for 200 credits
    # and 10 s for 125 spend the balance exactly.
    body = compose(client, customer, prompt=("pop at 240 bpm " * 40)[:500], duration_seconds=16)
    assert (body["bpm"], body["credits_used"]) == (240, 200)
    body = compose(client, customer, prompt="pop at 40 bpm", duration_seconds=10)
    assert (body["bpm"], body["credits_used"]) == (40, 125)
    assert abs(body["duration_ms"] - 10_000) <= 50
    assert balance(client, customer) == (0, 0)


@pytest.mark.usefixtures("demo_catalog")
def test_voice_errors(client: TestClient, rich: Customer) -> None:
    def sing(voice: str) -> Answer:
        return client.post(
            MUSIC,
            headers=rich.auth(),
            json={"prompt": "pop", "instrumental": False, "voice_id": voice},
        )

    assert_error(sing("voice_nobody"), 404, "voice_not_found")
    assert_error(sing("voice_es_lucia"), 422, "voice_not_supported")
    assert balance(client, rich) == (20_000, 0)


def test_the_answer_and_the_job_state_the_license(client: TestClient, customer: Customer) -> None:
    """The spec: "Generated music is licensed for commercial use under the caller's active
    API plan terms", in a `license` field of the answer, of the job, and in the OpenAPI."""
    expected = {
        "type": "commercial",
        "terms": "Generated music is licensed for commercial use under the caller's active "
        "API plan terms.",
    }
    body = compose(client, customer, prompt="calm piano", duration_seconds=10, format="wav")
    assert body["license"] == expected
    job = client.get(f"/api/v1/jobs/{body['job_id']}", headers=customer.auth()).json()
    assert (job["kind"], job["result"]["license"]) == ("music", expected)
    schema = client.get("/openapi.json").json()
    answer = schema["paths"]["/api/v1/creative/music"]["post"]["responses"]["200"]
    ref = answer["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[-1]
    response_schema = schema["components"]["schemas"][ref]
    assert "license" in response_schema["properties"]
    assert "commercial use" in response_schema["properties"]["license"]["description"]
