"""The one place that picks where streams live: Redis when `redis_url` is set (API and workers
may then be different machines), else files under the data directory (one machine)."""

from __future__ import annotations

from soundstage.config import Settings
from soundstage.jobs.streams.base import StreamBackend
from soundstage.jobs.streams.files import FileStreams
from soundstage.jobs.streams.redis_streams import RedisStreams


def backend(settings: Settings) -> StreamBackend:
    if settings.redis_url:
        return RedisStreams(settings)
    return FileStreams(settings)
