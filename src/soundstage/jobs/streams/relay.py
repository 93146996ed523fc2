"""The API's end of a job's stream, whatever the backend: the bytes relayed as they arrive,
the job watched, the job cancelled (charged for what it sent) if the client leaves before
the audio is complete."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable
from typing import Final

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.jobs import service as jobs
from soundstage.jobs.schemas import JobOut
from soundstage.jobs.streams.backends import backend
from soundstage.jobs.streams.base import StreamInterrupted

# How often the relay reads the job's status while no bytes come.
_STATUS_EVERY_SECONDS: Final = 0.1


class Relay:
    """The API side of one job's stream. `first_chunk()` waits for the first bytes (raising
    the job's error if it failed before any); `rest()` yields the remaining bytes until the
    stream is complete (or the job has ended), then removes the stream. If the job fails
    before the stream is complete, `rest()` raises, which aborts the HTTP response (the
    client sees an incomplete transfer). If the client goes away before the stream is
    complete, the job is cancelled and charged for what it had released to the stream (see
    jobs.streams); after that, the job goes on."""

    def __init__(self, db: Database, settings: Settings, job_id: str) -> None:
        self.db, self.settings, self.job_id = db, settings, job_id
        self._source = backend(settings).open_source(job_id)
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
        next_status = time.monotonic()
        ending = False
        while True:
            wait = 0.0 if ending else max(0.0, next_status - time.monotonic())
            chunk = await self._source.read(wait)
            if chunk:
                yield chunk
                continue
            if self._source.complete:
                self._complete = True
                return
            if ending:
                # The job has ended and everything written before that has been read.
                return
            now = time.monotonic()
            if now >= next_status:
                next_status = now + _STATUS_EVERY_SECONDS
                self.job = await run_in_threadpool(jobs.read, self.db, self.settings, self.job_id)
                if self.job.status in jobs.TERMINAL:
                    ending = True
                    continue
                if now >= self._deadline:
                    raise jobs.timeout_error(self.settings, self.job_id)

    async def _finish(self) -> None:
        ended = self.job is not None and self.job.status in jobs.TERMINAL
        abandoned = not self._complete and not ended

        async def let_go() -> None:
            if abandoned:
                # The client went away (or gave up) before the audio was complete.
                await run_in_threadpool(jobs.cancel_if_active, self.db, self.settings, self.job_id)
            await self._source.close()

        await _shielded(let_go())


async def _shielded(work: Awaitable[object]) -> None:
    # A client that went away cancels the response's task; the job must still be cancelled.
    await asyncio.shield(asyncio.ensure_future(work))
