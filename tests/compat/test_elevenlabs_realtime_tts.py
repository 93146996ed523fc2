"""GET /elevenlabs/v1/text-to-speech/{voice_id}/stream-input and .../multi-stream-input against
a live server: the official SDK's `convert_realtime` over wss:// (the speech whisper hears back),
a raw `websockets` client's stream-input (PCM at 16 kHz, flush, the end, the alignment) and
multi-stream-input (two contexts, `close_context`, `close_socket`), the errors in ElevenLabs'
shape, the credits."""

from __future__ import annotations

import asyncio
import base64
import json
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlencode

import pytest
import websockets

from soundstage.config import RealtimeSettings
from soundstage.core.db import Database
from soundstage.engines.transcribers.registry import get_transcriber
from tests.support.audio_fixtures import word_error_rate
from tests.support.elevenlabs import decode_output, sdk
from tests.support.factories import Customer, create_customer
from tests.support.realtime import pcm_audio, wallets
from tests.support.realtime_vendors import read_until
from tests.support.tls import Certificate

pytestmark = pytest.mark.slow

# ElevenLabs' George, a premade voice (the catalog's Alan).
GEORGE = "JBFqnCBsd6RMkjVDRZzb"
SENTENCE = "The boat leaves the harbor at noon."
OTHER = "Bring a warm coat and some bread."
MINIMUM = RealtimeSettings().minimum_credits_per_minute


@pytest.fixture
def customer(db: Database) -> Customer:
    return create_customer(db, credits_each=1000)


def ws_url(live_url: str, path: str, voice_id: str = GEORGE, **query: str) -> str:
    base = live_url.replace("http://", "ws://").replace("https://", "wss://")
    suffix = f"?{urlencode(query)}" if query else ""
    return f"{base}/elevenlabs/v1/text-to-speech/{voice_id}/{path}{suffix}"


def first_message(**extra: Any) -> str:
    body = {
        "text": " ",
        "voice_settings": {"stability": 0.5, "similarity_boost": 0.8, "speed": 1.0},
        "generation_config": {"chunk_length_schedule": [50]},
        **extra,
    }
    return json.dumps(body)


def settled(db: Database, customer: Customer) -> dict[str, int]:
    """The wallets once the session's end is recorded."""
    deadline = time.monotonic() + 30
    while wallets(db, customer)["reserved"] and time.monotonic() < deadline:
        time.sleep(0.2)
    return wallets(db, customer)


def heard(audio: bytes, rate: int) -> str:
    return (
        get_transcriber()
        .transcribe(pcm_audio(audio, rate), language="en", word_timestamps=False)
        .text
    )


@pytest.fixture
def trusted(certificate: Certificate, monkeypatch: pytest.MonkeyPatch) -> None:
    """The SDK's own TLS context trusts the test authority."""
    monkeypatch.setenv("SSL_CERT_FILE", str(certificate.ca_file))


@pytest.mark.usefixtures("trusted")
def test_the_official_sdk_over_wss(live_tls_url: str, customer: Customer, db: Database) -> None:
    client = sdk(live_tls_url, customer.sandbox_key)

    def text() -> Iterator[str]:
        yield from ("The boat ", "leaves the ", "harbor at noon.")

    audio = b"".join(
        client.text_to_speech.convert_realtime(
            voice_id=GEORGE, text=text(), model_id="eleven_flash_v2_5", output_format="pcm_16000"
        )
    )
    assert decode_output(audio, "pcm_16000").seconds > 1.0
    assert word_error_rate(SENTENCE, heard(audio, 16000)) <= 0.25
    # The SDK's default format: MP3 at 44.1 kHz, as named.
    mp3 = b"".join(client.text_to_speech.convert_realtime(voice_id=GEORGE, text=iter(["Hello."])))
    assert decode_output(mp3, "mp3_44100_128").sample_rate == 44100
    spent = settled(db, customer)
    # As sent (the SDK ends each piece with a space), each session at least the minimum.
    expected = max(len(SENTENCE) + 1, MINIMUM) + max(len("Hello. "), MINIMUM)
    assert spent["reserved"] == 0
    assert expected - 1 <= spent["consumed"] <= expected


