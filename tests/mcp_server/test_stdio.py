"""`soundstage mcp` end to end: the `mcp` package's own ClientSession over its stdio client,
the command run as a subprocess with its embedded job worker (no other worker runs for this
module). Refused without a usable key; every call runs as the key's account, a key revoked
meanwhile is refused at the next call."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from mcp_types import CallToolResult

from soundstage.accounts import service as accounts
from soundstage.config import Settings
from soundstage.core.db import Database
from tests.support.factories import create_customer
from tests.support.mcp import TOOLS, answer, stdio_parameters, stdio_session, tool_error
from tests.support.processes import REPO_ROOT

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("demo_catalog")]

SENTENCE = "Hello from the command line."


def run_command(settings: Settings, key: str | None) -> subprocess.CompletedProcess[str]:
    parameters = stdio_parameters(settings, key, "--no-worker")
    return subprocess.run(
        [parameters.command, *parameters.args],
        env=parameters.env,
        cwd=REPO_ROOT,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_it_refuses_to_start_without_a_usable_key(settings: Settings) -> None:
    missing = run_command(settings, None)
    assert missing.returncode == 2, missing.stderr
    assert "an API key is required" in missing.stderr
    assert "SOUNDSTAGE_MCP_API_KEY" in missing.stderr
    refused = run_command(settings, "sk_sandbox_nosuchkey")
    assert refused.returncode == 1, refused.stderr
    assert "the API key is refused: Invalid API key provided." in refused.stderr
    assert missing.stdout == refused.stdout == ""  # the protocol's stream stays clean


def test_tools_run_as_the_keys_account_with_the_embedded_worker(
    settings: Settings, db: Database, tmp_path: Path
) -> None:
    customer = create_customer(db, credits_each=1000)
    log = tmp_path / "stderr.log"

    async def scenario() -> tuple[set[str], str, list[CallToolResult]]:
        with log.open("w") as errlog:
            # Keys looked up at every call: the revocation below is seen at once.
            async with stdio_session(
                settings,
                customer.sandbox_key,
                errlog=errlog,
                SOUNDSTAGE_ACCOUNTS__KEY_CACHE_SECONDS="0",
            ) as session:
                tools = {tool.name for tool in (await session.list_tools()).tools}
                (voice,) = (await session.read_resource("voices://voice_kal")).contents
                results = [
                    await session.call_tool(
                        "text_to_speech", {"text": SENTENCE, "voice_id": "voice_kal"}
                    ),
                    await session.call_tool("get_credits", {}),
                ]
                await asyncio.to_thread(revoke, db, customer.sandbox_key_id)
                results.append(await session.call_tool("get_credits", {}))
                return tools, getattr(voice, "text", ""), results

    tools, voice, (spoken, balance, revoked) = asyncio.run(scenario())
    assert tools == TOOLS, log.read_text()
    assert json.loads(voice)["voice_id"] == "voice_kal"
    body = answer(spoken)
    assert (body["status"], body["credits_used"]) == ("completed", len(SENTENCE))
    assert body["output_url"].startswith(settings.media_base_url)
    assert answer(balance)["balance"] == 1000 - len(SENTENCE)
    tool_error(revoked, 401, "api_key_revoked")


def revoke(db: Database, key_id: str) -> None:
    with db.session() as session:
        accounts.revoke_key(session, key_id)
