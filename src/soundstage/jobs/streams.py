"""Byte streams from a job to the HTTP response that waits for it: the worker appends to a file
under the data directory (shared by API and workers, like the media store), the API relays
what has arrived while the job runs.

A stream is written once: a job re-run after its worker died cannot continue a stream whose
first bytes a client already played, so its second attempt fails (and is not charged).

Charging (CONTRIBUTING, "Streams are charged when the audio is complete"): the worker holds
the last bytes of the audio back, charges the job (`JobContext.charge_now`), and only then
writes them and marks the stream complete (`<job>.end`). So a client can never hold the whole
audio of an uncharged job, and once it could, hanging up no longer cancels anything. The relay
ends the response at that mark, without waiting for what the job does afterwards (word
alignment, storing the file).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from types import TracebackType
from typing import IO, Final

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError
from soundstage.jobs import repository
from soundstage.jobs import service as jobs
from soundstage.jobs.schemas import JobOut

# How often the relay looks for new bytes, and for the end mark and the job's status when
# none came.
_POLL_SECONDS: Final = 0.02
_STATUS_EVERY_SECONDS: Final = 0.1
_READ_BYTES: Final = 1 << 16
# A stream file older than this is left over whatever its job (no relay waits that long:
# see jobs.sync_timeout_seconds); one whose job has ended goes after the grace period
# (a relay that opened it keeps reading it after the unlink).
STALE_AFTER_SECONDS: Final = 3600
ENDED_GRACE_SECONDS: Final = 30
_SUFFIXES: Final = (".part", ".end")


class StreamInterrupted(AppError):
    """A streamed job cannot be resumed on another attempt (its worker died): a failure of
    the service's machinery, not of the request, and not a bug either."""

    status = 503
    type = "api_error"
    code = "stream_interrupted"


def streams_dir(settings: Settings) -> Path:
    return settings.data_dir / "streams"


def stream_path(settings: Settings, job_id: str) -> Path:
    return streams_dir(settings) / f"{job_id}.part"


def end_path(settings: Settings, job_id: str) -> Path:
    """Exists once every byte of the stream is in its file."""
    return streams_dir(settings) / f"{job_id}.end"


def discard(settings: Settings, job_id: str) -> None:
    """Remove a stream's files (a reader that has the file open keeps reading it)."""
    for path in (stream_path(settings, job_id), end_path(settings, job_id)):
        path.unlink(missing_ok=True)


