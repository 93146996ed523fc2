"""Readiness (/readyz): a list of named checks, one per dependency the service needs to take
work (the database, Redis when configured, the media store), each given a short time to
answer, and the process's own event loop (`LoopWatch`). A new dependency is one more `Check`
in `CHECKS`.

The checks run on threads of their own, never the request threads: a probe is answered
within `readiness_timeout_seconds` whatever the load. The database check takes a connection
from the same pool the requests use, so a pool that stays exhausted (every connection held
longer than the probe's time) reads as not ready."""

from __future__ import annotations

import asyncio
import logging
import time
import weakref
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

import redis
from sqlalchemy import text

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.storage import service as storage

log = logging.getLogger("soundstage.ops")

CheckStatus = Literal["ok", "failed", "timeout"]


@dataclass(frozen=True)
class Check:
    """A dependency: `probe` returns when it answers and raises when it does not."""

    name: str
    probe: Callable[[Database, Settings], None]
    # Whether the deployment uses the dependency at all (Redis is optional).
    applies: Callable[[Settings], bool] = lambda settings: True


@dataclass(frozen=True)
class CheckResult:
    name: str
    status: CheckStatus
    duration_ms: int
    # Set when the check did not pass: the kind of failure (the exception's class), never
    # its text: /readyz needs no key, and driver messages name hosts and users. The log has
    # the whole message.
    error: str | None = None


def _database(db: Database, settings: Settings) -> None:
    with db.read_session() as session:
        session.execute(text("SELECT 1"))


@lru_cache(maxsize=8)
def _redis_client(url: str, timeout: float) -> redis.Redis:
    return redis.Redis.from_url(url, socket_connect_timeout=timeout, socket_timeout=timeout)


def _redis(db: Database, settings: Settings) -> None:
    assert settings.redis_url
    _redis_client(settings.redis_url, settings.readiness_timeout_seconds).ping()


def _media_store(db: Database, settings: Settings) -> None:
    storage.check_store_ready(settings)


CHECKS: list[Check] = [
    Check("database", _database),
    Check("redis", _redis, applies=lambda settings: bool(settings.redis_url)),
    Check("media_store", _media_store),
]

# Checks run side by side on a few threads of their own; a dependency that hangs holds one
# until its driver gives up, and once all are held the next checks time out at once (not
# ready), so a hanging dependency never piles up threads.
_pool = ThreadPoolExecutor(max_workers=6, thread_name_prefix="readyz")


async def run_checks(db: Database, settings: Settings) -> list[CheckResult]:
    """Every check that applies, each given `readiness_timeout_seconds` from now, then the
    event loop's own."""
    checks = [check for check in CHECKS if check.applies(settings)]
    began = time.monotonic()
    futures = [
        (check, asyncio.wrap_future(_pool.submit(_timed, check, db, settings))) for check in checks
    ]
    if futures:
        await asyncio.wait([f for _, f in futures], timeout=settings.readiness_timeout_seconds)
    results = []
    for check, future in futures:
        if future.done():
            results.append(future.result())
        else:
            future.cancel()  # the thread keeps waiting for the driver; nothing awaits it
            elapsed = int((time.monotonic() - began) * 1000)
            log.warning("readiness: %s did not answer in %d ms", check.name, elapsed)
            results.append(CheckResult(check.name, "timeout", elapsed, "Timeout"))
    results.append(_watch().check(settings.readiness_max_loop_lag_seconds))
    return results


class LoopWatch:
    """How late the event loop has been lately: a task that wakes every `TICK` seconds notes
    how much later than asked it woke (what every request waited behind the work ahead of it,
    or behind a blocking call on the loop). One per event loop, started with the app
    (`watch_this_loop`)."""

    TICK = 0.1
    # The lag is the worst of this many recent seconds: a loop stuck for a while and free
    # again reads as not ready for this long after, not only if probed while stuck.
    WINDOW_SECONDS = 5.0

    def __init__(self) -> None:
        self._recent: list[tuple[float, float]] = []  # (woke at, lag), oldest first

    async def run(self) -> None:
        while True:
            asked = time.monotonic()
            await asyncio.sleep(self.TICK)
            woke = time.monotonic()
            self._note(woke, woke - asked - self.TICK)

    def _note(self, now: float, lag: float) -> None:
        self._recent.append((now, max(0.0, lag)))
        while self._recent and self._recent[0][0] < now - self.WINDOW_SECONDS:
            self._recent.pop(0)

    def worst_lag(self) -> float:
        """The longest the loop kept a ready callback waiting in the window, in seconds
        (counting a tick that is overdue now)."""
        now = time.monotonic()
        lags = [lag for woke, lag in self._recent if woke >= now - self.WINDOW_SECONDS]
        return max(lags, default=0.0)

    def check(self, max_lag_seconds: float) -> CheckResult:
        lag = self.worst_lag()
        if lag > max_lag_seconds:
            log.warning("readiness: the event loop lagged %.3f s", lag)
            return CheckResult("event_loop", "failed", int(lag * 1000), "EventLoopLag")
        return CheckResult("event_loop", "ok", int(lag * 1000))


def _timed(check: Check, db: Database, settings: Settings) -> CheckResult:
    began = time.monotonic()
    try:
        check.probe(db, settings)
    except Exception as exc:
        elapsed = int((time.monotonic() - began) * 1000)
        log.warning("readiness: %s failed: %s", check.name, exc)
        return CheckResult(check.name, "failed", elapsed, type(exc).__name__)
    return CheckResult(check.name, "ok", int((time.monotonic() - began) * 1000))


_watches: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, LoopWatch] = (
    weakref.WeakKeyDictionary()
)


def watch_this_loop() -> asyncio.Task[None]:
    """Start watching the running event loop (the app's lifespan does, at startup); the task
    is the caller's to cancel at shutdown."""
    watch = _watches[asyncio.get_running_loop()] = LoopWatch()
    return asyncio.create_task(watch.run(), name="loop-watch")


def _watch() -> LoopWatch:
    """The running loop's watch (an app served without its lifespan has none: an empty one,
    which reads as no lag)."""
    return _watches.get(asyncio.get_running_loop()) or LoopWatch()
