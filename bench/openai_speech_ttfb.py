"""Time to the first audio byte of the OpenAI-compatible POST /v1/audio/speech (as bytes, and as
server-sent events) against the native POST /api/v1/speech/tts/stream, same text, voice and
MP3 output, in one run (served by `soundstage serve` with its embedded worker); the three are
alternated so that the machine's state is shared. Prints the medians and the ratios (the
OpenAI route should be within 5% of the native one: both wait for the same job's first
sentence).

    .venv/bin/python bench/openai_speech_ttfb.py [--runs 9]
"""

from __future__ import annotations

import argparse
import statistics
import time
from typing import Any

import httpx
from _service import served

TEXT = (
    "The old lighthouse stood at the edge of the cliff, its white paint peeling in the salt "
    "wind. Every evening the keeper climbed the spiral stairs and lit the great lamp."
)


def first_byte(client: httpx.Client, path: str, body: dict[str, Any]) -> float:
    start = time.perf_counter()
    with client.stream("POST", path, json=body) as answer:
        answer.raise_for_status()
        chunks = answer.iter_raw(1024)
        next(chunks)
        elapsed = time.perf_counter() - start
        for _chunk in chunks:  # read to the end: the job is charged, not abandoned
            pass
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    args = parser.parse_args()
    runs: dict[str, list[float]] = {"native": [], "openai": [], "openai_sse": []}
    requests = {
        "native": (
            "/api/v1/speech/tts/stream",
            {"text": TEXT, "voice_id": "voice_joe", "format": "mp3"},
        ),
        "openai": (
            "/v1/audio/speech",
            {"model": "tts-1", "input": TEXT, "voice": "alloy", "response_format": "mp3"},
        ),
        "openai_sse": (
            "/v1/audio/speech",
            {
                "model": "tts-1",
                "input": TEXT,
                "voice": "alloy",
                "response_format": "mp3",
                "stream_format": "sse",
            },
        ),
    }
    with served(demo_catalog=True, credits=100_000) as (client, _data_dir):
        for path, body in requests.values():  # warm up: the model loads once
            first_byte(client, path, body)
        for _ in range(args.runs):
            for name, (path, body) in requests.items():
                runs[name].append(first_byte(client, path, body))
    medians = {name: statistics.median(times) for name, times in runs.items()}
    print(f"voice_joe (alloy), {len(TEXT)} characters, MP3, {args.runs} runs, median")
    for name, value in medians.items():
        print(f"time to first byte, {name:<11} {value * 1000:7.1f} ms")
    print(f"ratio openai / native:     {medians['openai'] / medians['native']:.3f}")
    print(f"ratio openai_sse / native: {medians['openai_sse'] / medians['native']:.3f}")


if __name__ == "__main__":
    main()
