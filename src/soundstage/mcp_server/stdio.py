"""The Model Context Protocol over stdio (`soundstage mcp`): one client (a desktop assistant
that started this process), one API key, whose account every call runs as."""

from __future__ import annotations

import anyio

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.mcp_server.callers import KeyCaller
from soundstage.mcp_server.server import build_server


def check_key(db: Database, settings: Settings, key: str) -> Principal:
    """The key's principal, or the API's 401 (raised) for a key it would refuse: checked
    before serving, so that a client configured with a bad key is told at once."""
    return KeyCaller(db, settings, key).authenticate()


def serve(db: Database, settings: Settings, key: str) -> None:
    """Serve MCP on stdin and stdout until the client closes stdin. While it serves, file
    descriptor 1 points at stderr (the SDK's stdio transport), so that nothing written by
    this process or its children strays onto the protocol's stream."""
    server = build_server(db, settings, KeyCaller(db, settings, key))
    anyio.run(server.run_stdio_async)
