"""Byte streams from a job to the HTTP response that waits for it: the worker writes the bytes
as they come, the API relays what has arrived while the job runs. They live in files under
the data directory (shared by API and workers on one machine) or, when `redis_url` is set, in
Redis streams, so that the worker and the API node relaying its stream may be different
machines (`backends.backend` chooses; `files` and `redis_streams` are the two).

A stream is written once: a job re-run after its worker died cannot continue a stream whose
first bytes a client already played, so its second attempt fails (charged for the audio the
first attempt released, and no more).

Charging (CONTRIBUTING, "Every byte of audio handed to a client is paid for"): the worker
holds what it writes back (`StreamWriter.hold`) until it is paid for. Before it releases a
piece (`StreamWriter.release`) the job records what everything released so far costs
(`JobContext.charge_at_least`); every end of the job then charges at least that: a client
that hangs up (the relay cancels the job) or a stream that fails midway is charged for the
audio it was sent, and the rest of the reservation is released. The last piece is released
with the whole price (`JobContext.charge_now`) and the end mark (`StreamWriter.complete`):
from then on the job cannot be cancelled. The relay ends the response at that mark, without
waiting for what the job does afterwards (word alignment, storing the file).

Leftovers: stream files of ended jobs are swept after ENDED_GRACE_SECONDS, any after
STALE_AFTER_SECONDS (`remove_stale`, run by the worker's sweeper); Redis streams expire the
same way by themselves.
"""

from __future__ import annotations

from soundstage.config import Settings
from soundstage.jobs.streams.backends import backend
from soundstage.jobs.streams.base import (
    ENDED_GRACE_SECONDS,
    STALE_AFTER_SECONDS,
    StreamBackend,
    StreamInterrupted,
    StreamSink,
    StreamSource,
)
from soundstage.jobs.streams.files import discard, end_path, remove_stale, stream_path
from soundstage.jobs.streams.relay import Relay
from soundstage.jobs.streams.writer import StreamWriter


def open_for_writing(settings: Settings, job_id: str) -> StreamWriter:
    """The worker's end of the job's stream (raises StreamInterrupted on a second attempt)."""
    return StreamWriter(backend(settings).open_sink(job_id))


__all__ = [
    "ENDED_GRACE_SECONDS",
    "STALE_AFTER_SECONDS",
    "Relay",
    "StreamBackend",
    "StreamInterrupted",
    "StreamSink",
    "StreamSource",
    "StreamWriter",
    "backend",
    "discard",
    "end_path",
    "open_for_writing",
    "remove_stale",
    "stream_path",
]
