"""Streams as files under the data directory, the single-machine default: the worker appends to
`streams/<job>.part` and creates `streams/<job>.end` once it is complete; the relay reads the
file as it grows. API and workers must share the data directory."""

from __future__ import annotations

import asyncio
import contextlib
import time
from pathlib import Path
from typing import IO, Final

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.jobs import repository
from soundstage.jobs.streams.base import ENDED_GRACE_SECONDS, STALE_AFTER_SECONDS, interrupted

# How often the relay looks for new bytes when none came.
_POLL_SECONDS: Final = 0.02
_READ_BYTES: Final = 1 << 16
_SUFFIXES: Final = (".part", ".end")


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


class FileSink:
    """Creating the `.part` file claims the stream: a re-run finds it and refuses."""

    def __init__(self, settings: Settings, job_id: str) -> None:
        self._settings, self._job_id = settings, job_id
        path = stream_path(settings, job_id)
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            self._file: IO[bytes] = path.open("xb")
        except FileExistsError:
            raise interrupted() from None

    def append(self, data: bytes) -> None:
        self._file.write(data)
        self._file.flush()

    def end(self, last: bytes) -> None:
        self._file.write(last)
        self._file.close()
        end_path(self._settings, self._job_id).touch()

    def abandon(self) -> None:
        self._file.close()
        discard(self._settings, self._job_id)


class FileSource:
    def __init__(self, settings: Settings, job_id: str) -> None:
        self._settings, self._job_id = settings, job_id
        self._path = stream_path(settings, job_id)
        self._end = end_path(settings, job_id)
        self._file: IO[bytes] | None = None
        self._end_seen = False
        self._complete = False

    @property
    def complete(self) -> bool:
        return self._complete

    async def read(self, wait_seconds: float) -> bytes:
        data = await run_in_threadpool(self._poll)
        if not data and not self._complete:
            await asyncio.sleep(min(wait_seconds, _POLL_SECONDS))
        return data

    def _poll(self) -> bytes:
        data = self._read_now()
        if data or self._complete:
            return data
        if not self._end_seen and self._end.exists():
            # The end mark is made after the file is closed: what is read from now on,
            # up to the end of the file, is the rest of the stream.
            self._end_seen = True
            data = self._read_now()
        if not data and self._end_seen:
            self._complete = True
        return data

    def _read_now(self) -> bytes:
        if self._file is None:
            try:
                self._file = self._path.open("rb")
            except FileNotFoundError:
                return b""
        return self._file.read(_READ_BYTES)

    async def close(self) -> None:
        if self._file is not None:
            self._file.close()
        discard(self._settings, self._job_id)


class FileStreams:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def open_sink(self, job_id: str) -> FileSink:
        return FileSink(self.settings, job_id)

    def open_source(self, job_id: str) -> FileSource:
        return FileSource(self.settings, job_id)


def remove_stale(db: Database, settings: Settings, now: float | None = None) -> int:
    """Delete stream files nobody relays any more: those of jobs that have ended (after a
    short grace) and any older than STALE_AFTER_SECONDS. Returns how many files went.
    (Redis streams need no sweeping: their keys expire.)"""
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
