"""Readiness (/readyz): a list of named checks, one per dependency the service needs to take
work (the database, Redis when configured, the media store), each given a short time to
answer. A new dependency is one more `Check` in `CHECKS`."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
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


def run_checks(db: Database, settings: Settings) -> list[CheckResult]:
    """Every check that applies, each given `readiness_timeout_seconds` from now."""
    checks = [check for check in CHECKS if check.applies(settings)]
    began = time.monotonic()
    deadline = began + settings.readiness_timeout_seconds
    futures = [(check, _pool.submit(_timed, check, db, settings)) for check in checks]
    results = []
    for check, future in futures:
        try:
            results.append(future.result(timeout=max(0.0, deadline - time.monotonic())))
        except FutureTimeout:
            elapsed = int((time.monotonic() - began) * 1000)
            log.warning("readiness: %s did not answer in %d ms", check.name, elapsed)
            results.append(CheckResult(check.name, "timeout", elapsed, "Timeout"))
    return results


def _timed(check: Check, db: Database, settings: Settings) -> CheckResult:
    began = time.monotonic()
    try:
        check.probe(db, settings)
    except Exception as exc:
        elapsed = int((time.monotonic() - began) * 1000)
        log.warning("readiness: %s failed: %s", check.name, exc)
        return CheckResult(check.name, "failed", elapsed, type(exc).__name__)
    return CheckResult(check.name, "ok", int((time.monotonic() - began) * 1000))
