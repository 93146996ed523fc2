"""FastAPI dependencies shared by every feature: the app's database and settings (for HTTP
and WebSocket endpoints alike), the request's session and the caller."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session
from starlette.requests import HTTPConnection

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import MissingApiKey, SandboxOnly
from soundstage.core.principal import Principal
from soundstage.core.routing import REQUEST_UNIT


def database(connection: HTTPConnection) -> Database:
    db: Database = connection.app.state.db
    return db


# Asynchronous, so FastAPI calls them on the event loop rather than through a worker thread.
# An HTTPConnection: a request's or a WebSocket's.
async def _app_database(connection: HTTPConnection) -> Database:
    return database(connection)


async def _app_settings(connection: HTTPConnection) -> Settings:
    settings: Settings = connection.app.state.settings
    return settings


async def request_session(request: Request) -> Session:
    """The request's unit of work: a session that takes a pooled connection at its first
    statement, on the endpoint's thread, and is committed (rolled back if the endpoint
    raises) and closed there when the endpoint returns (core.routing). Services only flush.
    GET requests only read, so on SQLite they take no write lock. Only synchronous endpoints
    take it, never another dependency or an asynchronous endpoint (tests/core/test_routing.py):
    a dependency runs on a thread hop of its own, and the connection it took would be held
    while the endpoint waits for one. What the endpoint returns is read after the session
    closed: build the response (or load what it shows) in the endpoint."""
    db = database(request)
    session = db.new_session(read_only=request.method in ("GET", "HEAD"))
    session.info[REQUEST_UNIT] = True
    return session


async def current_principal(request: Request) -> Principal:
    """The caller, whose key the gateway middleware has already checked. An operation that
    depends on it is documented as taking the bearer key (core.openapi), without a security
    dependency of FastAPI's: each dependency costs every request its solving (issue 36's
    overhead)."""
    principal = getattr(request.state, "principal", None)
    if not isinstance(principal, Principal):
        raise MissingApiKey("No API key provided.")
    return principal


# The app's (create_app puts them in its state); for endpoints that open their own units of
# work (jobs waited for, uploads, streams) or read configuration.
DatabaseDep = Annotated[Database, Depends(_app_database)]
SettingsDep = Annotated[Settings, Depends(_app_settings)]
SessionDep = Annotated[Session, Depends(request_session)]
PrincipalDep = Annotated[Principal, Depends(current_principal)]


async def sandbox_principal(principal: PrincipalDep) -> Principal:
    """Test helpers under /api/v1/sandbox/… answer only to sandbox keys."""
    if principal.environment != "sandbox":
        raise SandboxOnly("This test helper is available to sandbox keys only.")
    return principal


SandboxPrincipalDep = Annotated[Principal, Depends(sandbox_principal)]
