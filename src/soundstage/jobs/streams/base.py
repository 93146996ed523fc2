"""What a stream backend is: where a job's bytes go (a sink, in the worker) and where the relay
reads them (a source, in the API), with the rules both backends keep."""

from __future__ import annotations

from typing import Final, Protocol

from soundstage.core.errors import AppError

# An abandoned stream (its worker or its relay died) is removed this long after its last
# write whatever its job (no relay waits that long: see jobs.sync_timeout_seconds); one whose
# job has ended, or that is complete, this long after its relay last read it.
STALE_AFTER_SECONDS: Final = 3600
ENDED_GRACE_SECONDS: Final = 30


class StreamInterrupted(AppError):
    """A streamed job cannot be resumed on another attempt (its worker died): a failure of
    the service's machinery, not of the request, and not a bug either."""

    status = 503
    type = "api_error"
    code = "stream_interrupted"


def interrupted() -> StreamInterrupted:
    """A second attempt at a stream whose first bytes may already have been played."""
    return StreamInterrupted(
        "The worker streaming this job stopped mid-way; the stream cannot be resumed."
    )


class StreamSink(Protocol):
    """The worker's end of one job's stream, in a backend. Opening it claims the stream (a
    second opening, by a re-run of the job, raises StreamInterrupted). `append` makes bytes
    visible to the relay in order; `end` appends `last` (the bytes held back until the job
    was charged) and marks the stream complete, at once where the backend can; `abandon`
    removes the stream (the job failed or was cancelled)."""

    def append(self, data: bytes) -> None: ...

    def end(self, last: bytes) -> None: ...

    def abandon(self) -> None: ...


class StreamSource(Protocol):
    """The relay's end of one job's stream, in a backend."""

    async def read(self, wait_seconds: float) -> bytes:
        """The next bytes in order, as soon as some have arrived, or b"" after at most
        `wait_seconds` without any (then `complete` says whether the stream has ended)."""
        ...

    @property
    def complete(self) -> bool:
        """Whether the end mark has been read: every byte of the stream has been returned."""
        ...

    async def close(self) -> None:
        """Let go of the stream and remove it (the relay is its only reader)."""
        ...


class StreamBackend(Protocol):
    """Where streams live: files under the data directory (one machine) or Redis streams
    (API and workers on different machines). `jobs.streams.backend` picks one."""

    def open_sink(self, job_id: str) -> StreamSink: ...

    def open_source(self, job_id: str) -> StreamSource: ...
