"""What the vendors' realtime transcription tests share: the LibriVox speech as raw PCM or
G.711 at a client's rate, cut into chunks, and a raw `websockets` client's messages read
until the test has what it waits for (or the server closes); and a short ElevenLabs
stream-input session that leaves a live server's realtime slot warm."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import soxr
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from tests.support.realtime_audio import RATE, Session

CHUNK_MS = 100
# What LiveKit's TTS classes are asked to say: 25 words, so that the 10% bound on what whisper
# hears back allows two misheard (one sentence of 14 allowed one: "fishermen" heard
# "fisherman" and "boat" "bullet" failed a run, though every word was said). The second is
# the voice aliases' (tests/compat/test_voice_aliases.py), heard right from every English voice.
FRAMEWORK_TEXT = (
    "The boat leaves the harbor at noon, and the fishermen bring their nets home. "
    "Please call me back this afternoon when you have a moment."
)


def pcm_at(session: Session, rate: int) -> bytes:
    """The session's audio as 16-bit little-endian mono PCM at `rate`."""
    samples = session.samples if rate == RATE else soxr.resample(session.samples, RATE, rate)
    pcm: bytes = (np.clip(samples, -1, 1) * 32767).astype("<i2").tobytes()
    return pcm


def g711_8k(session: Session, decode: np.ndarray[Any, np.dtype[np.float32]]) -> bytes:
    """The session's audio at 8 kHz in a G.711 law, given its table (each byte's linear
    value, -1..1): each sample as the byte of the nearest value."""
    samples = np.clip(soxr.resample(session.samples, RATE, 8000), -1, 1)
    order = np.argsort(decode)
    values = decode[order]
    upper = np.clip(np.searchsorted(values, samples), 1, len(values) - 1)
    nearer_below = samples - values[upper - 1] < values[upper] - samples
    index = np.where(nearer_below, upper - 1, upper)
    coded: bytes = order[index].astype(np.uint8).tobytes()
    return coded


def chunks(data: bytes, rate: int, width: int = 2, ms: int = CHUNK_MS) -> list[str]:
    """`data` in base64 chunks of `ms` each."""
    step = rate * ms // 1000 * width
    return [base64.b64encode(data[i : i + step]).decode() for i in range(0, len(data), step)]


async def read_until(
    ws: ClientConnection,
    done: Callable[[list[dict[str, Any]]], bool],
    into: list[dict[str, Any]],
    timeout: float = 120,
) -> list[dict[str, Any]]:
    """Read JSON messages into `into` until `done(into)` or the server closes."""

    async def read() -> None:
        while not done(into):
            try:
                raw = await ws.recv()
            except ConnectionClosed:
                return
            into.append(json.loads(raw))

    await asyncio.wait_for(read(), timeout)
    return into


def speak_once(live_url: str, key: str, voice_id: str, output_format: str) -> bytes:
    """One short ElevenLabs stream-input session with `voice_id` at `output_format`: its audio.

    A live server starts a realtime slot process on its first session, and the session loads
    its voice there: a server in use has both done long before. A client whose own patience
    is shorter than that first start on a loaded test machine (pipecat gives a context 3 s to
    its first audio) is tested against a server in that state: its slot started, the voice
    loaded. The slot freed last is the next one taken (realtime.slots.SlotPool)."""
    base = live_url.replace("http://", "ws://", 1).replace("https://", "wss://", 1)
    path = f"/elevenlabs/v1/text-to-speech/{voice_id}/stream-input"
    url = f"{base}{path}?output_format={output_format}"

    async def run() -> bytes:
        messages: list[dict[str, Any]] = []
        async with connect(url, additional_headers={"xi-api-key": key}) as ws:
            await ws.send(json.dumps({"text": " "}))
            await ws.send(json.dumps({"text": "Hello."}))
            await ws.send(json.dumps({"text": ""}))
            await read_until(ws, lambda got: bool(got) and bool(got[-1].get("isFinal")), messages)
        return b"".join(base64.b64decode(m["audio"]) for m in messages if m.get("audio"))

    return asyncio.run(run())