def test_stream_input_pcm_with_alignment_and_credits(
    live_url: str, customer: Customer, db: Database
) -> None:
    url = ws_url(live_url, "stream-input", output_format="pcm_16000", model_id="eleven_flash_v2_5")

    async def run() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        headers = {"xi-api-key": customer.sandbox_key}
        async with websockets.connect(url, additional_headers=headers) as ws:
            await ws.send(first_message())
            for piece in ("The boat ", "leaves the harbor ", "at noon."):
                await ws.send(json.dumps({"text": piece, "try_trigger_generation": True}))
            await ws.send(json.dumps({"text": " ", "flush": True}))
            await read_until(ws, lambda got: bool(got), messages)
            await ws.send(json.dumps({"text": ""}))
            await read_until(ws, lambda got: bool(got[-1].get("isFinal")), messages)
            await asyncio.wait_for(ws.wait_closed(), 30)
            assert ws.close_code == 1000
        return messages

    messages = asyncio.run(run())
    assert messages[-1] == {"isFinal": True}
    pieces = [m for m in messages[:-1] if m.get("alignment")]
    assert pieces
    for message in messages[:-1]:
        assert set(message) == {"audio", "isFinal", "normalizedAlignment", "alignment"}
    audio = b"".join(base64.b64decode(m["audio"]) for m in messages[:-1])
    assert word_error_rate(SENTENCE, heard(audio, 16000)) <= 0.25
    for message in pieces:
        alignment = message["alignment"]
        assert set(alignment) == {"chars", "charStartTimesMs", "charDurationsMs"}
        starts = alignment["charStartTimesMs"]
        assert len(alignment["chars"]) == len(starts) == len(alignment["charDurationsMs"])
        assert starts == sorted(starts)
        assert starts[0] >= 0
        assert all(duration >= 0 for duration in alignment["charDurationsMs"])
        # Relative to the piece's own audio.
        piece_ms = len(base64.b64decode(message["audio"])) * 1000 // (16000 * 2)
        assert starts[-1] <= piece_ms
    said = "".join("".join(m["alignment"]["chars"]) for m in pieces)
    assert said.replace(" ", "") == SENTENCE.replace(" ", "")
    # Charged as the native session is: the characters spoken, as sent (white space too).
    spent = settled(db, customer)
    sent = len("The boat leaves the harbor at noon. ")
    assert spent["reserved"] == 0
    assert spent["available"] + spent["consumed"] == 1000
    assert sent - 1 <= spent["consumed"] <= sent


def test_multi_stream_input_two_contexts(live_url: str, customer: Customer) -> None:
    url = ws_url(live_url, "multi-stream-input", output_format="pcm_16000")

    async def run() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        headers = {"xi-api-key": customer.sandbox_key}
        async with websockets.connect(url, additional_headers=headers) as ws:
            await ws.send(first_message(context_id="one"))
            await ws.send(json.dumps({"text": " ", "context_id": "two"}))
            await ws.send(json.dumps({"text": SENTENCE + " ", "context_id": "one"}))
            await ws.send(json.dumps({"text": OTHER, "context_id": "two", "flush": True}))
            await ws.send(json.dumps({"text": "Never said", "context_id": "one"}))
            await ws.send(json.dumps({"context_id": "one", "close_context": True}))
            await ws.send(json.dumps({"text": "Goodbye", "context_id": "two"}))
            await ws.send(json.dumps({"close_socket": True}))
            await read_until(ws, lambda got: False, messages)
            assert ws.close_code == 1000
        return messages

    messages = asyncio.run(run())
    finals = [m for m in messages if m.get("isFinal")]
    assert finals == [{"isFinal": True, "contextId": "one"}, {"isFinal": True, "contextId": "two"}]
    one = [m for m in messages if m.get("contextId") == "one" and m.get("audio")]
    two = [m for m in messages if m.get("contextId") == "two" and m.get("audio")]
    assert one
    assert two
    # Context one closed before its final, its audio all before.
    assert messages.index(finals[0]) > messages.index(one[-1])
    for context, text in ((one, SENTENCE), (two, OTHER + " Goodbye.")):
        audio = b"".join(base64.b64decode(m["audio"]) for m in context)
        assert word_error_rate(text, heard(audio, 16000)) <= 0.25
    # close_context drops what the context had not flushed; close_socket speaks it.
    said = {
        name: "".join("".join(m["alignment"]["chars"]) for m in context if m.get("alignment"))
        for name, context in (("one", one), ("two", two))
    }
    assert "Never" not in said["one"]
    assert said["two"].endswith("Goodbye ")


