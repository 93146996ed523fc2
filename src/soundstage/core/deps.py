"""FastAPI dependencies shared by every feature: the app's database and settings, the
request's session and the caller."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import MissingApiKey, SandboxOnly
from soundstage.core.principal import Principal

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


def request_session(request: Request) -> Iterator[Session]:
    """One transaction per request: committed when the endpoint returns, before the
    response is sent; rolled back on any error. Services only flush. GET requests only
    read, so on SQLite they take no write lock."""
    db = database(request)
    unit = db.read_session() if request.method in ("GET", "HEAD") else db.session()
    with unit as session:
        yield session


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
