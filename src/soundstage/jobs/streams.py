"""Byte streams from a job to the HTTP response that waits for it: the worker appends to a file
under the data directory (shared by API and workers, like the media store), the API relays
what has arrived while the job runs and ends when the job does.

A stream is written once: a job re-run after its worker died cannot continue a stream whose
first bytes a client already played, so its second attempt fails (and is not charged).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import IO, Final

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError
from soundstage.jobs import service as jobs
from soundstage.jobs.schemas import JobOut

# How often the relay looks for new bytes, and for the job's status when none came.
_POLL_SECONDS: Final = 0.02
_STATUS_EVERY_SECONDS: Final = 0.1
_READ_BYTES: Final = 1 << 16
# A stream file older than this is left over from a client that went away: the sweeper
# removes it.
STALE_AFTER_SECONDS: Final = 3600


class StreamInterrupted(AppError):
    """A streamed job cannot be resumed on another attempt (its worker died): a failure of
    the service's machinery, not of the request, and not a bug either."""

    status = 503
    type = "api_error"
    code = "stream_interrupted"


def stream_path(settings: Settings, job_id: str) -> Path:
    return settings.data_dir / "streams" / f"{job_id}.part"


def open_for_writing(settings: Settings, job_id: str) -> IO[bytes]:
    path = stream_path(settings, job_id)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        return path.open("xb")
    except FileExistsError:
        raise StreamInterrupted(
            "The worker streaming this job stopped mid-way; the stream cannot be resumed."
        ) from None


def remove_stale(settings: Settings, now: float | None = None) -> int:
    """Delete stream files nobody relays any more. Returns how many."""
    folder = settings.data_dir / "streams"
    if not folder.is_dir():
        return 0
    limit = (now or time.time()) - STALE_AFTER_SECONDS
    removed = 0
    for path in folder.glob("*.part"):
        with contextlib.suppress(FileNotFoundError):
            if path.stat().st_mtime < limit:
                path.unlink()
                removed += 1
    return removed


class Relay:
    """The API side of one job's stream. `first_chunk()` waits for the first bytes (raising
    the job's error if it failed before any); `rest()` yields the remaining bytes until the
    job has ended, then removes the file. If the job fails after bytes were sent, `rest()`
    raises, which aborts the HTTP response (the client sees an incomplete transfer). If the
    client goes away, the job is cancelled and nothing is charged."""

    def __init__(self, db: Database, settings: Settings, job_id: str) -> None:
        self.db, self.settings, self.job_id = db, settings, job_id
        self._path = stream_path(settings, job_id)
        self._file: IO[bytes] | None = None
        self._deadline = time.monotonic() + settings.jobs.sync_timeout_seconds
        self.job: JobOut | None = None

    async def first_chunk(self) -> bytes:
        try:
            async for chunk in self._chunks():
                return chunk
            # The job ended with nothing written (it failed or was cancelled first).
            assert self.job is not None
            await run_in_threadpool(jobs.raise_for_failure, self.db, self.job)
            return b""
        except BaseException:
            await self._finish(cancel=True)
            raise

    async def rest(self) -> AsyncIterator[bytes]:
        ok = False
        try:
            async for chunk in self._chunks():
                yield chunk
            assert self.job is not None
            if self.job.status != "completed":
                raise StreamInterrupted(f"Job {self.job_id} ended {self.job.status}.")
            ok = True
        finally:
            await self._finish(cancel=not ok)

    async def _chunks(self) -> AsyncIterator[bytes]:
        last_status = 0.0
        while True:
            chunk = await self._read()
            if chunk:
                yield chunk
                continue
            if self.job is not None and self.job.status in jobs.TERMINAL:
                # Ended, and everything it wrote before ending has been read.
                return
            now = time.monotonic()
            if now - last_status >= _STATUS_EVERY_SECONDS:
                last_status = now
                self.job = await run_in_threadpool(jobs.read, self.db, self.settings, self.job_id)
                if self.job.status in jobs.TERMINAL:
                    continue  # read what was written before it ended
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

    async def _finish(self, *, cancel: bool) -> None:
        if self._file is not None:
            self._file.close()
        if cancel and (self.job is None or self.job.status not in jobs.TERMINAL):
            cancelling = run_in_threadpool(
                jobs.cancel_if_active, self.db, self.settings, self.job_id
            )
            await _shielded(cancelling)
        with contextlib.suppress(FileNotFoundError):
            self._path.unlink()


async def _shielded(work: Awaitable[object]) -> None:
    # A client that went away cancels the response's task; the job must still be cancelled.
    await asyncio.shield(asyncio.ensure_future(work))
