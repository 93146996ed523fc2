"""Who calls over MCP: the account (and environment) of an API key, as for any API request.

Over streamable HTTP, the gateway has checked each request's `Authorization: Bearer` key and
spent its account's rate limit before the request reached /mcp (core.middleware): the MCP
server reads the principal the gateway left on it. Over stdio, the key given to
`soundstage mcp` is checked, and the rate limit spent, at each call of a tool and each read of
a resource: a key revoked meanwhile is refused as the HTTP API would refuse it.

Either way a middleware of the MCP server (the SDK's `ServerMiddleware`, around every message)
sets the principal for the handler it wraps; tools and resources read it with `current()`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Final

from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
from starlette.concurrency import run_in_threadpool

from soundstage.accounts import service as accounts
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError, MissingApiKey
from soundstage.core.principal import Principal
from soundstage.core.ratelimit import RateLimiter
from soundstage.mcp_server import errors

_principal: ContextVar[Principal | None] = ContextVar("soundstage_mcp_principal", default=None)

# The requests that act for the account (the others describe the server: its tools, its
# resources, the handshake).
TOOL_CALL: Final = "tools/call"
ACTING_METHODS: Final = frozenset({TOOL_CALL, "resources/read"})


def current() -> Principal:
    """The principal of the MCP request being handled."""
    principal = _principal.get()
    if principal is None:  # a middleware of this module always sets it for acting requests
        raise MissingApiKey("No API key provided.")
    return principal


@contextmanager
def acting_as(principal: Principal | None) -> Iterator[None]:
    token = _principal.set(principal)
    try:
        yield
    finally:
        _principal.reset(token)


class GatewayCaller:
    """Over HTTP: the principal the gateway put on the request (`request.state.principal`)."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        state = getattr(ctx.request, "state", None)
        principal = getattr(state, "principal", None)
        with acting_as(principal if isinstance(principal, Principal) else None):
            return await call_next(ctx)


class KeyCaller:
    """Over stdio: the one key of the process, checked (through the same short-lived cache of
    valid keys as the gateway's) and its account's rate limit spent, at each acting request."""

    def __init__(self, db: Database, settings: Settings, key: str) -> None:
        self.db = db
        self.database_url = settings.resolved_database_url
        self.key_ttl = settings.accounts.key_cache_seconds
        self.authorization = f"Bearer {key}"
        self.limiter = RateLimiter(settings)

    def authenticate(self) -> Principal:
        """The key's principal (401 if it is unknown, malformed or revoked)."""
        recent = accounts.authenticate_recent(self.database_url, self.authorization)
        if recent is not None:
            return recent
        with self.db.read_session() as session:
            principal = accounts.authenticate(session, self.authorization)
        accounts.remember(self.database_url, self.authorization, principal, self.key_ttl)
        return principal

    async def admit(self) -> Principal:
        principal = await run_in_threadpool(self.authenticate)
        decision = await self.limiter.hit_account(principal)
        if not decision.allowed:
            raise decision.error()
        return principal

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.method not in ACTING_METHODS:
            return await call_next(ctx)
        try:
            principal = await self.admit()
        except AppError as error:
            if ctx.method == TOOL_CALL:
                return errors.tool_error(error)
            raise errors.refused(error) from error
        with acting_as(principal):
            return await call_next(ctx)
