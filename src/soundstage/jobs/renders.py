"""Files a worker renders once, on the first request that wants them (voice previews, talent
demos): the request asks for the render and waits a few seconds for the file, else 503."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from soundstage.config import Settings
from soundstage.core.errors import ServiceUnavailable
from soundstage.jobs import queue


async def render_once(
    settings: Settings,
    path: Path,
    task: str,
    *args: str,
    wait_seconds: float,
    busy: ServiceUnavailable,
) -> Path:
    """`path` if it exists; else the declared task `task(*args)` (which writes it, atomically)
    is enqueued and the file waited for up to `wait_seconds` (less when synchronous requests
    are configured to wait less: a deployment, or tests without workers), and `busy` (a 503)
    raised if no worker made it in time."""
    if path.exists():
        return path
    queue.enqueue(settings, task, *args)
    if await wait_for_file(path, min(wait_seconds, settings.jobs.sync_timeout_seconds)):
        return path
    raise busy


async def wait_for_file(path: Path, seconds: float) -> bool:
    """Whether `path` exists within `seconds` (a worker is rendering it)."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        if path.exists():
            return True
    return False
