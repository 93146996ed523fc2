"""POST /api/v1/speech/dialogue end to end: three catalog voices taking turns in one file
(transcribed back, told apart by diarization in the order they speak), the turns' times and
the pause between them, words with their turn, a pronunciation dictionary and SSML read in
the turns, credits, and the bounds."""

from __future__ import annotations

import io
import itertools
import math
import time
from typing import Any

import av
import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.media.audio import Audio
from tests.support.api import assert_error
from tests.support.audio import audio_bytes
from tests.support.audio_fixtures import download_audio, longest_silence_ms, word_error_rate
from tests.support.factories import Customer, create_customer
from tests.support.pronunciation import SOUND_CHECK_IPA, alias_rule, create, phoneme_rule
from tests.support.servers import FileServer

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

DIALOGUE = "/api/v1/speech/dialogue"
STT = "/api/v1/speech/stt"
# Three voices of three engines, a man, a woman and a diphone man: (voice_id, line).
TURNS = [
    ("voice_joe", "Good morning. I would like to book a table for dinner tonight."),
    ("voice_sarah", "Of course. How many people will be joining you this evening?"),
    ("voice_kal", "There will be four of us, and we would like a quiet corner."),
    ("voice_joe", "Around eight o'clock, if that is possible."),
    ("voice_sarah", "Perfect. I have a table by the window at eight."),
    ("voice_kal", "Wonderful, thank you very much."),
]


@pytest.fixture
def rich(db: Database) -> Customer:
    return create_customer(db, credits_each=20_000)


def balance_of(client: TestClient, customer: Customer) -> int:
    answer = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert answer["reserved"] == 0
    return int(answer["balance"])


def speak(client: TestClient, customer: Customer, **body: Any) -> dict[str, Any]:
    body.setdefault("inputs", [{"voice_id": voice, "text": text} for voice, text in TURNS])
    response = client.post(DIALOGUE, headers=customer.auth(), json=body)
    assert response.status_code == 200, response.text
    return dict(response.json())


def heard(client: TestClient, files: FileServer, customer: Customer, audio: Audio) -> str:
    """What the service's speech to text hears in the audio, lower case."""
    response = client.post(
        STT,
        headers=customer.auth(),
        json={"audio_url": files.put(f"heard-{time.monotonic_ns()}.wav", audio_bytes(audio))},
    )
    assert response.status_code == 200, response.text
    return str(response.json()["transcript"]).lower()


def letters(text: str) -> str:
    """The letters alone: "world wide web", "worldwide web" and "world-wide web" alike."""
    return "".join(char for char in text if char.isalpha())


