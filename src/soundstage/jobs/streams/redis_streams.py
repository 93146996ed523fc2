"""Streams through Redis, when `redis_url` is set: the worker and the API node relaying its
stream may be different machines with data directories of their own.

One Redis stream per job, `<namespace>:stream:<job>`. Its first entry (`start`) is added by
a script that refuses a stream that exists, which is how a stream is written once; then
entries of at most CHUNK_BYTES (`d`: the bytes), in order; last, in one transaction with the
held-back bytes, the `end` entry. The relay reads with XREAD BLOCK from the first entry, so a
relay that attaches late still gets every byte, and removes what it has relayed (XTRIM MINID:
the relay is the stream's only reader), so Redis holds what the client has not taken yet.

Bounds: a stream of more than `jobs.stream_max_bytes` fails its job (StreamInterrupted)
rather than losing bytes; every XADD carries an approximate MAXLEN that the writer's own
bound keeps it from ever reaching (a backstop against a runaway writer, never a truncation).
Keys expire: STALE_AFTER_SECONDS after the last write while written (a worker that died),
ENDED_GRACE_SECONDS after the end mark, pushed back on each of the relay's reads while it
still reads (EXPIRE GT, Redis 7), and the relay deletes the key when it is done.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import weakref
from typing import Final

import redis
import redis.asyncio as aioredis

from soundstage.config import Settings
from soundstage.core.errors import ServiceUnavailable
from soundstage.jobs.streams.base import (
    ENDED_GRACE_SECONDS,
    STALE_AFTER_SECONDS,
    StreamInterrupted,
    interrupted,
)

log = logging.getLogger("soundstage.jobs")

# An entry's bytes at most: a sentence of 192 kb/s MP3 is one or two entries.
CHUNK_BYTES: Final = 1 << 16
# An entry's bytes on average at least, for the entry count bound (each flush is an entry,
# and an encoder flushes a piece of audio: hundreds of bytes at the very least).
_MIN_AVERAGE_ENTRY_BYTES: Final = 64
# Entries one XREAD returns at most: what the API holds of one stream at a time (1 MiB).
_READ_COUNT: Final = 16
# Connections: a Redis that does not answer fails the stream instead of hanging it.
_CONNECT_TIMEOUT_SECONDS: Final = 5.0
_SOCKET_TIMEOUT_SECONDS: Final = 10.0

_DATA, _END, _START = b"d", b"end", b"start"

# Creates the stream with its start entry and its expiry, unless it exists (written once).
_CLAIM = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[2], '*', 'start', '')
redis.call('EXPIRE', KEYS[1], ARGV[1])
return 1
"""


def stream_key(settings: Settings, job_id: str) -> str:
    return f"{settings.redis_namespace}:stream:{job_id}"


def unavailable(exc: redis.RedisError) -> ServiceUnavailable:
    return ServiceUnavailable(
        f"The stream relay's storage (Redis) is unavailable: {type(exc).__name__}.",
        headers={"Retry-After": "5"},
    )


def max_entries(settings: Settings) -> int:
    return settings.jobs.stream_max_bytes // _MIN_AVERAGE_ENTRY_BYTES + 2


class RedisSink:
    def __init__(self, settings: Settings, client: redis.Redis, job_id: str) -> None:
        self._client, self._key = client, stream_key(settings, job_id)
        self._max_bytes, self._max_entries = settings.jobs.stream_max_bytes, max_entries(settings)
        self._bytes, self._entries = 0, 1
        try:
            claimed = client.eval(_CLAIM, 1, self._key, STALE_AFTER_SECONDS, self._max_entries)
        except redis.RedisError as exc:
            raise unavailable(exc) from exc
        if not claimed:
            raise interrupted()

    def append(self, data: bytes) -> None:
        with self._client.pipeline(transaction=False) as pipe:
            self._add(pipe, data)
            pipe.expire(self._key, STALE_AFTER_SECONDS)
            self._execute(pipe)

    def end(self, last: bytes) -> None:
        with self._client.pipeline(transaction=True) as pipe:
            self._add(pipe, last)
            pipe.xadd(self._key, {_END: b""}, nomkstream=True)
            pipe.expire(self._key, ENDED_GRACE_SECONDS)
            self._execute(pipe)

    def abandon(self) -> None:
        try:
            self._client.delete(self._key)
        except redis.RedisError as exc:  # it expires anyway; the job's own error matters
            log.warning("could not remove stream %s: %s", self._key, exc)

    def _add(self, pipe: redis.client.Pipeline, data: bytes) -> None:
        pieces = [data[i : i + CHUNK_BYTES] for i in range(0, len(data), CHUNK_BYTES)]
        self._bytes += len(data)
        self._entries += len(pieces)
        # (Room is kept for the end entry.)
        if self._bytes > self._max_bytes or self._entries + 1 > self._max_entries:
            raise StreamInterrupted(
                f"The stream is longer than the relay takes ({self._max_bytes} bytes, "
                "jobs.stream_max_bytes)."
            )
        for piece in pieces:
            # NOMKSTREAM: a relay that gave up deleted the stream; it stays deleted.
            pipe.xadd(
                self._key,
                {_DATA: piece},
                maxlen=self._max_entries,
                approximate=True,
                nomkstream=True,
            )

    @staticmethod
    def _execute(pipe: redis.client.Pipeline) -> None:
        try:
            pipe.execute()
        except redis.RedisError as exc:
            raise unavailable(exc) from exc


