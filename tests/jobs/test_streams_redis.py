"""Streams through Redis (jobs.streams.redis_streams) against a real Redis: the bytes in order,
a late relay gets them all, the end only after the writer's end, a second writer refused, the
keys' expiry, the length bound, Redis unreachable; and a TTS stream made by a worker whose
data directory is not the API's, relayed through Redis with nothing on either disk."""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import ServiceUnavailable
from soundstage.jobs import service as jobs
from soundstage.jobs import streams
from soundstage.jobs.schemas import JobOut
from soundstage.jobs.streams.redis_streams import CHUNK_BYTES, RedisStreams, stream_key
from soundstage.voices.service import CatalogCounts
from tests.support.factories import create_customer, principal_of
from tests.support.jobs import stored
from tests.support.processes import free_port, run_worker, serve
from tests.support.streams import RedisLook, stream_tts

pytestmark = pytest.mark.services


@pytest.fixture
def on_redis(settings: Settings, redis_url: str) -> Settings:
    """The session's settings with streams in Redis, under a namespace of this test's own."""
    return settings.model_copy(
        update={"redis_url": redis_url, "redis_namespace": f"streams-{secrets.token_hex(4)}"}
    )


@pytest.fixture
def store(on_redis: Settings) -> Iterator[RedisLook]:
    assert on_redis.redis_url
    look = RedisLook(on_redis.redis_url)
    yield look
    look.close()


def read_all(settings: Settings, job_id: str, wait: float = 0.05) -> tuple[bytes, bool]:
    """Everything a new relay's source reads until nothing more comes (or the end mark)."""
    return drain(streams.backend(settings).open_source(job_id), wait)


def drain(source: streams.StreamSource, wait: float = 0.05) -> tuple[bytes, bool]:
    """What `source` reads until nothing more comes, and whether it read the end mark."""

    async def read() -> tuple[bytes, bool]:
        data = bytearray()
        while chunk := await source.read(wait):
            data += chunk
        return bytes(data), source.complete

    return asyncio.run(read())


def test_redis_is_the_backend_when_configured(settings: Settings, on_redis: Settings) -> None:
    assert isinstance(streams.backend(on_redis), RedisStreams)
    assert not isinstance(
        streams.backend(settings.model_copy(update={"redis_url": None})), RedisStreams
    )


def test_chunks_arrive_in_order_in_bounded_entries(on_redis: Settings, store: RedisLook) -> None:
    pieces = [secrets.token_bytes(n) for n in (10, 70_000, 1, 200_000, 5_000)]
    with streams.open_for_writing(on_redis, "job_order") as out:
        for piece in pieces:
            out.write(piece)
            out.flush()
        out.hold()
        out.write(b"the last words")
        out.complete()
    key = stream_key(on_redis, "job_order")
    entries = store.entries(key)
    assert entries[0][1] == {b"start": b""}
    assert entries[-1][1] == {b"end": b""}
    sizes = [len(fields[b"d"]) for _, fields in entries[1:-1]]
    assert max(sizes) == CHUNK_BYTES
    assert sum(sizes) == sum(map(len, pieces)) + len(b"the last words")

    data, complete = read_all(on_redis, "job_order")
    assert data == b"".join(pieces) + b"the last words"
    assert complete


def test_a_late_relay_gets_every_byte_and_a_relay_keeping_up_is_never_cut(
    on_redis: Settings, store: RedisLook
) -> None:
    """The relay attaches after the whole stream was written (a fast job): all of it. A relay
    that reads as the worker writes removes what it has relayed, so Redis holds only what the
    client has not taken; it still gets everything, past the length of one XREAD."""
    whole = secrets.token_bytes(3 * CHUNK_BYTES + 123)
    with streams.open_for_writing(on_redis, "job_late") as out:
        out.write(whole)
        out.flush()
        out.hold()
        out.complete()
    assert read_all(on_redis, "job_late") == (whole, True)

    async def relay_while_writing() -> tuple[bytes, list[int]]:
        source = streams.backend(on_redis).open_source("job_live")
        out = await asyncio.to_thread(streams.open_for_writing, on_redis, "job_live")
        received, lengths = bytearray(), []
        for _ in range(40):
            await asyncio.to_thread(out.write, secrets.token_bytes(CHUNK_BYTES))
            await asyncio.to_thread(out.flush)
            received += await source.read(1.0)
            lengths.append(store.length(stream_key(on_redis, "job_live")))
        out.hold()
        await asyncio.to_thread(out.complete)
        while chunk := await source.read(0.05):
            received += chunk
        assert source.complete
        await source.close()
        return bytes(received), lengths

    received, lengths = asyncio.run(relay_while_writing())
    assert len(received) == 40 * CHUNK_BYTES
    # What the relay read was trimmed: a couple of entries at a time, not 40 (41 with start).
    assert max(lengths) <= 3, lengths
    assert not store.exists(stream_key(on_redis, "job_live"))  # the relay removed it


def test_the_end_comes_only_after_the_writers_end(on_redis: Settings) -> None:
    """Held bytes (the audio's last piece, before the charge) stay with the worker: the relay
    sees the rest and no end until `complete()`."""
    source = streams.backend(on_redis).open_source("job_held")
    with streams.open_for_writing(on_redis, "job_held") as out:
        out.write(b"first sentence ")
        out.flush()
        out.hold()
        out.write(b"last sentence")
        out.flush()
        assert drain(source, wait=0.2) == (b"first sentence ", False)
        out.complete()
    assert drain(source) == (b"last sentence", True)