def part(audio: Audio, start_ms: int, end_ms: int) -> Audio:
    """The stretch of the audio from `start_ms` to `end_ms`."""
    rate = audio.sample_rate
    return Audio(audio.samples[start_ms * rate // 1000 : end_ms * rate // 1000], rate)


def level_db(audio: Audio, start_ms: int, end_ms: int) -> float:
    """The RMS level of a stretch of the audio, in dB relative to full scale."""
    rate = audio.sample_rate
    samples = audio.samples[start_ms * rate // 1000 : end_ms * rate // 1000, 0]
    rms = float(np.sqrt(np.mean(np.square(samples, dtype=np.float64)))) if samples.size else 0.0
    return 20 * math.log10(max(rms, 1e-9))


@pytest.mark.measures
def test_three_voices_take_turns_in_order(
    client: TestClient, settings: Settings, files: FileServer, rich: Customer
) -> None:
    body = speak(client, rich, format="wav")
    turns = body["turns"]
    assert [turn["voice_id"] for turn in turns] == [voice for voice, _ in TURNS]
    audio = download_audio(client, settings, body["output_url"])
    assert abs(audio.duration_ms - body["duration_ms"]) <= 30
    # Billed per character of every turn, as text to speech.
    characters = sum(len(text) for _, text in TURNS)
    assert body["characters_processed"] == characters
    assert body["credits_used"] == characters

    # Transcribed back with diarization: the words in order, three speakers, and each turn
    # said by the speaker of the other turns of its voice, first heard in the turns' order.
    response = client.post(
        STT,
        headers=rich.auth(),
        json={
            "audio_url": files.put("dialogue.wav", audio_bytes(audio)),
            "diarize": True,
            "num_speakers": 3,
            "timestamps": True,
        },
    )
    assert response.status_code == 200, response.text
    heard = response.json()
    said = " ".join(text for _, text in TURNS)
    assert word_error_rate(said, heard["transcript"]) <= 0.15, heard["transcript"]
    speaker_of_turn = []
    for turn in turns:
        inside = [
            word["speaker"]
            for word in heard["words"]
            if turn["start_ms"] <= (word["start_ms"] + word["end_ms"]) // 2 <= turn["end_ms"]
        ]
        assert inside, (turn, heard["words"])
        speaker_of_turn.append(max(set(inside), key=inside.count))
    # Three voices told apart, each voice's second turn heard as its first (labels follow the
    # first word heard, which an edge word may move: the pattern is what counts).
    assert len(set(speaker_of_turn[:3])) == 3, speaker_of_turn
    assert speaker_of_turn[3:] == speaker_of_turn[:3], speaker_of_turn


@pytest.mark.measures
def test_turns_are_separated_by_the_pause_asked_for(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    inputs: list[dict[str, Any]] = [
        {"voice_id": "voice_kal", "text": "The first turn is short."},
        {"voice_id": "voice_sarah", "text": "The second one answers it.", "speed": 1.3},
        {"voice_id": "voice_kal", "text": "And the third ends it.", "pitch": 3},
    ]
    body = speak(client, rich, inputs=inputs, pause_ms=800, format="wav", timestamps=True)
    turns = body["turns"]
    audio = download_audio(client, settings, body["output_url"])
    assert turns[0]["start_ms"] == 0
    for before, after in itertools.pairwise(turns):
        assert before["start_ms"] < before["end_ms"]
        # The gap is the pause exactly (engine silence cut), and it is silent.
        assert abs(after["start_ms"] - before["end_ms"] - 800) <= 25
        assert level_db(audio, before["end_ms"] + 100, after["start_ms"] - 100) < -50
    assert abs(turns[-1]["end_ms"] - audio.duration_ms) <= 50
    # Every turn's words, in order, each inside its turn.
    words = body["words"]
    assert [word["word"] for word in words] == " ".join(t["text"] for t in inputs).split()
    assert [word["turn"] for word in words] == [0] * 5 + [1] * 5 + [2] * 5
    for word in words:
        turn = turns[word["turn"]]
        assert turn["start_ms"] - 50 <= word["start_ms"] <= word["end_ms"] <= turn["end_ms"] + 50
    starts = [word["start_ms"] for word in words]
    assert starts == sorted(starts)


def test_a_dialogue_is_one_job_with_its_turns_in_the_result(
    client: TestClient, rich: Customer
) -> None:
    inputs = [{"voice_id": "voice_kal", "text": "Hello."}, {"voice_id": "voice_kal", "text": "Hi."}]
    body = speak(client, rich, inputs=inputs)
    job = client.get(f"/api/v1/jobs/{body['job_id']}", headers=rich.auth()).json()
    assert job["kind"] == "dialogue"
    assert job["result"]["turns"] == body["turns"]
    assert "words" not in body
    assert balance_of(client, rich) == 20_000 - len("Hello.") - len("Hi.")


@pytest.mark.measures
def test_a_pronunciation_dictionary_is_read_in_every_turn(
    client: TestClient, settings: Settings, files: FileServer, rich: Customer
) -> None:
    """The dictionary the request names applies to each turn, whichever its voice: its
    phoneme rule changes what Joe says ("Soundstage" as "sound check"), its alias rule what
    Sarah says and what is billed; without it, the words are read as written."""
    created = create(
        client,
        rich,
        [
            phoneme_rule("Soundstage", SOUND_CHECK_IPA),
            alias_rule("W3C", "World Wide Web"),
        ],
    )
    inputs = [
        {"voice_id": "voice_joe", "text": "Welcome to Soundstage."},
        {"voice_id": "voice_sarah", "text": "We met at the W3C."},
    ]
    locators = [{"dictionary_id": created["id"]}]
    plain = speak(client, rich, inputs=inputs, format="wav")
    ruled = speak(
        client, rich, inputs=inputs, format="wav", pronunciation_dictionary_locators=locators
    )
    # The alias is billed as spoken; the phoneme rule as written.
    assert plain["credits_used"] == len("Welcome to Soundstage.") + len("We met at the W3C.")
    assert ruled["credits_used"] == len("Welcome to Soundstage.") + len(
        "We met at the World Wide Web."
    )
    without = heard(client, files, rich, download_audio(client, settings, plain["output_url"]))
    with_rules = heard(client, files, rich, download_audio(client, settings, ruled["output_url"]))
    assert "stage" in without, without
    assert "check" not in without, without
    assert "worldwideweb" not in letters(without), without
    assert "check" in with_rules, with_rules
    assert "stage" not in with_rules, with_rules
    assert "worldwideweb" in letters(with_rules), with_rules


@pytest.mark.measures
def test_ssml_in_a_turn_changes_what_is_said(
    client: TestClient, settings: Settings, files: FileServer, rich: Customer
) -> None:
    """A turn's SSML is read as /tts reads it: a `<sub>` says its alias (and is billed as
    said), a `<break>` is a silence of its length inside its turn; the markup is free."""
    inputs = [
        {
            "voice_id": "voice_sarah",
            "text": '<speak>Visit the <sub alias="World Wide Web">WWW</sub> today.</speak>',
        },
        {"voice_id": "voice_joe", "text": '<speak>Wait.<break time="1500ms"/>Now go.</speak>'},
    ]
    body = speak(client, rich, inputs=inputs, format="wav", pause_ms=300)
    assert body["credits_used"] == len("Visit the World Wide Web today.") + len("Wait.Now go.")
    audio = download_audio(client, settings, body["output_url"])
    second = body["turns"][1]
    # The break, within the second turn: longer than any pause of the first or between turns.
    assert 1400 <= longest_silence_ms(part(audio, second["start_ms"], second["end_ms"])) <= 1700
    assert longest_silence_ms(part(audio, 0, second["start_ms"])) < 700
    said = heard(client, files, rich, audio)
    assert "worldwideweb" in letters(said), said
    assert "www" not in said, said


@pytest.mark.parametrize(
    ("body", "status", "code", "param"),
    [
        ({"inputs": []}, 422, "parameter_invalid", "inputs"),
        (
            {"inputs": [{"voice_id": "voice_kal", "text": "a"}] * 51},
            422,
            "parameter_invalid",
            "inputs",
        ),
        (
            {"inputs": [{"voice_id": "voice_kal", "text": "a" * 2600}] * 2},
            422,
            "parameter_invalid",
            "inputs",
        ),
        (
            {"inputs": [{"voice_id": "voice_kal", "text": "a"}], "pause_ms": 5001},
            422,
            "parameter_invalid",
            "pause_ms",
        ),
        (
            {
                "inputs": [
                    {"voice_id": "voice_kal", "text": "Hello."},
                    {"voice_id": "voice_nobody", "text": "Hello."},
                ]
            },
            404,
            "voice_not_found",
            "inputs[1].voice_id",
        ),
        (
            {
                "inputs": [
                    {"voice_id": "voice_kal", "text": "Hello."},
                    {"voice_id": "voice_kal", "text": "<speak>Hello <break time='x'/></speak>"},
                ]
            },
            422,
            "invalid_ssml",
            "inputs[1].text",
        ),
        (
            {
                "inputs": [
                    {"voice_id": "voice_kal", "text": "Hello."},
                    {"voice_id": "voice_kal", "text": "..."},
                ]
            },
            422,
            "synthesis_failed",
            "inputs[1].text",
        ),
    ],
)
def test_bounds_and_bad_turns_are_named(
    client: TestClient,
    rich: Customer,
    body: dict[str, Any],
    status: int,
    code: str,
    param: str,
) -> None:
    response = client.post(DIALOGUE, headers=rich.auth(), json=body)
    error = assert_error(response, status, code)
    assert error["param"] == param, error
    assert balance_of(client, rich) == 20_000


def test_the_bounds_themselves_are_allowed(
    client: TestClient, db: Database, rich: Customer
) -> None:
    """50 turns at the longest pause are read; 5,000 characters in all pass the bound (a
    customer without the credits for them is answered 402, not 422)."""
    inputs = [{"voice_id": "voice_kal", "text": "Yes."}] * 50
    body = speak(client, rich, inputs=inputs, pause_ms=5000, format="wav")
    assert len(body["turns"]) == 50
    assert body["credits_used"] == 200
    assert body["turns"][-1]["start_ms"] - body["turns"][-2]["end_ms"] == pytest.approx(
        5000, abs=25
    )
    poor = create_customer(db, credits_each=100)
    longest = [{"voice_id": "voice_kal", "text": "a" * 2500}] * 2
    response = client.post(DIALOGUE, headers=poor.auth(), json={"inputs": longest})
    assert_error(response, 402, "insufficient_credits")


def test_a_streamed_dialogue_is_the_stored_one(
    server: str, client: TestClient, rich: Customer
) -> None:
    """/dialogue/stream sends the audio as it is read, then stores the same file with its
    turns; charged once, as the whole dialogue."""
    inputs = [
        {"voice_id": "voice_kal", "text": "Is anybody there? Hello?"},
        {"voice_id": "voice_sarah", "text": "Yes, I am here."},
    ]
    with httpx.stream(
        "POST",
        server + DIALOGUE + "/stream",
        json={"inputs": inputs, "format": "wav"},
        headers=rich.auth(),
        timeout=120,
    ) as response:
        assert response.status_code == 200, response.read()
        assert response.headers["content-type"].startswith("audio/wav")
        job_id = response.headers["soundstage-job-id"]
        data = b"".join(response.iter_bytes())
    job = client.get(f"/api/v1/jobs/{job_id}", headers=rich.auth()).json()
    for _ in range(100):
        if job["status"] == "completed":
            break
        time.sleep(0.2)
        job = client.get(f"/api/v1/jobs/{job_id}", headers=rich.auth()).json()
    assert job["status"] == "completed", job
    assert job["kind"] == "dialogue"
    assert [turn["voice_id"] for turn in job["result"]["turns"]] == ["voice_kal", "voice_sarah"]
    with av.open(io.BytesIO(data), "r") as container:
        stream = container.streams.audio[0]
        frames = sum(frame.samples for frame in container.decode(stream))
        assert stream.rate == 24_000
    assert abs(frames * 1000 / 24_000 - job["result"]["duration_ms"]) <= 30
    characters = sum(len(turn["text"]) for turn in inputs)
    assert job["credits_used"] == characters
    assert balance_of(client, rich) == 20_000 - characters


def test_a_retried_dialogue_is_made_and_charged_once(client: TestClient, rich: Customer) -> None:
    headers = {**rich.auth(), "Idempotency-Key": "dialogue-1"}
    body = {"inputs": [{"voice_id": "voice_kal", "text": "Once."}] * 2}
    first = client.post(DIALOGUE, headers=headers, json=body)
    again = client.post(DIALOGUE, headers=headers, json=body)
    assert first.status_code == again.status_code == 200, first.text
    assert again.json()["job_id"] == first.json()["job_id"]
    assert balance_of(client, rich) == 20_000 - 10
    other = client.post(DIALOGUE, headers=headers, json={**body, "pause_ms": 100})
    assert_error(other, 422, "idempotency_key_reused")
