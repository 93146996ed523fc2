"""Per-API-key rate limits with `limits`: in memory, or shared by every process through Redis.

A moving window: no span of the window's length ever passes more than the limit (a fixed
window let twice the limit through around its edge). `RateLimit`'s `t` and `Retry-After` are
the seconds until the oldest counted request leaves the window, freeing a slot.

Headers follow the IETF RateLimit draft: `RateLimit-Policy: "api-key";q=100;w=60` and
`RateLimit: "api-key";r=99;t=60`; a 429 also carries `Retry-After`.
"""

from __future__ import annotations

import asyncio
import math
import time
import weakref
from dataclasses import dataclass

from limits import RateLimitItem, parse
from limits.aio.storage import MemoryStorage, RedisStorage
from limits.aio.strategies import MovingWindowRateLimiter

from soundstage.config import Settings
from soundstage.core.errors import RateLimited, ServiceUnavailable


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
            f"Too many requests: {self.limit} per {self.window_seconds} s for this {self.policy}. "
            f"Retry after {self.reset_seconds} s.",
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
        }
        self._memory = MovingWindowRateLimiter(MemoryStorage())
        # Redis asyncio connections belong to the event loop that opened them: one client
        # per loop (a server has one; tests and embedded apps may run several).
        self._per_loop: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, MovingWindowRateLimiter
        ] = weakref.WeakKeyDictionary()

    def _strategy(self) -> MovingWindowRateLimiter:
        if not self.settings.redis_url:
            return self._memory
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

    async def hit_key(self, api_key_id: str, environment: str) -> Decision:
        return await self._hit(self.items[environment], "api-key", api_key_id)

    async def hit_anonymous(self, client: str) -> Decision:
        return await self._hit(self.items["anonymous"], "anonymous", client)

    async def _hit(self, item: RateLimitItem, policy: str, identity: str) -> Decision:
        try:
            strategy = self._strategy()
            allowed = await strategy.hit(item, policy, identity)
            stats = await strategy.get_window_stats(item, policy, identity)
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