def test_a_stream_is_written_once(on_redis: Settings, store: RedisLook) -> None:
    """A re-run after the worker died (the first writer never left its block) is refused; a
    writer that fails removes the stream at once."""
    first = streams.open_for_writing(on_redis, "job_rerun")
    first.write(b"played already")
    first.flush()
    with pytest.raises(streams.StreamInterrupted):
        streams.open_for_writing(on_redis, "job_rerun")
    assert read_all(on_redis, "job_rerun") == (b"played already", False)

    def failing_job() -> None:
        with streams.open_for_writing(on_redis, "job_fails") as out:
            out.write(b"some audio")
            out.flush()
            raise RuntimeError("the engine failed")

    with pytest.raises(RuntimeError):
        failing_job()
    assert not store.exists(stream_key(on_redis, "job_fails"))


def test_keys_expire_an_hour_after_the_last_write_and_soon_after_the_end(
    on_redis: Settings, store: RedisLook
) -> None:
    key = stream_key(on_redis, "job_ttl")
    out = streams.open_for_writing(on_redis, "job_ttl")
    assert streams.STALE_AFTER_SECONDS - 5 <= store.ttl(key) <= streams.STALE_AFTER_SECONDS
    out.write(b"audio")
    out.flush()
    store.expire(key, 100)
    out.write(b"more audio")
    out.flush()
    # Every write pushes the abandoned stream's expiry back.
    assert store.ttl(key) > 100
    out.hold()
    out.complete()
    assert 0 < store.ttl(key) <= streams.ENDED_GRACE_SECONDS
    # A relay still reading after the end keeps the stream for another grace period.
    store.expire(key, 3)
    asyncio.run(streams.backend(on_redis).open_source("job_ttl").read(0.01))
    assert store.ttl(key) > 3


def test_a_stream_longer_than_the_bound_fails_instead_of_losing_bytes(
    on_redis: Settings, store: RedisLook
) -> None:
    bounded = on_redis.model_copy(
        update={"jobs": on_redis.jobs.model_copy(update={"stream_max_bytes": 1024**2})}
    )
    # Exactly the bound: all of it, none trimmed by the MAXLEN backstop.
    whole = secrets.token_bytes(1024**2)
    with streams.open_for_writing(bounded, "job_inside") as out:
        for start in range(0, len(whole), 1000):
            out.write(whole[start : start + 1000])
            out.flush()
        out.hold()
        out.complete()
    assert store.length(stream_key(bounded, "job_inside")) == 2 + -(-len(whole) // 1000)
    assert read_all(bounded, "job_inside") == (whole, True)

    # One byte more fails the job; the stream goes.
    def too_long() -> None:
        with streams.open_for_writing(bounded, "job_outside") as out:
            out.write(whole + b"!")
            out.flush()

    with pytest.raises(streams.StreamInterrupted):
        too_long()
    assert not store.exists(stream_key(bounded, "job_outside"))


def test_redis_unreachable_is_503_for_the_writer_and_the_relay(
    on_redis: Settings, db: Database, demo_catalog: CatalogCounts
) -> None:
    """The job fails cleanly (service_unavailable, nothing charged); the relay answers the
    same error and cancels the job it can no longer deliver."""
    down = on_redis.model_copy(update={"redis_url": f"redis://127.0.0.1:{free_port()}/0"})
    with pytest.raises(ServiceUnavailable):
        streams.open_for_writing(down, "job_down")

    customer = create_customer(db, credits_each=100)
    with db.session() as session:  # queued where no worker takes it
        job = jobs.submit(
            session,
            on_redis,
            principal_of(customer),
            "test.echo",
            stored({"value": 1}),
            credits_needed=0,
            is_async=False,
        )
    relay = streams.Relay(db, down, job.id)
    with pytest.raises(ServiceUnavailable) as raised:
        asyncio.run(relay.first_chunk())
    assert raised.value.status == 503
    assert raised.value.code == "service_unavailable"
    assert jobs.read(db, down, job.id).status == "cancelled"


@pytest.fixture(scope="module")
def two_machines(
    settings: Settings, redis_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[str, Settings, Settings]]:
    """An API server and a worker sharing the database and a Redis, each with a data
    directory of its own: the API's base URL and both machines' settings."""
    shared = {"redis_url": redis_url, "redis_namespace": f"machines-{secrets.token_hex(4)}"}
    api = settings.model_copy(update={**shared, "data_dir": tmp_path_factory.mktemp("api-data")})
    worker = settings.model_copy(
        update={**shared, "data_dir": tmp_path_factory.mktemp("worker-data")}
    )
    with contextmanager(run_worker)(worker), contextmanager(serve)(api) as base_url:
        yield base_url, api, worker


def test_a_tts_stream_from_another_machines_worker_is_relayed_through_redis(
    two_machines: tuple[str, Settings, Settings],
    db: Database,
    demo_catalog: CatalogCounts,
    store: RedisLook,
) -> None:
    base_url, api, worker = two_machines
    customer = create_customer(db, credits_each=1000)
    text = "The ferry left at noon. By evening the island was a grey line behind it."
    job_id, seconds = stream_tts(base_url, customer, text)
    job = wait_until_ended(db, api, job_id)
    assert (job.status, job.credits_used) == ("completed", len(text))
    # The relayed audio is the whole reading the worker stored (MP3: LAME's padding aside).
    assert job.result is not None
    assert abs(seconds - job.result["duration_ms"] / 1000) <= 0.08
    assert seconds > 3
    # Nothing went through either machine's disk, and the relay removed its Redis stream.
    for machine in (api, worker):
        folder: Path = machine.data_dir / "streams"
        assert not folder.exists() or not any(folder.iterdir()), list(folder.iterdir())
    assert not store.exists(stream_key(api, job_id))


def wait_until_ended(db: Database, settings: Settings, job_id: str) -> JobOut:
    deadline = time.monotonic() + 60
    while (job := jobs.read(db, settings, job_id)).status not in jobs.TERMINAL:
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
    return job
