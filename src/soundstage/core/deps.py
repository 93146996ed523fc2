"""FastAPI dependencies shared by every feature: the app's database and settings, the
request's session and the caller."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from typing import Annotated

import anyio
from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import MissingApiKey, SandboxOnly
from soundstage.core.principal import Principal
from soundstage.core.routing import REQUEST_UNIT

log = logging.getLogger("soundstage")

# Declared for the OpenAPI document; the gateway middleware has already checked the key.
_bearer = HTTPBearer(auto_error=False, description="Secret key: sk_sandbox_… or sk_live_…")


def database(request: Request) -> Database:
    db: Database = request.app.state.db
    return db


# Asynchronous, so FastAPI calls them on the event loop rather than through a worker thread.
async def _app_database(request: Request) -> Database:
    return database(request)


async def _app_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def request_session(request: Request) -> AsyncIterator[Session]:
    """The request's unit of work: a session that takes a pooled connection at its first
    statement, on the endpoint's thread, and is committed there when the endpoint returns
    (rolled back if it raises: core.routing). Services only flush. GET requests only read,
    so on SQLite they take no write lock. Only endpoints take it, never another dependency
    (tests/core/test_routing.py): a dependency runs on a thread of its own, and the
    connection it took would be held while the endpoint waits for one."""
    db = database(request)
    session = db.new_session(read_only=request.method in ("GET", "HEAD"))
    session.info[REQUEST_UNIT] = True
    try:
        yield session
    finally:
        if session.in_transaction():
            # Used outside its endpoint's thread (a bug: logged). Ended on a thread that waits
            # for no pool token, as FastAPI ends a synchronous dependency.
            log.error("request session still open after %s %s", request.method, request.url.path)
            await anyio.to_thread.run_sync(session.close, limiter=anyio.CapacityLimiter(1))
        else:
            session.close()


async def current_principal(
    request: Request,
    _credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Principal:
    principal = getattr(request.state, "principal", None)
    if not isinstance(principal, Principal):
        raise MissingApiKey("No API key provided.")
    return principal


# The app's (create_app puts them in its state); for endpoints that open their own units of
# work (jobs waited for, uploads, streams) or read configuration.
DatabaseDep = Annotated[Database, Depends(_app_database)]
SettingsDep = Annotated[Settings, Depends(_app_settings)]
SessionDep = Annotated[Session, Depends(request_session, scope="function")]
PrincipalDep = Annotated[Principal, Depends(current_principal)]


async def sandbox_principal(principal: PrincipalDep) -> Principal:
    """Test helpers under /api/v1/sandbox/… answer only to sandbox keys."""
    if principal.environment != "sandbox":
        raise SandboxOnly("This test helper is available to sandbox keys only.")
    return principal


SandboxPrincipalDep = Annotated[Principal, Depends(sandbox_principal)]
