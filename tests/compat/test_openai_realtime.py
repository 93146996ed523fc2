"""GET /v1/realtime?intent=transcription against a live server: real speech in, as a raw
`websockets` client speaks OpenAI's Realtime API (GA and beta session updates) and as the
official SDK does (over wss://); server VAD and manual commits, clear, the errors in OpenAI's
shape."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import numpy as np
import pytest
import websockets

from soundstage.compat.openai.realtime import ALAW
from soundstage.core.db import Database
from tests.support.audio_fixtures import librivox_clips, word_error_rate
from tests.support.factories import Customer, create_customer
from tests.support.openai_sdk import async_sdk_client, sdk_client
from tests.support.realtime_audio import librivox_session
from tests.support.realtime_vendors import chunks, g711_8k, pcm_at, read_until
from tests.support.tls import Certificate

pytestmark = pytest.mark.slow

PATH = "/v1/realtime"
COMPLETED = "conversation.item.input_audio_transcription.completed"
DELTA = "conversation.item.input_audio_transcription.delta"


@pytest.fixture
def customer(db: Database) -> Customer:
    return create_customer(db, credits_each=1000)


def ws_url(live_url: str, query: str = "intent=transcription") -> str:
    base = live_url.replace("http://", "ws://").replace("https://", "wss://")
    return f"{base}{PATH}?{query}"


def of(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m for m in messages if m["type"] == kind]


def ga_update(turn_detection: Any, **more: Any) -> str:
    return json.dumps(
        {
            "type": "session.update",
            "session": {
                "type": "transcription",
                "audio": {
                    "input": {
                        "format": {"type": "audio/pcm", "rate": 24000},
                        "transcription": {"model": "gpt-4o-transcribe", "language": "en"},
                        "turn_detection": turn_detection,
                        **more,
                    }
                },
            },
        }
    )


def append(audio: str) -> str:
    return json.dumps({"type": "input_audio_buffer.append", "audio": audio})


def test_server_vad_with_the_ga_session_update(live_url: str, customer: Customer) -> None:
    session = librivox_session(librivox_clips()[:2])

    async def run() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        async with websockets.connect(ws_url(live_url), additional_headers=customer.auth()) as ws:
            await read_until(ws, lambda got: len(got) >= 1, messages)
            await ws.send(ga_update({"type": "server_vad", "silence_duration_ms": 500}))
            await read_until(ws, lambda got: len(got) >= 2, messages)
            for audio in chunks(pcm_at(session, 24000), 24000):
                await ws.send(append(audio))
            await read_until(ws, lambda got: len(of(got, COMPLETED)) >= 2, messages)
        return messages

    messages = asyncio.run(run())
    created, updated = messages[:2]
    assert created["type"] == "session.created"
    assert created["session"]["type"] == "transcription"
    assert updated["type"] == "session.updated"
    assert updated["session"]["audio"]["input"]["turn_detection"]["type"] == "server_vad"
    kinds = [m["type"] for m in messages]
    started = of(messages, "input_audio_buffer.speech_started")
    stopped = of(messages, "input_audio_buffer.speech_stopped")
    committed = of(messages, "input_audio_buffer.committed")
    completed = of(messages, COMPLETED)
    assert len(started) == len(stopped) == len(committed) == len(completed) == 2
    items = [c["item_id"] for c in committed]
    assert [s["item_id"] for s in started] == items
    assert [c["item_id"] for c in completed] == items
    assert committed[0]["previous_item_id"] is None
    assert committed[1]["previous_item_id"] == items[0]
    assert started[0]["audio_start_ms"] < stopped[0]["audio_end_ms"] < started[1]["audio_start_ms"]
    # Deltas come as the words are heard, before the item's transcript is complete.
    deltas = of(messages, DELTA)
    assert deltas
    assert kinds.index(DELTA) < kinds.index(COMPLETED)
    assert all(d["content_index"] == 0 and d["item_id"] in items for d in deltas)
    for item, done in zip(items, completed, strict=True):
        assert done["content_index"] == 0
        assert done["usage"]["type"] == "duration"
        said = "".join(d["delta"] for d in deltas if d["item_id"] == item)
        # Deltas extend one another: what they spell is where the transcript starts, or
        # they stopped where a partial changed earlier words.
        assert done["transcript"].startswith(said) or len(said) < len(done["transcript"])
    transcript = " ".join(c["transcript"] for c in completed)
    assert word_error_rate(session.text, transcript) <= 0.25, transcript


def test_manual_commit_clear_and_the_beta_update_in_alaw(live_url: str, customer: Customer) -> None:
    session = librivox_session(librivox_clips()[:1])
    alaw = g711_8k(session, (ALAW / 32768).astype(np.float32))
    beta = {**customer.auth(), "OpenAI-Beta": "realtime=v1"}
    update = {
        "type": "transcription_session.update",
        "session": {
            "input_audio_format": "g711_alaw",
            "input_audio_transcription": {"model": "whisper-1", "language": "en"},
            "turn_detection": None,
        },
    }

    async def run() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        async with websockets.connect(ws_url(live_url), additional_headers=beta) as ws:
            await read_until(ws, lambda got: len(got) >= 1, messages)
            await ws.send(json.dumps(update))
            await read_until(ws, lambda got: len(got) >= 2, messages)
            pieces = chunks(alaw, 8000, width=1)
            # Audio then a clear: none of it is transcribed.
            for audio in pieces[:20]:
                await ws.send(append(audio))
            await ws.send(json.dumps({"type": "input_audio_buffer.clear"}))
            await read_until(ws, lambda got: bool(of(got, "input_audio_buffer.cleared")), messages)
            # Nothing to commit now.
            await ws.send(json.dumps({"type": "input_audio_buffer.commit", "event_id": "c1"}))
            await read_until(ws, lambda got: bool(of(got, "error")), messages)
            for audio in pieces:
                await ws.send(append(audio))
            await ws.send(json.dumps({"type": "input_audio_buffer.commit"}))
            await read_until(ws, lambda got: bool(of(got, COMPLETED)), messages)
        return messages

    messages = asyncio.run(run())
    assert messages[0]["type"] == "transcription_session.created"
    assert messages[1]["type"] == "transcription_session.updated"
    assert messages[1]["session"]["input_audio_format"] == "g711_alaw"
    assert messages[1]["session"]["turn_detection"] is None
    # No VAD: no speech events.
    assert not of(messages, "input_audio_buffer.speech_started")
    (error,) = of(messages, "error")
    assert error["error"]["code"] == "input_audio_buffer_commit_empty"
    assert error["error"]["event_id"] == "c1"
    (committed,) = of(messages, "input_audio_buffer.committed")
    (completed,) = of(messages, COMPLETED)
    assert completed["item_id"] == committed["item_id"]
    assert word_error_rate(session.text, completed["transcript"]) <= 0.25, completed


def first_error(url: str, headers: dict[str, str], send: str | None = None) -> dict[str, Any]:
    """The first `error` event of a session (after `session.created` when `send`)."""

    async def run() -> dict[str, Any]:
        async with websockets.connect(url, additional_headers=headers) as ws:
            if send is not None:
                created = json.loads(await ws.recv())
                assert created["type"] == "session.created"
                await ws.send(send)
            message: dict[str, Any] = json.loads(await ws.recv())
            assert message["type"] == "error", message
            assert message["event_id"]
            error: dict[str, Any] = message["error"]
            assert set(error) == {"type", "code", "message", "param", "event_id"}
            return error

    return asyncio.run(run())


def test_errors_come_in_openai_shape(live_url: str, customer: Customer) -> None:
    url = ws_url(live_url)
    error = first_error(url, {"Authorization": "Bearer sk_sandbox_nope"})
    assert error["type"] == "authentication_error"
    error = first_error(
        ws_url(live_url, f"intent=transcription&api_key={customer.sandbox_key}"), {}
    )
    assert error["param"] == "token"
    assert "URL" in error["message"]
    error = first_error(ws_url(live_url, "intent=transcription&model=tts-1"), customer.auth())
    assert (error["code"], error["param"]) == ("model_not_found", "model")
    # A bad update answers an error and the session goes on.
    update = json.dumps(
        {
            "type": "session.update",
            "event_id": "u1",
            "session": {
                "type": "transcription",
                "audio": {"input": {"transcription": {"model": "gpt-9-transcribe"}}},
            },
        }
    )
    error = first_error(url, customer.auth(), send=update)
    assert error["code"] == "model_not_found"
    assert error["event_id"] == "u1"
    assert error["param"] == "session.audio.input.transcription.model"
    error = first_error(url, customer.auth(), send="not json")
    assert error["code"] == "malformed_request"
    event = json.dumps({"type": "response.create", "event_id": "r1"})
    error = first_error(url, customer.auth(), send=event)
    assert (error["code"], error["param"], error["event_id"]) == ("malformed_request", "type", "r1")


def test_gpt_transcribe_is_a_transcription_model_over_http(
    live_url: str, customer: Customer
) -> None:
    clip = librivox_clips()[0]
    client = sdk_client(live_url, customer.sandbox_key)
    with clip.path.open("rb") as audio:
        answer = client.audio.transcriptions.create(model="gpt-transcribe", file=audio)
    assert word_error_rate(clip.text, answer.text) <= 0.25, answer.text


@pytest.fixture
def trusted(certificate: Certificate, monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's own TLS context trusts the test authority."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate.ca_file))


@pytest.mark.usefixtures("trusted")
def test_the_official_sdk_over_wss(live_tls_url: str, customer: Customer) -> None:
    session = librivox_session(librivox_clips()[:1])
    client = async_sdk_client(live_tls_url, customer.sandbox_key)

    async def run() -> list[Any]:
        events: list[Any] = []
        async with client.realtime.connect(
            model="gpt-4o-transcribe", extra_query={"intent": "transcription"}
        ) as connection:
            await connection.session.update(
                session={
                    "type": "transcription",
                    "audio": {
                        "input": {
                            "format": {"type": "audio/pcm", "rate": 24000},
                            "transcription": {"model": "gpt-4o-transcribe", "language": "en"},
                            "turn_detection": None,
                        }
                    },
                }
            )
            for audio in chunks(pcm_at(session, 24000), 24000):
                await connection.input_audio_buffer.append(audio=audio)
            await connection.input_audio_buffer.commit()
            async for event in connection:
                events.append(event)
                if event.type == COMPLETED:
                    break
        return events

    events = asyncio.run(asyncio.wait_for(run(), 180))
    kinds = [e.type for e in events]
    assert kinds[:2] == ["session.created", "session.updated"]
    assert "input_audio_buffer.committed" in kinds
    assert word_error_rate(session.text, events[-1].transcript) <= 0.25, events[-1].transcript
