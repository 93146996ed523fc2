"""The compatible surfaces against the native API: the same text, voice and codec (MP3)
through POST /api/v1/speech/tts/stream (native), POST /v1/audio/speech (OpenAI) and
POST /elevenlabs/v1/text-to-speech/{voice_id}/stream (ElevenLabs), interleaved in one run
against one `soundstage serve`. Prints, per surface, the time to the first audio byte and the
real-time factor (whole answer / audio duration), and each ratio to the native endpoint
(issue 20 expects <= 1.05).

    .venv/bin/python bench/compat_tts.py [--voice voice_joe] [--runs 5] [--characters 400]
"""

from __future__ import annotations

import argparse
import io
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import av
import httpx
from _service import served

TEXT = (
    "The old lighthouse stood at the edge of the cliff, its white paint peeling in the salt "
    "wind. Every evening the keeper climbed the spiral stairs, counted the steps out of habit, "
    "and lit the great lamp that swept across the dark water. Ships passing in the night "
    "never saw him, but they trusted the light. One winter a storm tore the shutters from "
    "the windows and flooded the lower rooms. The keeper worked through the night, bailing "
    "water and keeping the flame alive. By morning the sea had calmed, and a fishing boat "
    "that had been lost in the fog found its way home."
)


@dataclass
class Surface:
    name: str
    request: Callable[[httpx.Client, str, str], httpx.Request]
    first_byte: list[float] = field(default_factory=list)
    rtf: list[float] = field(default_factory=list)


def native(client: httpx.Client, text: str, voice: str) -> httpx.Request:
    body = {"text": text, "voice_id": voice, "format": "mp3"}
    return client.build_request("POST", "/api/v1/speech/tts/stream", json=body)


def openai(client: httpx.Client, text: str, voice: str) -> httpx.Request:
    body = {"model": "tts-1", "input": text, "voice": voice, "response_format": "mp3"}
    return client.build_request("POST", "/v1/audio/speech", json=body)


def elevenlabs(client: httpx.Client, text: str, voice: str) -> httpx.Request:
    return client.build_request(
        "POST",
        f"/elevenlabs/v1/text-to-speech/{voice}/stream",
        params={"output_format": "mp3_44100_128"},
        json={"text": text},
    )


def duration_seconds(data: bytes) -> float:
    with av.open(io.BytesIO(data)) as container:
        stream = container.streams.audio[0]
        samples = sum(frame.samples for frame in container.decode(stream))
        return samples / stream.rate


def measure(client: httpx.Client, surface: Surface, text: str, voice: str) -> None:
    start = time.perf_counter()
    response = client.send(surface.request(client, text, voice), stream=True)
    try:
        response.raise_for_status()
        chunks = response.iter_raw()
        data = bytearray(next(chunks))
        surface.first_byte.append(time.perf_counter() - start)
        for chunk in chunks:
            data += chunk
        elapsed = time.perf_counter() - start
    finally:
        response.close()
    surface.rtf.append(elapsed / duration_seconds(bytes(data)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--voice", default="voice_joe")
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--characters", type=int, default=400)
    args = parser.parse_args()
    text = TEXT[: args.characters]
    surfaces = [
        Surface("native", native),
        Surface("elevenlabs", elevenlabs),
    ]
    with served(demo_catalog=True, credits=1_000_000) as (client, _data_dir):
        for surface in surfaces:  # warm up every path (and the worker's engine)
            measure(client, surface, "Warm up.", args.voice)
            surface.first_byte.clear()
            surface.rtf.clear()
        for run in range(args.runs):
            # Each run in a rotated order, so no surface always goes first.
            for surface in surfaces[run % 2 :] + surfaces[: run % 2]:
                measure(client, surface, text, args.voice)
    base_first = statistics.median(surfaces[0].first_byte)
    base_rtf = statistics.median(surfaces[0].rtf)
    print(f"voice {args.voice}, {len(text)} characters, MP3, {args.runs} runs each, median")
    for surface in surfaces:
        first, rtf = statistics.median(surface.first_byte), statistics.median(surface.rtf)
        print(
            f"{surface.name:>10}: first byte {first * 1000:6.0f} ms "
            f"(ratio {first / base_first:.3f})   RTF {rtf:.4f} (ratio {rtf / base_rtf:.3f})"
        )


if __name__ == "__main__":
    main()
