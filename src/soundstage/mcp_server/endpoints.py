"""The Model Context Protocol over streamable HTTP at /mcp (the `mcp` package's session
manager, stateless, JSON answers), behind the API's gateway like any API path: each request
carries `Authorization: Bearer <key>` and runs as that key's account, spending its rate limit
and counted by admission control as any request.

Stateless: every POST is complete in itself (no MCP session kept in this process), so any
API process answers any request and nothing is held between them. JSON answers: the request
counts against the process's capacity while its tool works and steps aside while it waits
for its job (`jobs.service.wait`), as an HTTP endpoint's does (an event stream would start the
response, ending the request's turn, at once).

The `mcp` package takes about 0.9 s to import (its protocol types), most of an API process's
start: it is imported, and the manager started, by the first request to /mcp."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Final

import anyio
from anyio.abc import TaskGroup, TaskStatus
from starlette.types import Receive, Scope, Send

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import ServiceUnavailable
from soundstage.core.responses import error_response

if TYPE_CHECKING:
    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager

MCP_PATH: Final = "/mcp"


class McpEndpoint:
    """The ASGI app the route /mcp serves. `serving()` runs with the app's lifespan: the
    session manager is started in its task group by the first request, stopped with it."""

    def __init__(self, settings: Settings, db: Database) -> None:
        self.settings = settings
        self.db = db
        self._group: TaskGroup | None = None
        self._lock: anyio.Lock | None = None
        self._manager: StreamableHTTPSessionManager | None = None

    @asynccontextmanager
    async def serving(self) -> AsyncIterator[None]:
        async with anyio.create_task_group() as group:
            self._group, self._lock = group, anyio.Lock()
            try:
                yield
            finally:
                self._group = self._lock = self._manager = None
                group.cancel_scope.cancel()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        manager = self._manager or await self._start()
        if manager is None:
            error = ServiceUnavailable("The MCP server is not running in this process.")
            await error_response(error, scope)(scope, receive, send)
            return
        await manager.handle_request(scope, receive, send)

    async def _start(self) -> StreamableHTTPSessionManager | None:
        group, lock = self._group, self._lock
        if group is None or lock is None:  # the app runs without its lifespan
            return None
        async with lock:
            if self._manager is None:
                manager = await anyio.to_thread.run_sync(self._make_manager)
                await group.start(self._run, manager)
                self._manager = manager
            return self._manager

    def _make_manager(self) -> StreamableHTTPSessionManager:
        from mcp.server.transport_security import TransportSecuritySettings

        from soundstage.mcp_server.callers import GatewayCaller
        from soundstage.mcp_server.server import build_server

        server = build_server(self.db, self.settings, GatewayCaller())
        # The SDK's one way to configure a session manager; its own Starlette app is not used
        # (the app's route is this endpoint, behind the gateway).
        server.streamable_http_app(
            streamable_http_path=MCP_PATH,
            json_response=True,
            stateless_http=True,
            # No DNS-rebinding check: a request is admitted by its Bearer key, which a page
            # a browser was tricked into loading does not have.
            transport_security=TransportSecuritySettings(enable_dns_rebinding_protection=False),
        )
        return server.session_manager

    @staticmethod
    async def _run(manager: StreamableHTTPSessionManager, *, task_status: TaskStatus[None]) -> None:
        async with manager.run():
            task_status.started()
            await anyio.sleep_forever()
