"""Rate limits with `limits`: in memory, or shared by every process through Redis.

Buckets: one per account and environment (`account`: every key of the account in that
environment spends it; keys are free to mint, so a limit per key would be no limit), one per
client address for requests without a valid key (`anonymous`), and one per client address
for each public surface that needs no key (`media`: signed media and demo URLs; `previews`;
`console`), so that a page of audio players never spends the anonymous bucket, nor a scanner's
401s a listener's media.

A moving window: no span of the window's length ever passes more than the limit (a fixed
window let twice the limit through around its edge). `RateLimit`'s `t` and `Retry-After` are
the seconds until the oldest counted request leaves the window, freeing a slot.

Headers follow the IETF RateLimit draft: `RateLimit-Policy: "account";q=100;w=60` and
`RateLimit: "account";r=99;t=60`; a 429 also carries `Retry-After`.
"""

from __future__ import annotations

import asyncio
import math
import time
import weakref
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.storage import RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import MemoryStorage as LocalMemoryStorage
from limits.strategies import MovingWindowRateLimiter as LocalMovingWindow

from soundstage.config import Settings
from soundstage.core.errors import RateLimited, ServiceUnavailable
from soundstage.core.tenancy import Owned

# Who shares each bucket, for the 429's message.
_SHARED_BY = {
    "account": "this account's keys in this environment",
    "anonymous": "requests without a valid API key from this address",
    "media": "signed media URLs from this address",
    "previews": "voice previews from this address",
    "console": "the console's files from this address",
}


class LoopSweptMemoryStorage(LocalMemoryStorage):
    """`limits`' memory storage, its expired entries swept from the caller's thread at most
    once a second, instead of by a new `threading.Timer` every 10 ms of traffic: each was a
    thread started and then a scan taking the GIL from the event loop, 0.3 to 1.4 ms added to
    a request on a 2-core virtual machine (bench/api_overhead.py). A moving window reads only
    the entries younger than its window, so sweeping frees memory and decides nothing."""

    SWEEP_SECONDS = 1.0

    def __init__(self) -> None:
        super().__init__()
        self.timer.cancel()  # the one the storage starts at once
        self._swept = time.monotonic()

    # The storage's own hook, called on every hit (its name mangled from `__schedule_expiry`).
    def _MemoryStorage__schedule_expiry(self) -> None:  # noqa: N802 (the storage's name)
        now = time.monotonic()
        if now - self._swept >= self.SWEEP_SECONDS:
            self._swept = now
            self._MemoryStorage__expire_events()  # type: ignore[attr-defined]


@dataclass(frozen=True)
class Decision:
    allowed: bool
    policy: str
    limit: int
    window_seconds: int
    remaining: int
    reset_seconds: int

    def headers(self) -> list[tuple[bytes, bytes]]:
        return [
            (
                b"ratelimit-policy",
                f'"{self.policy}";q={self.limit};w={self.window_seconds}'.encode(),
            ),
            (b"ratelimit", f'"{self.policy}";r={self.remaining};t={self.reset_seconds}'.encode()),
        ]

    def error(self) -> RateLimited:
        return RateLimited(
            f"Too many requests: {self.limit} per {self.window_seconds} s for "
            f"{_SHARED_BY[self.policy]}. Retry after {self.reset_seconds} s.",
            headers={"Retry-After": str(self.reset_seconds)},
        )


class RateLimiter:
    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        limits = settings.rate_limits
        self.items: dict[str, RateLimitItem] = {
            "sandbox": parse(limits.sandbox),
            "production": parse(limits.production),
            "anonymous": parse(limits.anonymous),
            "media": parse(limits.media),
            "previews": parse(limits.previews),
            "console": parse(limits.console),
        }
        # In process, `limits`' synchronous storage, called on the event loop: a hit is a few
        # microseconds of list work. Its asyncio memory storage hands each hit's expiry scan
        # to a thread (0.3 ms a request, a quarter of the API's own time per request), its
        # synchronous one to a timer thread (LoopSweptMemoryStorage).
        self.memory_storage = LoopSweptMemoryStorage()
        self._memory = LocalMovingWindow(self.memory_storage)
        # Redis asyncio connections belong to the event loop that opened them: one client
        # per loop (a server has one; tests and embedded apps may run several).
        self._per_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, MovingWindowRateLimiter
        ] = weakref.WeakKeyDictionary()

    def _shared(self) -> MovingWindowRateLimiter:
        """The limiter shared through Redis, for the running event loop."""
        assert self.settings.redis_url
        loop = asyncio.get_running_loop()
        strategy = self._per_loop.get(loop)
        if strategy is None:
            storage = RedisStorage(
                "async+" + self.settings.redis_url,
                implementation="redispy",
                key_prefix=f"{self.settings.redis_namespace}:ratelimit",
            )
            strategy = self._per_loop[loop] = MovingWindowRateLimiter(storage)
        return strategy

    async def hit_account(self, owner: Owned) -> Decision:
        """A request of any key of the account in its environment: one bucket for them all."""
        environment = owner.environment
        return await self._hit(self.items[environment], "account", environment, owner.account_id)

    async def hit_anonymous(self, client: str) -> Decision:
        return await self._hit(self.items["anonymous"], "anonymous", client)

    async def hit_public(self, policy: str, client: str) -> Decision:
        """A request to a public surface (`media`, `previews`, `console`) from `client`."""
        return await self._hit(self.items[policy], policy, client)

    async def _hit(self, item: RateLimitItem, policy: str, *identity: str) -> Decision:
        try:
            if self.settings.redis_url:
                strategy = self._shared()
                allowed = await strategy.hit(item, policy, *identity)
                stats = await strategy.get_window_stats(item, policy, *identity)
            else:
                allowed = self._memory.hit(item, policy, *identity)
                stats = self._memory.get_window_stats(item, policy, *identity)
        except Exception as exc:  # the storage (Redis) is down: a dependency error, not ours
            raise ServiceUnavailable(
                "Rate-limit storage is unavailable; retry shortly.", headers={"Retry-After": "5"}
            ) from exc
        reset = max(1, math.ceil(stats.reset_time - time.time()))
        return Decision(
            allowed=allowed,
            policy=policy,
            limit=item.amount,
            window_seconds=item.get_expiry(),
            remaining=max(0, stats.remaining),
            reset_seconds=reset,
        )