class RedisSource:
    def __init__(self, settings: Settings, url: str, job_id: str) -> None:
        self._url, self._key = url, stream_key(settings, job_id)
        self._last = b"0-0"
        self._relayed = False
        self._complete = False

    @property
    def complete(self) -> bool:
        return self._complete

    async def read(self, wait_seconds: float) -> bytes:
        if self._complete:
            return b""
        try:
            async with _async_client(self._url).pipeline(transaction=False) as pipe:
                if self._relayed:
                    # What the last read returned has been relayed: the client has it.
                    pipe.xtrim(self._key, minid=_after(self._last), approximate=False)
                # A relay still reading keeps the stream past its end's grace period.
                pipe.expire(self._key, ENDED_GRACE_SECONDS, gt=True)
                block_ms = max(1, round(wait_seconds * 1000))
                pipe.xread({self._key: self._last}, count=_READ_COUNT, block=block_ms)
                replies = await pipe.execute()
        except redis.RedisError as exc:
            raise unavailable(exc) from exc
        data = bytearray()
        for _key, entries in replies[-1] or ():
            for entry_id, fields in entries:
                self._last = entry_id
                if _END in fields:
                    self._complete = True
                elif _DATA in fields:
                    data += fields[_DATA]
        self._relayed = bool(replies[-1])
        return bytes(data)

    async def close(self) -> None:
        try:
            await _async_client(self._url).delete(self._key)
        except redis.RedisError as exc:  # it expires anyway
            log.warning("could not remove stream %s: %s", self._key, exc)


def _after(entry_id: bytes) -> str:
    """The smallest entry id above `entry_id`."""
    millis, sequence = entry_id.decode().split("-")
    return f"{millis}-{int(sequence) + 1}"


class RedisStreams:
    def __init__(self, settings: Settings) -> None:
        assert settings.redis_url
        self.settings, self.url = settings, settings.redis_url

    def open_sink(self, job_id: str) -> RedisSink:
        return RedisSink(self.settings, _sync_client(self.url), job_id)

    def open_source(self, job_id: str) -> RedisSource:
        return RedisSource(self.settings, self.url, job_id)


_sync_clients: dict[str, redis.Redis] = {}
_sync_lock = threading.Lock()
# Redis asyncio connections belong to the event loop that opened them: one client per loop
# (a server has one; tests and embedded apps may run several).
_async_clients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[str, aioredis.Redis]]
_async_clients = weakref.WeakKeyDictionary()


def _sync_client(url: str) -> redis.Redis:
    """One client (a connection pool, which a forked worker process renews) per process."""
    with _sync_lock:
        if url not in _sync_clients:
            _sync_clients[url] = redis.Redis.from_url(
                url,
                socket_connect_timeout=_CONNECT_TIMEOUT_SECONDS,
                socket_timeout=_SOCKET_TIMEOUT_SECONDS,
            )
        return _sync_clients[url]


def _async_client(url: str) -> aioredis.Redis:
    loop = asyncio.get_running_loop()
    clients = _async_clients.setdefault(loop, {})
    if url not in clients:
        # The socket timeout outlasts the longest XREAD BLOCK (the relay's status period).
        clients[url] = aioredis.Redis.from_url(
            url,
            socket_connect_timeout=_CONNECT_TIMEOUT_SECONDS,
            socket_timeout=_SOCKET_TIMEOUT_SECONDS,
        )
    return clients[url]
