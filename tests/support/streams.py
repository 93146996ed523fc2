"""Job streams seen from outside: a TTS stream read through a live server, and a look into
the Redis that holds streams (jobs.streams.redis_streams), typed: what keys exist, their
expiry, their entries."""

from __future__ import annotations

import io
from typing import cast

import av
import httpx
import redis

from tests.support.factories import Customer


def stream_tts(base_url: str, customer: Customer, text: str) -> tuple[str, float]:
    """POST /api/v1/speech/tts/stream (voice_joe, MP3) read whole: the job id and the seconds
    of audio the MP3 decodes to."""
    with httpx.stream(
        "POST",
        base_url + "/api/v1/speech/tts/stream",
        json={"voice_id": "voice_joe", "text": text, "format": "mp3"},
        headers=customer.auth(),
        timeout=120,
    ) as response:
        assert response.status_code == 200, response.read()
        job_id = response.headers["soundstage-job-id"]
        data = response.read()
    with av.open(io.BytesIO(data), "r") as container:
        stream = container.streams.audio[0]
        seconds = sum(f.samples for f in container.decode(stream)) / stream.rate
    return job_id, seconds


Entry = tuple[bytes, dict[bytes, bytes]]


class RedisLook:
    def __init__(self, url: str) -> None:
        self.client = redis.Redis.from_url(url)

    def exists(self, key: str) -> bool:
        return bool(self.client.exists(key))

    def ttl(self, key: str) -> int:
        """Seconds the key has left (-2: no key, -1: no expiry)."""
        return cast(int, self.client.ttl(key))

    def expire(self, key: str, seconds: int) -> None:
        self.client.expire(key, seconds)

    def entries(self, key: str) -> list[Entry]:
        return cast(list[Entry], self.client.xrange(key))

    def length(self, key: str) -> int:
        return cast(int, self.client.xlen(key))

    def close(self) -> None:
        self.client.close()
