"""GET /elevenlabs/v1/speech-to-text/realtime against a live server: real speech in, as a raw
`websockets` client speaks ElevenLabs' protocol and as the official SDK does (over wss://);
VAD and manual commits, word timestamps, the errors in ElevenLabs' shape, the credits."""

from __future__ import annotations

import asyncio
import json
import time
from typing import Any
from urllib.parse import urlencode

import pytest
import websockets
from elevenlabs import AsyncElevenLabs
from elevenlabs.realtime import AudioFormat, CommitStrategy, RealtimeEvents

from soundstage.config import RealtimeSettings
from soundstage.core.db import Database
from soundstage.credits.rates import Operation, for_duration
from tests.support.audio_fixtures import librivox_clips, word_error_rate
from tests.support.factories import Customer, create_customer
from tests.support.realtime import wallets
from tests.support.realtime_audio import librivox_session
from tests.support.realtime_vendors import chunks, pcm_at, read_until
from tests.support.tls import Certificate

pytestmark = pytest.mark.slow

PATH = "/elevenlabs/v1/speech-to-text/realtime"
MINIMUM = RealtimeSettings().minimum_credits_per_minute


@pytest.fixture
def customer(db: Database) -> Customer:
    return create_customer(db, credits_each=1000)


def ws_url(live_url: str, **query: str) -> str:
    base = live_url.replace("http://", "ws://").replace("https://", "wss://")
    return f"{base}{PATH}?{urlencode({'model_id': 'scribe_v2_realtime', **query})}"


def xi(customer: Customer) -> dict[str, str]:
    return {"xi-api-key": customer.sandbox_key}


def chunk(audio: str, rate: int, *, commit: bool = False) -> str:
    """A message as the SDK's `send` and `commit` make it."""
    body = {
        "message_type": "input_audio_chunk",
        "audio_base_64": audio,
        "commit": commit,
        "sample_rate": rate,
    }
    return json.dumps(body)