class StreamWriter:
    """The worker's end of a stream. Writes go to the file at once, except after `hold()`:
    those bytes wait for `complete()`, which writes them and marks the stream complete.
    Leaving the `with` block without `complete()` (the job failed or was cancelled) removes
    the stream's files at once."""

    def __init__(self, settings: Settings, job_id: str) -> None:
        self._settings, self._job_id = settings, job_id
        path = stream_path(settings, job_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._file: IO[bytes] = path.open("xb")
        except FileExistsError:
            raise StreamInterrupted(
                "The worker streaming this job stopped mid-way; the stream cannot be resumed."
            ) from None
        self._held: list[bytes] | None = None
        self._completed = False

    def write(self, data: bytes, /) -> int:
        if self._held is not None:
            self._held.append(bytes(data))
            return len(data)
        return self._file.write(data)

    def flush(self) -> None:
        if self._held is None:
            self._file.flush()

    def hold(self) -> None:
        """Keep what is written from now on until `complete()`."""
        if self._held is None:
            self._held = []

    def complete(self) -> None:
        """Write the held bytes and mark the stream complete."""
        for data in self._held or ():
            self._file.write(data)
        self._held = None
        self._file.close()
        end_path(self._settings, self._job_id).touch()
        self._completed = True

    def __enter__(self) -> StreamWriter:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._file.close()
        if not self._completed:
            discard(self._settings, self._job_id)


def open_for_writing(settings: Settings, job_id: str) -> StreamWriter:
    return StreamWriter(settings, job_id)


def remove_stale(db: Database, settings: Settings, now: float | None = None) -> int:
    """Delete stream files nobody relays any more: those of jobs that have ended (after a
    short grace) and any older than STALE_AFTER_SECONDS. Returns how many files went."""
    folder = streams_dir(settings)
    if not folder.is_dir():
        return 0
    now = now or time.time()
    ages: dict[Path, float] = {}
    for path in folder.iterdir():
        if path.suffix in _SUFFIXES:
            with contextlib.suppress(FileNotFoundError):
                ages[path] = now - path.stat().st_mtime
    with db.read_session() as session:
        active = repository.active_ids(session, sorted({path.stem for path in ages}))
    removed = 0
    for path, age in ages.items():
        ended = path.stem not in active
        if age > STALE_AFTER_SECONDS or (ended and age > ENDED_GRACE_SECONDS):
            path.unlink(missing_ok=True)
            removed += 1
    return removed


class Relay:
    """The API side of one job's stream. `first_chunk()` waits for the first bytes (raising
    the job's error if it failed before any); `rest()` yields the remaining bytes until the
    stream is complete (or the job has ended), then removes its files. If the job fails
    before the stream is complete, `rest()` raises, which aborts the HTTP response (the
    client sees an incomplete transfer). If the client goes away before the stream is
    complete, the job is cancelled and nothing is charged; after that, the job goes on."""

    def __init__(self, db: Database, settings: Settings, job_id: str) -> None:
        self.db, self.settings, self.job_id = db, settings, job_id
        self._path = stream_path(settings, job_id)
        self._end = end_path(settings, job_id)
        self._file: IO[bytes] | None = None
        self._deadline = time.monotonic() + settings.jobs.sync_timeout_seconds
        self._complete = False
        self.job: JobOut | None = None

    async def first_chunk(self) -> bytes:
        try:
            async for chunk in self._chunks():
                return chunk
            if self._complete:
                return b""
            # The job ended with nothing written (it failed or was cancelled first).
            assert self.job is not None
            await run_in_threadpool(jobs.raise_for_failure, self.db, self.job)
            return b""
        except BaseException:
            await self._finish()
            raise

    async def rest(self) -> AsyncIterator[bytes]:
        try:
            async for chunk in self._chunks():
                yield chunk
            if not self._complete:
                assert self.job is not None
                raise StreamInterrupted(f"Job {self.job_id} ended {self.job.status}.")
        finally:
            await self._finish()

    async def _chunks(self) -> AsyncIterator[bytes]:
        last_status = 0.0
        ending = False
        while True:
            chunk = await self._read()
            if chunk:
                yield chunk
                continue
            if ending:
                # Complete, or ended, and everything written before that has been read.
                return
            now = time.monotonic()
            if now - last_status >= _STATUS_EVERY_SECONDS:
                last_status = now
                if await run_in_threadpool(self._end.exists):
                    self._complete = ending = True
                    continue
                self.job = await run_in_threadpool(jobs.read, self.db, self.settings, self.job_id)
                if self.job.status in jobs.TERMINAL:
                    ending = True
                    continue
                if now >= self._deadline:
                    raise jobs.timeout_error(self.settings, self.job_id)
            await asyncio.sleep(_POLL_SECONDS)

    async def _read(self) -> bytes:
        if self._file is None:
            try:
                self._file = await run_in_threadpool(self._path.open, "rb")
            except FileNotFoundError:
                return b""
        return await run_in_threadpool(self._file.read, _READ_BYTES)

    async def _finish(self) -> None:
        if self._file is not None:
            self._file.close()
        ended = self.job is not None and self.job.status in jobs.TERMINAL
        if not self._complete and not ended:
            # The client went away (or gave up) before the audio was complete.
            cancelling = run_in_threadpool(
                jobs.cancel_if_active, self.db, self.settings, self.job_id
            )
            await _shielded(cancelling)
        discard(self.settings, self.job_id)


async def _shielded(work: Awaitable[object]) -> None:
    # A client that went away cancels the response's task; the job must still be cancelled.
    await asyncio.shield(asyncio.ensure_future(work))
