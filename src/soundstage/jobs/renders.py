"""Files a worker renders once, on the first request that wants them (voice previews, talent
demos): the request asks for the render and waits a few seconds for the file, else 503."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from soundstage.config import Settings
from soundstage.core.errors import ServiceUnavailable
from soundstage.jobs import queue

# How often a waiting request looks again (a HEAD request when the file is in S3).
POLL_SECONDS = 0.05


async def render_once(
    settings: Settings,
    ready: Callable[[], bool],
    task: str,
    *args: str,
    wait_seconds: float,
    busy: ServiceUnavailable,
) -> None:
    """Return at once if `ready()` (the file exists: in the media store, which every node
    shares); else the declared task `task(*args)` (which writes it, atomically) is enqueued
    and `ready()` waited for up to `wait_seconds` (less when synchronous requests are
    configured to wait less: a deployment, or tests without workers), and `busy` (a 503)
    raised if no worker made it in time. `ready` may block (it runs in a thread)."""
    if await asyncio.to_thread(ready):
        return
    queue.enqueue(settings, task, *args)
    if await wait_until(ready, min(wait_seconds, settings.jobs.sync_timeout_seconds)):
        return
    raise busy


async def wait_until(ready: Callable[[], bool], seconds: float) -> bool:
    """Whether `ready()` holds within `seconds` (a worker is rendering the file)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(POLL_SECONDS)
        if await asyncio.to_thread(ready):
            return True
    return False