def committed(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [m for m in messages if m["message_type"] == "committed_transcript"]


def test_vad_commits_each_utterance_with_word_timestamps(live_url: str, customer: Customer) -> None:
    session = librivox_session(librivox_clips()[:2])
    url = ws_url(
        live_url,
        audio_format="pcm_16000",
        commit_strategy="vad",
        include_timestamps="true",
        language_code="en",
    )

    async def run() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        async with websockets.connect(url, additional_headers=xi(customer)) as ws:
            await read_until(ws, lambda got: len(got) >= 1, messages)
            for audio in chunks(pcm_at(session, 16000), 16000):
                await ws.send(chunk(audio, 16000))
            await read_until(ws, lambda got: len(committed(got)) >= 2, messages)
            # The last committed transcript's timestamps follow it.
            await read_until(
                ws, lambda got: got[-1]["message_type"].endswith("timestamps"), messages
            )
        return messages

    messages = asyncio.run(run())
    started = messages[0]
    assert started["message_type"] == "session_started"
    assert started["session_id"].startswith("job_")
    assert started["config"]["sample_rate"] == 16000
    assert started["config"]["commit_strategy"] == "vad"
    kinds = [m["message_type"] for m in messages]
    assert "partial_transcript" in kinds[: kinds.index("committed_transcript")]
    finals = committed(messages)
    assert len(finals) == 2
    assert word_error_rate(session.text, " ".join(f["text"] for f in finals)) <= 0.25
    timed = [m for m in messages if m["message_type"] == "committed_transcript_with_timestamps"]
    assert [t["text"] for t in timed] == [f["text"] for f in finals]
    words = [w for t in timed for w in t["words"] if w["type"] == "word"]
    assert len(words) >= 20
    starts = [w["start"] for w in words]
    assert starts == sorted(starts)
    assert all(0 <= w["start"] <= w["end"] <= session.duration_ms / 1000 + 1 for w in words)
    # The first word is said where the first clip starts (within a second).
    assert abs(words[0]["start"] - session.placed[0].offset_ms / 1000) < 1.0
    assert timed[0]["language_code"] == "en"


def test_manual_commit_at_24khz_and_the_credits_of_the_audio(
    live_url: str, customer: Customer, db: Database
) -> None:
    session = librivox_session(librivox_clips()[:1])
    pcm = pcm_at(session, 24000)
    url = ws_url(live_url, audio_format="pcm_24000", commit_strategy="manual")

    async def run() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        async with websockets.connect(url, additional_headers=xi(customer)) as ws:
            await read_until(ws, lambda got: len(got) >= 1, messages)
            # A commit with nothing said answers an empty committed transcript.
            await ws.send(chunk("", 24000, commit=True))
            await read_until(ws, lambda got: len(committed(got)) >= 1, messages)
            for audio in chunks(pcm, 24000):
                await ws.send(chunk(audio, 24000))
            # No VAD: nothing is committed until the client commits.
            await asyncio.sleep(2)
            assert len(committed(messages)) == 1
            await ws.send(chunk("", 24000, commit=True))
            await read_until(ws, lambda got: len(committed(got)) >= 2, messages)
        return messages

    messages = asyncio.run(run())
    empty, said = committed(messages)
    assert empty["text"] == ""
    assert word_error_rate(session.text, said["text"]) <= 0.25, said["text"]
    assert not [m for m in messages if m["message_type"].endswith("timestamps")]
    # Charged as the native session is: the audio received (at least the minimum).
    duration_ms = len(pcm) * 1000 // (24000 * 2)
    charge = max(for_duration(Operation.STT, duration_ms), MINIMUM)
    deadline = time.monotonic() + 30
    while wallets(db, customer)["reserved"] and time.monotonic() < deadline:
        time.sleep(0.2)
    assert wallets(db, customer) == {
        "available": 1000 - charge,
        "reserved": 0,
        "consumed": charge,
    }


def refusal(url: str, headers: dict[str, str], send: str | None = None) -> tuple[Any, int]:
    """The error message a session ends with, and its close code."""

    async def run() -> tuple[Any, int]:
        async with websockets.connect(url, additional_headers=headers) as ws:
            if send is not None:
                first = json.loads(await ws.recv())
                assert first["message_type"] == "session_started"
                await ws.send(send)
            message = json.loads(await ws.recv())
            with pytest.raises(websockets.ConnectionClosed):
                await ws.recv()
            assert ws.close_code is not None
            return message, ws.close_code

    return asyncio.run(run())


def test_errors_come_in_elevenlabs_shape(live_url: str, customer: Customer) -> None:
    url = ws_url(live_url)
    message, code = refusal(url, {"xi-api-key": "sk_sandbox_nope"})
    assert message["message_type"] == "auth_error", message
    assert message["error"]
    assert code == 4401
    # A key in the URL is never read (the SDK sends it in a header).
    message, code = refusal(ws_url(live_url, token=customer.sandbox_key), {})
    assert (message["message_type"], code) == ("input_error", 4400)
    assert "URL" in message["error"]
    message, code = refusal(ws_url(live_url, audio_format="mp3_44100"), xi(customer))
    assert (message["message_type"], code) == ("invalid_request", 4422)
    assert "audio_format" in message["error"]
    message, code = refusal(ws_url(live_url, model_id="nope"), xi(customer))
    assert (message["message_type"], code) == ("invalid_request", 4422)
    message, code = refusal(url, xi(customer), send=json.dumps({"message_type": "say"}))
    assert (message["message_type"], code) == ("input_error", 4400)
    message, code = refusal(url, xi(customer), send=chunk("not base64!", 16000))
    assert (message["message_type"], code) == ("input_error", 4400)
    assert "audio_base_64" in message["error"]


@pytest.fixture
def trusted(certificate: Certificate, monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's own TLS context trusts the test authority."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate.ca_file))


@pytest.mark.usefixtures("trusted")
def test_the_official_sdk_over_wss(live_tls_url: str, customer: Customer) -> None:
    session = librivox_session(librivox_clips()[:1])
    client = AsyncElevenLabs(base_url=live_tls_url + "/elevenlabs", api_key=customer.sandbox_key)

    async def run() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        connection = await client.speech_to_text.realtime.connect(
            {
                "model_id": "scribe_v2_realtime",
                "audio_format": AudioFormat.PCM_16000,
                "sample_rate": 16000,
                "commit_strategy": CommitStrategy.MANUAL,
                "include_timestamps": True,
            }
        )
        partials: list[dict[str, Any]] = []
        finals: list[dict[str, Any]] = []
        done = asyncio.Event()
        connection.on(RealtimeEvents.PARTIAL_TRANSCRIPT, partials.append)
        connection.on(RealtimeEvents.COMMITTED_TRANSCRIPT_WITH_TIMESTAMPS, finals.append)
        connection.on(RealtimeEvents.COMMITTED_TRANSCRIPT_WITH_TIMESTAMPS, lambda _: done.set())
        for audio in chunks(pcm_at(session, 16000), 16000):
            await connection.send({"audio_base_64": audio})
        await connection.commit()
        await asyncio.wait_for(done.wait(), 120)
        await connection.close()
        return partials, finals

    partials, finals = asyncio.run(run())
    assert partials
    assert len(finals) == 1
    assert word_error_rate(session.text, finals[0]["text"]) <= 0.25, finals[0]["text"]
    assert finals[0]["words"][0]["type"] == "word"
