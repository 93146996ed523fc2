"""`soundstage wyoming` driven by the `wyoming` package's own client as Home Assistant drives
it: the catalog described, real speech transcribed, voices synthesized and heard back, streams
refused at their bound, two clients at once, and what it all cost the key's account."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from wyoming.asr import Transcribe, Transcript, TranscriptChunk
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.error import Error

from soundstage.config import Settings
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines.transcribers.base import Transcriber
from soundstage.media.audio import decode
from tests.support.audio_fixtures import Clip, librivox_clips, word_error_rate
from tests.support.factories import Customer
from tests.support.wyoming import (
    CHUNK_BYTES,
    HOST,
    RATE,
    audio_of,
    describe,
    info_of,
    pcm16,
    synthesize,
    synthesize_streamed,
    transcribe,
)

pytestmark = pytest.mark.usefixtures("worker", "demo_catalog")

SPOKEN = "The kitchen lights are on and the front door is locked."
# A Piper, a Festival and a flite voice: three engines behind one protocol.
VOICES = ("voice_joe", "voice_sally", "voice_alan")
# Heard back by whisper-base: a wide margin (the English voices measure 0-4% on the
# normalization sentences), which silence, noise or another text would still fail.
HEARD_MAX_WER = 0.35
PCM_FORMAT = (22_050, 2, 1)


@pytest.fixture(scope="module")
def clip() -> Clip:
    """The longest LibriVox clip (7.1 s)."""
    return max(librivox_clips(), key=lambda found: len(found.text))


@pytest.fixture(scope="module")
def clip_pcm(clip: Clip) -> bytes:
    """The clip as Home Assistant streams a microphone: 16 kHz 16-bit mono."""
    return pcm16(decode(clip.path, sample_rate=RATE, channels=1))


def catalog_voices(client: TestClient, account: Customer) -> dict[str, dict[str, Any]]:
    """Every voice GET /api/v1/voices lists, by id."""
    found: dict[str, dict[str, Any]] = {}
    query = "limit=100"
    while True:
        page = client.get(f"/api/v1/voices?{query}", headers=account.auth()).json()
        found |= {voice["voice_id"]: voice for voice in page["data"]}
        if not page["has_more"]:
            return found
        query = f"limit=100&starting_after={page['data'][-1]['voice_id']}"


def test_describe_lists_every_catalog_voice_and_the_transcription_model(
    port: int, client: TestClient, account: Customer, settings: Settings
) -> None:
    info = info_of(asyncio.run(describe(port)))
    listed = catalog_voices(client, account)
    (tts,) = info.tts
    assert len(listed) >= 41
    assert {voice.name for voice in tts.voices} == set(listed)
    for voice in tts.voices:
        catalog = listed[voice.name]
        assert voice.languages == [catalog["language"]]
        assert voice.description is not None
        assert voice.description.startswith(catalog["name"])
        assert voice.attribution.name == catalog["creator"]["display_name"]
        assert voice.installed
    assert tts.supports_synthesize_streaming
    (asr,) = info.asr
    (model,) = asr.models
    assert model.name == settings.stt.default_model
    assert {"en", "es", "de", "ja"} <= set(model.languages)
    assert asr.supports_transcript_streaming


@pytest.mark.slow
def test_real_speech_is_transcribed(port: int, clip: Clip, clip_pcm: bytes) -> None:
    events = asyncio.run(transcribe(port, clip_pcm))
    assert [event.type for event in events] == [
        "transcript-start",
        "transcript-chunk",
        "transcript",
        "transcript-stop",
    ]
    transcript = Transcript.from_event(events[2])
    assert word_error_rate(clip.text, transcript.text) <= 0.05, transcript.text
    assert transcript.language == "en"
    assert TranscriptChunk.from_event(events[1]).text == transcript.text


@pytest.mark.slow
@pytest.mark.parametrize("voice", VOICES)
def test_each_voice_speaks_what_it_is_given(
    port: int, transcriber: Transcriber, voice: str
) -> None:
    speech = asyncio.run(synthesize(port, SPOKEN, voice))
    assert speech.types == ["audio-start", "audio-stop"], speech.events[-1]
    assert speech.formats == [PCM_FORMAT]
    audio = audio_of(speech.pcm, PCM_FORMAT[0])
    assert 1_500 < audio.duration_ms < 10_000
    heard = transcriber.transcribe(audio, language="en", word_timestamps=False)
    assert word_error_rate(SPOKEN, heard.text) <= HEARD_MAX_WER, (voice, heard.text)


@pytest.mark.slow
def test_a_streamed_text_is_spoken_sentence_by_sentence(
    port: int, transcriber: Transcriber
) -> None:
    chunks = ["The front door ", "is locked. The kitchen", " lights are on. 👍"]
    speech = asyncio.run(synthesize_streamed(port, chunks, "voice_joe"))
    # One piece per sentence (the emoji, with nothing to say, unspoken), then the end.
    assert speech.types == [
        "audio-start",
        "audio-stop",
        "audio-start",
        "audio-stop",
        "synthesize-stopped",
    ], speech.events[-1]
    assert speech.formats == [PCM_FORMAT, PCM_FORMAT]
    heard = transcriber.transcribe(
        audio_of(speech.pcm, PCM_FORMAT[0]), language="en", word_timestamps=False
    )
    said = "The front door is locked. The kitchen lights are on."
    assert word_error_rate(said, heard.text) <= HEARD_MAX_WER, heard.text


def test_an_empty_audio_stream_is_a_clear_error(port: int) -> None:
    events = asyncio.run(transcribe(port, b""))
    assert [event.type for event in events] == ["error"]
    error = Error.from_event(events[0])
    assert error.code == "invalid_media"
    assert "No audio was received" in error.text


async def _twenty_minutes(port: int) -> tuple[Error, float, bool]:
    """Stream 20 minutes of noise as fast as the connection takes it, reading meanwhile:
    the error, how much audio had been sent when it came, and whether the server then
    closed the connection (once the stream's end was sent)."""
    noise = bytes(range(256)) * (CHUNK_BYTES // 256)
    total = 20 * 60 * RATE * 2
    sent = 0
    async with AsyncTcpClient(HOST, port, read_timeout=60) as client:
        await client.write_event(Transcribe(language="en").event())
        await client.write_event(AudioStart(rate=RATE, width=2, channels=1).event())
        first = asyncio.create_task(client.read_event())
        while sent < total and not first.done():
            chunk = AudioChunk(rate=RATE, width=2, channels=1, audio=noise)
            await client.write_event(chunk.event())
            sent += len(noise)
            # A write returns without yielding while the socket takes it (and the server,
            # dropping the rest once it has answered, keeps taking it): let the reader see
            # the answer as soon as it is there, not only when the socket is full.
            await asyncio.sleep(0)
        event = await first
        sent_seconds = sent / (RATE * 2)
        await client.write_event(AudioStop().event())
        closed = await client.read_event() is None
    assert event is not None
    assert Error.is_type(event.type), event
    return Error.from_event(event), sent_seconds, closed


def test_a_twenty_minute_stream_is_refused_early(port: int, settings: Settings) -> None:
    started = time.monotonic()
    error, sent_seconds, closed = asyncio.run(_twenty_minutes(port))
    assert error.code == "media_too_long"
    assert "300 s" in error.text
    # The error came while the stream was still being sent (what was sent past the bound
    # sat in the connection's buffers), and nothing of it is left on disk.
    assert sent_seconds < 20 * 60
    assert closed
    assert time.monotonic() - started < 60
    assert not list((settings.data_dir / "tmp").glob("wyoming-*"))


@pytest.mark.slow
def test_two_clients_at_once(
    port: int, clip: Clip, clip_pcm: bytes, transcriber: Transcriber
) -> None:
    async def both() -> tuple[list[Any], Any]:
        return await asyncio.gather(
            transcribe(port, clip_pcm), synthesize(port, SPOKEN, "voice_joe")
        )

    events, speech = asyncio.run(both())
    transcript = Transcript.from_event(events[2])
    assert word_error_rate(clip.text, transcript.text) <= 0.05, transcript.text
    assert speech.types == ["audio-start", "audio-stop"]
    heard = transcriber.transcribe(
        audio_of(speech.pcm, PCM_FORMAT[0]), language="en", word_timestamps=False
    )
    assert word_error_rate(SPOKEN, heard.text) <= HEARD_MAX_WER, heard.text


def _jobs(client: TestClient, account: Customer) -> dict[str, dict[str, Any]]:
    page = client.get("/api/v1/jobs?limit=100", headers=account.auth()).json()
    return {job["job_id"]: job for job in page["data"]}


def _balance(client: TestClient, account: Customer) -> int:
    credits = client.get("/api/v1/credits", headers=account.auth()).json()
    assert credits["reserved"] == 0
    return int(credits["balance"])


@pytest.mark.slow
def test_credits_are_charged_and_the_jobs_listed_under_the_account(
    port: int, client: TestClient, account: Customer, clip_pcm: bytes
) -> None:
    before, balance = _jobs(client, account), _balance(client, account)
    speech = asyncio.run(synthesize(port, SPOKEN, "voice_joe"))
    assert speech.types == ["audio-start", "audio-stop"]
    events = asyncio.run(transcribe(port, clip_pcm))
    assert events[-1].type == "transcript-stop"
    new = [job for job_id, job in _jobs(client, account).items() if job_id not in before]
    by_kind = {job["kind"]: job for job in new}
    assert len(new) == 2, new
    assert sorted(by_kind) == ["stt", "tts"], new
    assert all(job["status"] == "completed" for job in new)
    assert all(job["environment"] == "sandbox" for job in new)
    # Text to speech: a credit a character, as spoken; speech to text: by the second.
    assert by_kind["tts"]["credits_used"] == len(SPOKEN)
    duration_ms = by_kind["stt"]["result"]["duration_ms"]
    assert duration_ms == pytest.approx(len(clip_pcm) / (RATE * 2) * 1000, abs=50)
    assert by_kind["stt"]["credits_used"] == rates.for_duration(Operation.STT, duration_ms)
    spent = by_kind["tts"]["credits_used"] + by_kind["stt"]["credits_used"]
    assert _balance(client, account) == balance - spent
