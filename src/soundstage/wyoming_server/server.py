"""The Wyoming server of `soundstage wyoming`: the `wyoming` package's own AsyncServer on a
tcp:// or unix:// address, one Connection per client, every request run as the key's
account through the HTTP API's services. Jobs run on the job workers (the command's embedded
one, or `soundstage worker` processes)."""

from __future__ import annotations

import logging
from functools import partial
from typing import Final
from urllib.parse import urlparse

import anyio.to_thread
from starlette.concurrency import run_in_threadpool
from wyoming.server import AsyncServer

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.core.ratelimit import RateLimiter
from soundstage.wyoming_server import catalog
from soundstage.wyoming_server.access import Access, key_principal
from soundstage.wyoming_server.handler import Connection, Context

log = logging.getLogger("soundstage.wyoming")

# stdio:// is left out: the embedded worker shares the process's standard output.
SCHEMES: Final = ("tcp", "unix")


def check_uri(uri: str) -> None:
    """ValueError, saying what is taken, for an address the server cannot listen on."""
    parsed = urlparse(uri)
    if parsed.scheme not in SCHEMES:
        raise ValueError(f"{uri!r}: give tcp://HOST:PORT or unix:///path/to/socket.")
    AsyncServer.from_uri(uri)  # a tcp:// address without a port is refused here


def check_key(settings: Settings, api_key: str) -> Principal:
    """The key's principal, as the server starts (raises the HTTP API's 401 AppError)."""
    db = Database(settings)
    try:
        return key_principal(db, api_key)
    finally:
        db.dispose()


async def serve(settings: Settings, uri: str, api_key: str) -> None:
    """Listen on `uri` until stopped (SIGTERM: the package's server stops its connections)."""
    db = Database(settings)
    try:
        # As many threads for blocking work as database connections, as in an API process:
        # a unit of work begins and ends on one thread, so none waits for a connection.
        anyio.to_thread.current_default_thread_limiter().total_tokens = settings.database.pool_size
        context = Context(
            db=db,
            settings=settings,
            access=Access(db, settings, api_key, RateLimiter(settings)),
            asr=await run_in_threadpool(catalog.asr_program, settings),
        )
        server = AsyncServer.from_uri(uri)
        log.info("Wyoming server listening on %s", uri)
        await server.run(partial(Connection, context))
    finally:
        db.dispose()
