"""`soundstage wyoming` for the tests: a real server process on a free loopback port with the
test settings and a key, and the requests Home Assistant makes, sent with the `wyoming`
package's own client (AsyncTcpClient)."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

import numpy as np
from wyoming.asr import Transcribe
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncTcpClient
from wyoming.event import Event
from wyoming.info import Describe, Info
from wyoming.tts import (
    Synthesize,
    SynthesizeChunk,
    SynthesizeStart,
    SynthesizeStop,
    SynthesizeVoice,
)

from soundstage.config import Settings
from soundstage.media.audio import Audio
from tests.support.processes import REPO_ROOT, free_port, settings_env, wait_for_port

HOST: Final = "127.0.0.1"
# Home Assistant's microphone audio: 16 kHz, 16-bit, mono, 1,024 samples a chunk.
RATE: Final = 16_000
WIDTH: Final = 2
CHANNELS: Final = 1
CHUNK_BYTES: Final = 1024 * WIDTH * CHANNELS
# A test waits this long for any one event (a model's first load included).
READ_TIMEOUT: Final = 120.0
ENDS: Final = frozenset({"transcript-stop", "synthesize-stopped", "error"})


@contextmanager
def wyoming_server(settings: Settings, api_key: str, **extra_env: str) -> Iterator[int]:
    """`soundstage wyoming --no-worker` (the `worker` fixture runs the jobs) on a free port
    as `api_key` (given in SOUNDSTAGE_WYOMING_API_KEY), with these settings and `extra_env`:
    yields the port; stopped with SIGTERM."""
    port = free_port()
    env = settings_env(settings)
    env["SOUNDSTAGE_WYOMING_API_KEY"] = api_key
    env.update(extra_env)
    command = [sys.executable, "-m", "soundstage.cli", "wyoming", "--no-worker"]
    server = subprocess.Popen([*command, "--uri", f"tcp://{HOST}:{port}"], env=env, cwd=REPO_ROOT)
    try:
        wait_for_port(port, timeout=60)
        yield port
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait(10)


def pcm16(audio: Audio) -> bytes:
    """Float samples (mono) as 16-bit little-endian PCM."""
    mono = audio.samples[:, 0]
    return (np.clip(mono, -1.0, 1.0) * 32767).astype("<i2").tobytes()


def audio_of(pcm: bytes, rate: int) -> Audio:
    """16-bit mono PCM as float samples."""
    samples = np.frombuffer(pcm, dtype="<i2").astype(np.float32) / np.float32(32768)
    return Audio(samples.reshape(-1, 1), rate)


async def _read_until_end(client: AsyncTcpClient, ends: frozenset[str] = ENDS) -> list[Event]:
    """Events until one of `ends` (or the server closes the connection)."""
    events: list[Event] = []
    while True:
        event = await client.read_event()
        if event is None:
            return events
        events.append(event)
        if event.type in ends:
            return events


async def describe(port: int) -> Event | None:
    async with AsyncTcpClient(HOST, port, read_timeout=READ_TIMEOUT) as client:
        await client.write_event(Describe().event())
        answer: Event | None = await client.read_event()
        return answer


def info_of(event: Event | None) -> Info:
    assert event is not None
    assert Info.is_type(event.type), event
    return Info.from_event(event)


async def transcribe(
    port: int, pcm: bytes, *, language: str | None = "en", rate: int = RATE
) -> list[Event]:
    """Home Assistant's speech-to-text request: `transcribe`, the audio in chunks,
    `audio-stop`; the events answered, to `transcript-stop` or an error."""
    async with AsyncTcpClient(HOST, port, read_timeout=READ_TIMEOUT) as client:
        await client.write_event(Transcribe(language=language).event())
        await client.write_event(AudioStart(rate=rate, width=WIDTH, channels=CHANNELS).event())
        for start in range(0, len(pcm), CHUNK_BYTES):
            piece = pcm[start : start + CHUNK_BYTES]
            chunk = AudioChunk(rate=rate, width=WIDTH, channels=CHANNELS, audio=piece)
            await client.write_event(chunk.event())
        await client.write_event(AudioStop().event())
        return await _read_until_end(client)


@dataclass
class Speech:
    """What a synthesis sent back."""

    events: list[Event]
    # Each audio-start's format (rate, width, channels), in order.
    formats: list[tuple[int, int, int]] = field(default_factory=list)
    # The PCM of each audio-start .. audio-stop.
    pieces: list[bytes] = field(default_factory=list)

    @property
    def types(self) -> list[str]:
        return [event.type for event in self.events if event.type != "audio-chunk"]

    @property
    def pcm(self) -> bytes:
        return b"".join(self.pieces)


def speech_of(events: list[Event]) -> Speech:
    speech = Speech(events)
    for event in events:
        if AudioStart.is_type(event.type):
            start = AudioStart.from_event(event)
            speech.formats.append((start.rate, start.width, start.channels))
            speech.pieces.append(b"")
        elif AudioChunk.is_type(event.type):
            chunk = AudioChunk.from_event(event)
            assert (chunk.rate, chunk.width, chunk.channels) == speech.formats[-1]
            speech.pieces[-1] += chunk.audio
    return speech


async def synthesize(port: int, text: str, voice: str | None = None) -> Speech:
    """Home Assistant's text-to-speech request: `synthesize` with a voice name; the events
    answered, to `audio-stop` or an error."""
    async with AsyncTcpClient(HOST, port, read_timeout=READ_TIMEOUT) as client:
        chosen = SynthesizeVoice(name=voice) if voice else None
        await client.write_event(Synthesize(text=text, voice=chosen).event())
        return speech_of(await _read_until_end(client, ENDS | {"audio-stop"}))


async def synthesize_streamed(port: int, chunks: Sequence[str], voice: str) -> Speech:
    """Home Assistant's streamed text-to-speech (an LLM's answer as it is written):
    `synthesize-start`, the text in chunks, the whole `synthesize` (for older servers),
    `synthesize-stop`; the events answered, to `synthesize-stopped` or an error."""
    async with AsyncTcpClient(HOST, port, read_timeout=READ_TIMEOUT) as client:
        chosen = SynthesizeVoice(name=voice)
        await client.write_event(SynthesizeStart(voice=chosen).event())
        for text in chunks:
            await client.write_event(SynthesizeChunk(text=text).event())
        await client.write_event(Synthesize(text="".join(chunks), voice=chosen).event())
        await client.write_event(SynthesizeStop().event())
        return speech_of(await _read_until_end(client))
