"""MCP clients for the tests: the `mcp` package's own `ClientSession`, over its streamable HTTP
client (against a live server's /mcp) or over its stdio client (against `soundstage mcp` run
as a subprocess); and what a tool call answered."""

from __future__ import annotations

import asyncio
import sys
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import httpx
import httpx2
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from soundstage.config import Settings
from soundstage.media.audio import Audio, decode
from tests.support.processes import REPO_ROOT, settings_env

# Every tool the server offers.
TOOLS = frozenset(
    {
        "text_to_speech",
        "speech_to_text",
        "isolate_voice",
        "generate_sound_effect",
        "generate_music",
        "list_voices",
        "search_talent",
        "search_studios",
        "get_credits",
    }
)


# What an MCP client sends first (a raw request, for tests of the HTTP layer around /mcp).
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "soundstage-tests", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream"}


@asynccontextmanager
async def http_session(base_url: str, key: str) -> AsyncIterator[ClientSession]:
    """An initialized session with `base_url`/mcp, every request sent with the key."""
    headers = {"Authorization": f"Bearer {key}"}
    # The SDK's HTTP client, as its docs configure one: headers, and a long read for tools
    # that wait for their job.
    async with (
        httpx2.AsyncClient(headers=headers, timeout=httpx2.Timeout(30, read=300)) as http,
        streamable_http_client(f"{base_url}/mcp", http_client=http) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def call_tools(base_url: str, key: str, *calls: tuple[str, dict[str, Any]]) -> list[CallToolResult]:
    """Each tool call (name, arguments) in turn, in one HTTP session with the key."""

    async def scenario() -> list[CallToolResult]:
        async with http_session(base_url, key) as session:
            return [await session.call_tool(name, arguments) for name, arguments in calls]

    return asyncio.run(scenario())


def download_audio(url: str) -> Audio:
    """Decode the audio behind a signed media URL a tool answered."""
    response = httpx.get(url, timeout=60)
    assert response.status_code == 200, response.text
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "media"
        path.write_bytes(response.content)
        return decode(path)


def stdio_parameters(
    settings: Settings, key: str | None, *options: str, **extra_env: str
) -> StdioServerParameters:
    """`soundstage mcp` with the tests' settings (and `extra_env`) and, when given, the key in
    the environment."""
    env = settings_env(settings) | extra_env
    if key is not None:
        env["SOUNDSTAGE_MCP_API_KEY"] = key
    return StdioServerParameters(
        command=sys.executable,
        args=["-m", "soundstage.cli", "mcp", *options],
        env=env,
        cwd=REPO_ROOT,
    )


@asynccontextmanager
async def stdio_session(
    settings: Settings, key: str, *options: str, errlog: TextIO = sys.stderr, **extra_env: str
) -> AsyncIterator[ClientSession]:
    """An initialized session with `soundstage mcp` run as a subprocess (its stderr to
    `errlog`)."""
    parameters = stdio_parameters(settings, key, *options, **extra_env)
    async with (
        stdio_client(parameters, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


def answer(result: CallToolResult) -> dict[str, Any]:
    """A successful tool call's structured content (its text content is the same JSON)."""
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None
    return dict(result.structured_content)


def tool_error(result: CallToolResult, status: int, code: str) -> dict[str, Any]:
    """The call failed as a tool error carrying the API's error (status and code); the
    envelope's `error`."""
    assert result.is_error, result
    assert result.structured_content is not None, text_of(result)
    error: dict[str, Any] = result.structured_content["error"]
    assert (error["status"], error["code"]) == (status, code), error
    assert error["message"]
    assert code in text_of(result)
    return error


def text_of(result: CallToolResult) -> str:
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))
