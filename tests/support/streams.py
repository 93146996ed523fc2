"""Job streams seen from outside: a TTS stream read through a live server, a client that
hangs up part way and what it was charged, and a look into the Redis that holds streams
(jobs.streams.redis_streams), typed: what keys exist, their expiry, their entries."""

from __future__ import annotations

import io
import time
from collections.abc import Iterable
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


# A text whose last sentence is short (the case that was free: its audio held back until the
# charge, hanging up before it cost nothing), its others of about the same length, so that
# 50% and 90% of the audio fall inside a sentence, not at a boundary.
HANG_UP_TEXT = (
    "The keeper climbed the narrow stairs before dawn. "
    "Outside, the sea was grey and restless today. "
    "He checked the lamp and wiped the glass clean. "
    "A fishing boat rounded the point in the cold. "
    "By seven the fog had lifted from the harbour. "
    "Done."
)


def read_until(chunks: Iterable[bytes], wanted: int) -> int:
    """Read `chunks` until at least `wanted` bytes have come (the caller then hangs up):
    how many came."""
    got = 0
    for chunk in chunks:
        got += len(chunk)
        if got >= wanted:
            break
    return got


def charges_of(base_url: str, customer: Customer, job_id: str) -> list[int]:
    """Once the job has ended (cancelled by the hang-up, or completed): the credits its
    captures took, from the ledger (GET /api/v1/credits/ledger); and nothing is left
    reserved."""
    headers = customer.auth()
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as http:
        deadline = time.monotonic() + 60
        while (job := http.get(f"/api/v1/jobs/{job_id}").json())["status"] not in (
            "cancelled",
            "completed",
            "failed",
        ):
            assert time.monotonic() < deadline, job
            time.sleep(0.05)
        ledger = http.get("/api/v1/credits/ledger", params={"limit": 100}).json()["data"]
        assert http.get("/api/v1/credits").json()["reserved"] == 0
    return [t["amount"] for t in ledger if t["type"] == "capture" and t["reference"] == job_id]


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
