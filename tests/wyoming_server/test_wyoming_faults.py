"""What `soundstage wyoming` does with what it must refuse: no key, a key refused or revoked,
an account without credits, its rate limit, requests past a bound or malformed, a client gone
silent. Each is an `error` event with the HTTP API's code, then the connection is closed;
the server itself serves on."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from fastapi.testclient import TestClient
from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error
from wyoming.event import Event
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeVoice,
)

from soundstage.cli import main
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.speech.tts.schemas import MAX_TEXT_CHARACTERS
from tests.support.factories import Customer, create_api_key, create_customer
from tests.support.processes import REPO_ROOT, free_port, settings_env
from tests.support.wyoming import (
    HOST,
    RATE,
    describe,
    info_of,
    synthesize,
    transcribe,
    wyoming_server,
)

pytestmark = pytest.mark.usefixtures("worker", "demo_catalog")

IDLE_SECONDS = 2
ENV_KEY = "SOUNDSTAGE_WYOMING_API_KEY"


def error_of(event: Event | None) -> Error:
    assert event is not None
    assert Error.is_type(event.type), event
    return Error.from_event(event)


def test_the_command_refuses_to_start_without_a_usable_key(settings: Settings) -> None:
    uri = f"tcp://{HOST}:{free_port()}"
    runner = CliRunner()
    missing = runner.invoke(main, ["wyoming", "--uri", uri], env={ENV_KEY: None})
    assert missing.exit_code == 2
    assert "an API key is required" in missing.stderr
    assert ENV_KEY in missing.stderr
    web = ["wyoming", "--uri", "http://127.0.0.1:10300"]
    address = runner.invoke(main, web, env={ENV_KEY: "sk_sandbox_x"})
    assert address.exit_code == 2
    assert "tcp://HOST:PORT" in address.stderr
    # The key is checked before the server starts, in the database the settings name.
    command = [sys.executable, "-m", "soundstage.cli", "wyoming", "--no-worker", "--uri", uri]
    unknown = subprocess.run(
        command,
        env=settings_env(settings) | {ENV_KEY: "sk_sandbox_nope"},
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert unknown.returncode == 1
    assert "the API key is refused: Invalid API key provided." in unknown.stderr


@pytest.fixture(scope="module")
def broke(db: Database) -> Customer:
    """An account without credits."""
    return create_customer(db, credits_each=0)


@pytest.fixture(scope="module")
def broke_port(
    settings: Settings, worker: subprocess.Popen[bytes], broke: Customer
) -> Iterator[int]:
    """A server as the account without credits, which closes a silent connection soon."""
    idle = {"SOUNDSTAGE_WYOMING__IDLE_TIMEOUT_SECONDS": str(IDLE_SECONDS)}
    with wyoming_server(settings, broke.sandbox_key, **idle) as listening:
        yield listening


def test_an_account_without_credits_gets_error_events(
    broke_port: int, client: TestClient, broke: Customer
) -> None:
    speech = asyncio.run(synthesize(broke_port, "Turn on the lights.", "voice_joe"))
    assert speech.types == ["error"]
    assert error_of(speech.events[0]).code == "insufficient_credits"
    events = asyncio.run(transcribe(broke_port, bytes(RATE * 2)))
    assert [event.type for event in events] == ["error"]
    assert error_of(events[0]).code == "insufficient_credits"
    # The transcription's job ran and failed unpaid, listed under the account.
    jobs = client.get("/api/v1/jobs?kind=stt", headers=broke.auth()).json()["data"]
    assert [(job["status"], job["credits_used"]) for job in jobs] == [("failed", 0)]
    balance = client.get("/api/v1/credits", headers=broke.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (0, 0)


async def _refused_synthesis(port: int, text: str, voice: str | None) -> tuple[Error, bool]:
    """A `synthesize` refused: its error, and whether the server closed the connection."""
    async with AsyncTcpClient(HOST, port, read_timeout=30) as client:
        chosen = SynthesizeVoice(name=voice) if voice else None
        await client.write_event(Synthesize(text=text, voice=chosen).event())
        error = error_of(await client.read_event())
        return error, await client.read_event() is None


@pytest.mark.parametrize(
    ("text", "voice", "code"),
    [
        ("Hello.", "voice_nobody", "voice_not_found"),
        ("a" * (MAX_TEXT_CHARACTERS + 1), "voice_joe", "parameter_invalid"),
        ("   ", "voice_joe", "parameter_invalid"),
    ],
)
def test_a_refused_synthesis_is_an_error_event_then_the_end(
    broke_port: int, text: str, voice: str, code: str
) -> None:
    error, closed = asyncio.run(_refused_synthesis(broke_port, text, voice))
    assert error.code == code, error
    assert closed


def test_a_streamed_text_past_the_bound_is_refused_at_the_chunk_that_passes_it(
    broke_port: int,
) -> None:
    async def stream() -> tuple[Error, list[str]]:
        async with AsyncTcpClient(HOST, broke_port, read_timeout=30) as client:
            voice = SynthesizeVoice(name="voice_joe")
            await client.write_event(SynthesizeStart(voice=voice).event())
            await client.write_event(SynthesizeChunk(text="Hello").event())
            # Refused as it arrives, before any of it is cut into pieces to speak.
            text = "word " * (MAX_TEXT_CHARACTERS // 5)
            await client.write_event(SynthesizeChunk(text=text).event())
            error = error_of(await client.read_event())
            await client.write_event(SynthesizeStop().event())
            after = []
            while (event := await client.read_event()) is not None:
                after.append(event.type)
            return error, after

    error, after = asyncio.run(stream())
    assert error.code == "parameter_invalid"
    assert "5,000 characters" in error.text
    assert after == []  # no `synthesize-stopped`: the request ended with its error


async def _refused_audio(port: int, start: AudioStart, chunk: bytes) -> tuple[Error, bool]:
    async with AsyncTcpClient(HOST, port, read_timeout=30) as client:
        await client.write_event(Transcribe(language="en").event())
        await client.write_event(start.event())
        audio = AudioChunk(rate=start.rate, width=start.width, channels=start.channels, audio=chunk)
        await client.write_event(audio.event())
        error = error_of(await client.read_event())
        await client.write_event(AudioStop().event())
        return error, await client.read_event() is None


@pytest.mark.parametrize(
    ("start", "chunk", "code"),
    [
        (AudioStart(rate=96_000, width=2, channels=1), bytes(4), "audio_out_of_range"),
        (AudioStart(rate=RATE, width=2, channels=6), bytes(12), "audio_out_of_range"),
        (AudioStart(rate=RATE, width=2, channels=1), bytes(3), "malformed_request"),
        # An event whose payload passes 1 MiB is refused from its header.
        (AudioStart(rate=RATE, width=2, channels=1), bytes(1024 * 1024 + 2), "request_too_large"),
    ],
)
def test_refused_audio_is_an_error_event_then_the_end(
    broke_port: int, start: AudioStart, chunk: bytes, code: str
) -> None:
    error, closed = asyncio.run(_refused_audio(broke_port, start, chunk))
    assert error.code == code, error
    assert closed


def test_an_unknown_model_is_refused(broke_port: int) -> None:
    async def ask() -> Error:
        async with AsyncTcpClient(HOST, broke_port, read_timeout=30) as client:
            await client.write_event(Transcribe(name="large-v9", language="en").event())
            return error_of(await client.read_event())

    error = asyncio.run(ask())
    assert error.code == "unknown_model"
    assert "whisper-base" in error.text


def test_a_client_gone_silent_mid_stream_is_told_and_closed(broke_port: int) -> None:
    async def go_silent() -> tuple[Error, bool]:
        async with AsyncTcpClient(HOST, broke_port, read_timeout=IDLE_SECONDS + 10) as client:
            await client.write_event(Transcribe(language="en").event())
            await client.write_event(AudioStart(rate=RATE, width=2, channels=1).event())
            error = error_of(await client.read_event())
            return error, await client.read_event() is None

    error, closed = asyncio.run(go_silent())
    assert error.code == "session_timeout"
    assert closed
    # The server serves on.
    assert info_of(asyncio.run(describe(broke_port))).tts


def test_a_revoked_key_gets_error_events(
    settings: Settings, db: Database, client: TestClient
) -> None:
    customer = create_customer(db, credits_each=1000)
    create_api_key(db, customer, "production")  # an account's last key cannot be revoked
    # The production key: its account's production environment, looked up on each request.
    cache = {"SOUNDSTAGE_ACCOUNTS__KEY_CACHE_SECONDS": "0"}
    with wyoming_server(settings, customer.production_key, **cache) as port:
        assert info_of(asyncio.run(describe(port))).tts
        revoked = client.post(
            f"/api/v1/keys/{customer.production_key_id}/revoke",
            headers=customer.auth("production"),
        )
        assert revoked.status_code == 200, revoked.text
        error = error_of(asyncio.run(describe(port)))
        assert (error.code, error.text) == ("api_key_revoked", "This API key has been revoked.")
        speech = asyncio.run(synthesize(port, "Hello.", "voice_joe"))
        assert speech.types == ["error"]
        assert error_of(speech.events[0]).code == "api_key_revoked"


def test_the_accounts_rate_limit_is_an_error_event(settings: Settings, db: Database) -> None:
    customer = create_customer(db)
    limit = {"SOUNDSTAGE_RATE_LIMITS__SANDBOX": "3/minute"}
    with wyoming_server(settings, customer.sandbox_key, **limit) as port:
        for _ in range(3):
            assert info_of(asyncio.run(describe(port))).tts
        error = error_of(asyncio.run(describe(port)))
        assert error.code == "rate_limited"
        assert "3 per 60 s" in error.text
