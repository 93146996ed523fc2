"""Who may open a realtime session: an API key in the `Authorization` header, or a
single-use token minted with a key (for browsers, which cannot set WebSocket headers); never
a key anywhere in the URL. Each opening spends one request of the key's rate limit; a failed
one (no valid key or token, a key in the URL) one of the client address's anonymous bucket,
as an unauthenticated HTTP request does. Errors are sent as an `error` message in the API's
envelope, then a close frame with code 4000 + status."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from urllib.parse import unquote_plus

from fastapi import WebSocket
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import Headers
from starlette.websockets import WebSocketDisconnect, WebSocketState

from soundstage.accounts import service as accounts
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError, MalformedRequest
from soundstage.core.principal import Principal
from soundstage.core.ratelimit import RateLimiter
from soundstage.core.timeutil import utcnow
from soundstage.models import RealtimeToken
from soundstage.realtime import repository
from soundstage.realtime.errors import InvalidToken
from soundstage.realtime.messages import ErrorMessage, ServerMessage, send

TOKEN_PREFIX = "rt_"  # noqa: S105 (a prefix, not a secret)
# Close codes: 4000 + the HTTP status of the error (4400 a bad opening message, 4401 no
# valid key or token, 4402 credits, 4408 idle or too long, 4422 a bad value, 4429 rate or
# session limit, 4500 the session failed, 4503 no free slot); 1000 a normal end.
CLOSE_BASE = 4000


@dataclass(frozen=True)
class MintedToken:
    token: str
    expires_at: datetime


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def mint_token(db: Database, settings: Settings, principal: Principal, purpose: str) -> MintedToken:
    """A token that opens one `purpose` session as `principal`, once, within the TTL."""
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    now = utcnow()
    expires_at = now + timedelta(seconds=settings.realtime.token_ttl_seconds)
    with db.session() as session:
        repository.delete_expired(session, now - timedelta(hours=1))
        repository.add_token(
            session,
            RealtimeToken(
                id=_hash(token),
                account_id=principal.account_id,
                environment=principal.environment,
                api_key_id=principal.api_key_id,
                purpose=purpose,
                expires_at=expires_at,
                created_at=now,
            ),
        )
    return MintedToken(token=token, expires_at=expires_at)


def _principal(db: Database, header: str | None, token: str | None, purpose: str) -> Principal:
    with db.session() as session:
        if token is None:
            return accounts.authenticate(session, header)
        used = repository.use_token(session, _hash(token), purpose, utcnow())
        if used is None:
            raise InvalidToken(
                "This realtime token is unknown, expired, already used or for another "
                "endpoint; mint a new one.",
                param="token",
            )
        return accounts.principal_of_key(session, used)


def carries_key(query_string: str) -> bool:
    """Whether an API key appears anywhere in a query string: in any parameter's value or
    name, repeated or not, behind a `Bearer ` or any other text, percent-encoded or not."""
    text = query_string
    for _ in range(4):  # each level of percent-encoding a client may have applied
        if any(prefix in text for prefix in accounts.KEY_PREFIXES.values()):
            return True
        decoded = unquote_plus(text)
        if decoded == text:
            return False
        text = decoded
    return False


def authorization_header(headers: Headers) -> str | None:
    return headers.get("authorization")


async def authenticate(
    websocket: WebSocket,
    purpose: str,
    credential: Callable[[Headers], str | None] = authorization_header,
) -> Principal:
    """The caller of a WebSocket about to open a `purpose` session (raises AppError);
    `credential`: the `Authorization` value its headers carry (another API's header read
    as one: ElevenLabs' `xi-api-key`)."""
    limiter: RateLimiter = websocket.app.state.limiter
    try:
        principal = await _caller(websocket, purpose, credential)
    except AppError as exc:
        if exc.status not in (400, 401):  # not the caller's failure (the database is down)
            raise
        client = websocket.client
        failed = await limiter.hit_anonymous(client.host if client else "unknown")
        if not failed.allowed:
            raise failed.error() from None
        raise
    decision = await limiter.hit_account(principal)
    if not decision.allowed:
        raise decision.error()
    return principal


async def _caller(
    websocket: WebSocket, purpose: str, credential: Callable[[Headers], str | None]
) -> Principal:
    db: Database = websocket.app.state.db
    if carries_key(websocket.scope.get("query_string", b"").decode("latin-1")):
        raise MalformedRequest(
            "API keys are never accepted in a URL: send `Authorization: Bearer <key>`, or a "
            "token from the endpoint's /tokens.",
            param="token",
        )
    token = websocket.query_params.get("token")
    header = credential(websocket.headers)
    return await run_in_threadpool(_principal, db, header, token, purpose)


def close_code(error: AppError) -> int:
    return CLOSE_BASE + error.status


async def refuse(
    websocket: WebSocket,
    error: AppError,
    shape: Callable[[AppError], ServerMessage] = ErrorMessage.of,
) -> None:
    """End the session with `error`: an `error` message (in the API's envelope, or as
    `shape` makes it), then close code 4000 + status (the reason is the error's code).
    Accepts the connection first when it was not."""
    if websocket.client_state == WebSocketState.CONNECTING:
        await websocket.accept()
    if websocket.client_state != WebSocketState.CONNECTED:
        return
    try:
        await send(websocket, shape(error))
        await websocket.close(close_code(error), error.code)
    except (RuntimeError, OSError, WebSocketDisconnect):  # the client has gone, or stalled
        pass
