"""Helpers for the OpenAI-compatible API's tests: the official SDK's client for a live server,
the duration of the audio it answers, and the server-sent events of a speech stream, read by
the SDK's own SSE decoder."""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from typing import Any

import av
import openai
from openai._streaming import SSEDecoder

PCM_RATE = 24_000


def sdk_client(live_url: str, api_key: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=live_url + "/v1", api_key=api_key, max_retries=0, timeout=120)


def async_sdk_client(live_url: str, api_key: str) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(
        base_url=live_url + "/v1", api_key=api_key, max_retries=0, timeout=120
    )


def audio_seconds(data: bytes, response_format: str) -> float:
    """How long the audio lasts, decoded with PyAV (pcm: raw 24 kHz 16-bit mono)."""
    if response_format == "pcm":
        assert len(data) % 2 == 0
        return len(data) / 2 / PCM_RATE
    frames = 0
    rate = 0
    with av.open(io.BytesIO(data), mode="r") as container:
        for frame in container.decode(audio=0):
            frames += frame.samples
            rate = frame.sample_rate
    assert rate > 0, "no audio decoded"
    return frames / rate


def sse_events(chunks: Iterable[bytes]) -> list[dict[str, Any]]:
    """Each event's JSON data, as the SDK's SSE decoder reads the stream."""
    return [json.loads(event.data) for event in SSEDecoder().iter_bytes(iter(chunks))]
