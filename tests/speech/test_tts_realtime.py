"""The realtime text-to-speech protocol through the app (Starlette's WebSocket test client):
text in, audio frames and alignment out, the totals and the job at the end, ElevenLabs'
message shapes in base64 mode; bad opening messages, keys in URLs and used tokens refused
with their close codes, nothing charged."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import RealtimeSettings, Settings
from soundstage.core.db import Database
from soundstage.voices.service import CatalogCounts
from tests.support.factories import Customer, create_customer
from tests.support.realtime import job_of, pcm_audio, wallets

PATH = "/api/v1/speech/tts/realtime"
TEXT = "Good morning, everyone. The boat leaves at noon. Bring something warm to wear"


@pytest.fixture(scope="module")
def client(settings: Settings, demo_catalog: CatalogCounts) -> Iterator[TestClient]:
    realtime = RealtimeSettings(processes=1, idle_timeout_seconds=5, token_ttl_seconds=5)
    app = create_app(settings.model_copy(update={"realtime": realtime}))
    with TestClient(app) as client:
        yield client


@pytest.fixture
def funded(db: Database) -> Customer:
    return create_customer(db, credits_each=2_000)


def messages_until_closed(ws: Any) -> tuple[list[bytes | dict[str, Any]], int]:
    """Every frame the server sends (bytes, or JSON as a dict) and the close code."""
    received, code, _ = messages_until_closed_with_reason(ws)
    return received, code


def messages_until_closed_with_reason(
    ws: Any,
) -> tuple[list[bytes | dict[str, Any]], int, str]:
    received: list[bytes | dict[str, Any]] = []
    while True:
        message = ws.receive()
        if message["type"] == "websocket.close":
            return received, int(message["code"]), str(message.get("reason") or "")
        if message.get("bytes") is not None:
            received.append(message["bytes"])
        else:
            received.append(json.loads(message["text"]))


def closed_with(ws: Any) -> tuple[dict[str, Any], int]:
    """The error message and the close code, whose reason is the error's code."""
    received, code, reason = messages_until_closed_with_reason(ws)
    assert len(received) == 1, received
    error = received[0]
    assert isinstance(error, dict)
    assert error["type"] == "error"
    assert reason == error["error"]["code"]
    return error["error"], code


def test_text_in_word_by_word_speech_and_alignment_out(
    client: TestClient, db: Database, funded: Customer
) -> None:
    with client.websocket_connect(PATH, headers=funded.auth()) as ws:
        ws.send_json({"voice_id": "voice_joe", "format": "pcm_16000"})
        for word in TEXT.split(" "):
            ws.send_json({"text": word + " "})
        ws.send_json({"text": ""})
        received, code = messages_until_closed(ws)
    assert code == 1000
    final = received[-1]
    assert isinstance(final, dict)
    assert final["type"] == "final"
    assert final["isFinal"] is True
    frames = [item for item in received if isinstance(item, bytes)]
    alignments = [item for item in received[:-1] if isinstance(item, dict)]
    # Each piece: its audio, then its alignment; at the end the resampler's last samples.
    assert len(alignments) == 3
    for index, item in enumerate(received[:6]):
        assert isinstance(item, bytes) == (index % 2 == 0)
    assert len(frames) <= 4
    assert [a["text"] for a in alignments] == [
        "Good morning, everyone.",
        "The boat leaves at noon.",
        "Bring something warm to wear",
    ]
    words = [word for alignment in alignments for word in alignment["words"]]
    assert [word["word"] for word in words] == TEXT.split()
    assert all(
        a["start_ms"] <= w["start_ms"] <= w["end_ms"] for a in alignments for w in a["words"]
    )
    chars = alignments[0]["alignment"]
    assert "".join(chars["chars"]) == "Good morning, everyone."
    assert len(chars["charStartTimesMs"]) == len(chars["charsDurationsMs"]) == len(chars["chars"])
    audio = pcm_audio(b"".join(frames), 16_000)
    assert abs(audio.duration_ms - final["duration_ms"]) <= 2
    # Every character sent, the spaces included, the last one too (it was flushed).
    assert final["characters"] == len(TEXT) + 1
    job = job_of(db, final["job_id"])
    assert (job.kind, job.status, job.credits_used) == ("tts_realtime", "completed", len(TEXT) + 1)
    assert job.result is not None
    assert job.result["duration_ms"] == final["duration_ms"]
    assert wallets(db, funded) == {
        "available": 2_000 - len(TEXT) - 1,
        "reserved": 0,
        "consumed": len(TEXT) + 1,
    }


def test_base64_mode_speaks_elevenlabs_shapes(
    client: TestClient, db: Database, funded: Customer
) -> None:
    with client.websocket_connect(PATH, headers=funded.auth()) as ws:
        # ElevenLabs' opening: " ", voice_settings, generation_config.
        ws.send_json(
            {
                "voice_id": "voice_joe",
                "text": " ",
                "output_mode": "base64",
                "voice_settings": {"stability": 0.5, "similarity_boost": 0.8, "speed": 1.2},
                "generation_config": {"chunk_length_schedule": [50, 90]},
            }
        )
        ws.send_json({"text": "Hello there, ", "try_trigger_generation": True})
        ws.send_json({"text": "how are you", "flush": True})
        ws.send_json({"close": True})
        received, code = messages_until_closed(ws)
    assert code == 1000
    assert all(isinstance(item, dict) for item in received)
    audio_messages = [m for m in received if isinstance(m, dict) and m["type"] == "audio"]
    # The piece's audio with its alignment; then the encoder's tail, without.
    pieces = [m for m in audio_messages if "alignment" in m]
    assert [m["text"] for m in pieces] == ["Hello there, how are you"]
    assert len(audio_messages) <= 2
    first = pieces[0]
    assert first["isFinal"] is False
    assert len(base64.b64decode(first["audio"])) > 0
    assert first["alignment"]["chars"][0] == "H"
    final = received[-1]
    assert isinstance(final, dict)
    assert (final["type"], final["isFinal"], final["characters"]) == ("final", True, 24)
    job = job_of(db, final["job_id"])
    assert job.request is not None
    assert job.request["voice_settings"]["speed"] == 1.2