def test_auto_mode_speaks_each_message_as_it_comes(live_url: str, customer: Customer) -> None:
    """auto_mode=true (pipecat's default): each text message is a sentence spoken at once, not
    joined to the next, though neither ends with a space; each piece's alignment ends with a
    space lasting to the end of its audio, so words built across pieces stay apart."""
    url = ws_url(live_url, "multi-stream-input", output_format="pcm_16000", auto_mode="true")

    async def run() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        headers = {"xi-api-key": customer.sandbox_key}
        async with websockets.connect(url, additional_headers=headers) as ws:
            await ws.send(first_message(context_id="turn"))
            await ws.send(json.dumps({"text": SENTENCE, "context_id": "turn"}))
            # Spoken before anything else is sent: no flush, no space after it.
            await read_until(ws, lambda got: bool(got), messages)
            await ws.send(json.dumps({"text": OTHER, "context_id": "turn"}))
            await ws.send(json.dumps({"context_id": "turn", "close_context": True}))
            await read_until(ws, lambda got: bool(got[-1].get("isFinal")), messages)
            await ws.send(json.dumps({"close_socket": True}))
        return messages

    messages = asyncio.run(run())
    pieces = [m["alignment"] for m in messages if m.get("alignment")]
    assert ["".join(piece["chars"]) for piece in pieces] == [f"{SENTENCE} ", f"{OTHER} "]
    for piece, message in zip(pieces, (m for m in messages if m.get("alignment")), strict=True):
        audio_ms = len(base64.b64decode(message["audio"])) * 1000 // (16000 * 2)
        space_end = piece["charStartTimesMs"][-1] + piece["charDurationsMs"][-1]
        assert abs(space_end - audio_ms) <= 2
    # A value that is not a boolean is refused, naming it.
    bad = ws_url(live_url, "multi-stream-input", auto_mode="sometimes")
    message, code = refusal(bad, {"xi-api-key": customer.sandbox_key})
    assert code == 4422
    assert "auto_mode" in message["message"]


def refusal(url: str, headers: dict[str, str], *sent: str) -> tuple[Any, int]:
    """The error message a session ends with, and its close code."""

    async def run() -> tuple[Any, int]:
        async with websockets.connect(url, additional_headers=headers) as ws:
            for message in sent:
                try:
                    await ws.send(message)
                except websockets.ConnectionClosed:  # refused before reading it
                    break
            received: list[dict[str, Any]] = []
            await read_until(ws, lambda got: any("error" in m for m in got), received)
            with pytest.raises(websockets.ConnectionClosed):
                await asyncio.wait_for(ws.recv(), 30)
            assert ws.close_code is not None
            return next(m for m in received if "error" in m), ws.close_code

    return asyncio.run(run())


def test_errors_in_elevenlabs_shape(live_url: str, customer: Customer, db: Database) -> None:
    url = ws_url(live_url, "stream-input", output_format="pcm_16000")
    message, code = refusal(url, {"xi-api-key": "sk_sandbox_wrong"}, first_message())
    assert set(message) == {"message", "error", "code"}
    assert message["error"] in {"invalid_api_key", "malformed_api_key"}
    assert message["code"] == code == 4401
    # The key in the first message instead: a bad one, then an unknown voice.
    message, code = refusal(url, {}, first_message(xi_api_key="sk_sandbox_wrong"))
    assert message["error"] in {"invalid_api_key", "malformed_api_key"}
    assert code == 4401
    unknown = ws_url(live_url, "stream-input", voice_id="no_such_voice")
    message, code = refusal(unknown, {}, first_message(xi_api_key=customer.sandbox_key))
    assert (message["error"], code) == ("voice_not_found", 4404)
    bad_format = ws_url(live_url, "stream-input", output_format="pcm_12345")
    message, code = refusal(bad_format, {"xi-api-key": customer.sandbox_key})
    assert code == 4422
    assert "output_format" in message["message"]
    # Refused before a session opened: nothing charged.
    assert settled(db, customer) == {"available": 1000, "reserved": 0, "consumed": 0}
    # A sixth context ends a session that opened: charged its minimum, as a native one.
    multi = ws_url(live_url, "multi-stream-input", output_format="pcm_16000")
    opened = [json.dumps({"text": " ", "context_id": f"c{i}"}) for i in range(6)]
    message, code = refusal(multi, {"authorization": f"Bearer {customer.sandbox_key}"}, *opened)
    assert (message["error"], code) == ("too_many_contexts", 4422)
    assert settled(db, customer) == {
        "available": 1000 - MINIMUM,
        "reserved": 0,
        "consumed": MINIMUM,
    }
