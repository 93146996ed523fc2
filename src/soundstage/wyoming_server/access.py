"""Who a Wyoming request runs as: the server's one API key, whose account (sandbox or
production, from the key) every request is made by. The key is checked as the server starts
and again per request as the HTTP API checks it (a revoked key is refused within
`accounts.key_cache_seconds`), and each request spends one of its account's rate limit,
the bucket its HTTP requests spend (shared with the API processes through Redis when
`redis_url` is set, as API processes share it)."""

from __future__ import annotations

from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool

from soundstage.accounts import service as accounts
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.core.ratelimit import RateLimiter


def key_principal(db: Database, api_key: str) -> Principal:
    """The key's principal (raises the 401 AppError the HTTP API answers a bad key with).
    Blocking."""
    with db.read_session() as session:
        return accounts.authenticate(session, f"Bearer {api_key}")


@dataclass(frozen=True)
class Access:
    db: Database
    settings: Settings
    api_key: str
    limiter: RateLimiter

    async def admit(self) -> Principal:
        """The key's principal for one request, which spends one request of its account's
        rate limit (raises AppError: 401 for a key no longer valid, 429 past the limit)."""
        database = self.settings.resolved_database_url
        authorization = f"Bearer {self.api_key}"
        principal = accounts.authenticate_recent(database, authorization)
        if principal is None:
            principal = await run_in_threadpool(key_principal, self.db, self.api_key)
            accounts.remember(
                database, authorization, principal, self.settings.accounts.key_cache_seconds
            )
        decision = await self.limiter.hit_account(principal)
        if not decision.allowed:
            raise decision.error()
        return principal