@pytest.mark.parametrize(
    ("opening", "param"),
    [
        ({"voice_id": "voice_joe", "format": "wav"}, "format"),
        ({"voice_id": "voice_joe", "speed": 3}, "speed"),
        ({"voice_id": "voice_joe", "xi_api_key": "secret"}, "xi_api_key"),
        ({"format": "mp3"}, "voice_id"),
        (
            {"voice_id": "voice_joe", "generation_config": {"chunk_length_schedule": [5]}},
            "generation_config.chunk_length_schedule[0]",
        ),
    ],
)
def test_a_bad_opening_message_is_closed_4400_naming_the_field(
    client: TestClient, db: Database, funded: Customer, opening: dict[str, Any], param: str
) -> None:
    with client.websocket_connect(PATH, headers=funded.auth()) as ws:
        ws.send_json(opening)
        error, code = closed_with(ws)
    assert code == 4400
    assert (error["status"], error["param"]) == (400, param)
    assert param in error["message"]
    assert wallets(db, funded) == {"available": 2_000, "reserved": 0, "consumed": 0}


def test_an_opening_message_that_is_not_json_is_closed_4400(
    client: TestClient, funded: Customer
) -> None:
    with client.websocket_connect(PATH, headers=funded.auth()) as ws:
        ws.send_text("voice_joe please")
        error, code = closed_with(ws)
    assert (code, error["code"]) == (4400, "malformed_request")


def test_an_unknown_voice_is_closed_4404_without_charge(
    client: TestClient, db: Database, funded: Customer
) -> None:
    with client.websocket_connect(PATH, headers=funded.auth()) as ws:
        ws.send_json({"voice_id": "voice_nobody"})
        error, code = closed_with(ws)
    assert (code, error["code"], error["param"]) == (4404, "voice_not_found", "voice_id")
    assert wallets(db, funded)["available"] == 2_000


def test_a_token_opens_one_session_once_and_expires(client: TestClient, funded: Customer) -> None:
    minted = client.post(f"{PATH}/tokens", headers=funded.auth())
    assert minted.status_code == 200, minted.text
    token = minted.json()["token"]
    with client.websocket_connect(f"{PATH}?token={token}") as ws:
        ws.send_json({"voice_id": "voice_joe", "text": "Hi there", "flush": True})
        ws.send_json({"text": ""})
        received, code = messages_until_closed(ws)
    assert code == 1000
    assert isinstance(received[-1], dict)
    assert received[-1]["type"] == "final"
    with client.websocket_connect(f"{PATH}?token={token}") as ws:
        error, code = closed_with(ws)
    assert (code, error["code"]) == (4401, "invalid_realtime_token")
    late = client.post(f"{PATH}/tokens", headers=funded.auth()).json()["token"]
    time.sleep(5.2)  # the token lives 5 s here (enough for the first use on a loaded machine)
    with client.websocket_connect(f"{PATH}?token={late}") as ws:
        error, code = closed_with(ws)
    assert (code, error["code"]) == (4401, "invalid_realtime_token")


def test_an_api_key_in_the_url_or_no_key_is_refused(client: TestClient, funded: Customer) -> None:
    with client.websocket_connect(f"{PATH}?token={funded.sandbox_key}") as ws:
        error, code = closed_with(ws)
    assert (code, error["param"]) == (4400, "token")
    with client.websocket_connect(PATH) as ws:
        error, code = closed_with(ws)
    assert code == 4401


def test_too_little_credit_is_refused_before_anything_is_spoken(
    client: TestClient, db: Database
) -> None:
    poor = create_customer(db, credits_each=10)
    with client.websocket_connect(PATH, headers=poor.auth()) as ws:
        ws.send_json({"voice_id": "voice_joe"})
        error, code = closed_with(ws)
    assert (code, error["code"]) == (4402, "insufficient_credits")
    assert wallets(db, poor) == {"available": 10, "reserved": 0, "consumed": 0}


def test_more_text_than_the_buffer_holds_ends_the_session_4422_charging_what_was_sent(
    settings: Settings, db: Database, demo_catalog: CatalogCounts
) -> None:
    small = settings.model_copy(
        update={
            "realtime": RealtimeSettings(processes=1),
            "tts": settings.tts.model_copy(update={"realtime_max_buffered_characters": 300}),
        }
    )
    customer = create_customer(db, credits_each=2_000)
    with (
        TestClient(create_app(small)) as client,
        client.websocket_connect(PATH, headers=customer.auth()) as ws,
    ):
        ws.send_json({"voice_id": "voice_joe", "output_mode": "base64"})
        ws.send_json({"text": "Short and sweet. "})
        ws.send_json({"text": "word " * 70})
        received, code = messages_until_closed(ws)
    assert code == 4422
    spoken = [m for m in received if isinstance(m, dict) and m["type"] == "audio"]
    assert [m["text"] for m in spoken] == ["Short and sweet."]
    error = received[-1]
    assert isinstance(error, dict)
    assert (error["error"]["code"], error["error"]["param"]) == ("text_buffer_full", "text")
    # What was sent, or the minimum of the session's minute when that is more.
    charged = max(len("Short and sweet. "), RealtimeSettings().minimum_credits_per_minute)
    assert wallets(db, customer) == {
        "available": 2_000 - charged,
        "reserved": 0,
        "consumed": charged,
    }
