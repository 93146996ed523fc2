"""/mcp end to end: the `mcp` package's own ClientSession over its streamable HTTP client against
a real `soundstage serve`, the worker doing the jobs. Tools listed with their schemas, called
with real inputs as the key's account; errors (bounds, 402, 404, 403) come back as tool errors
with the API's code; the key is checked by the API's gateway (401 in the API's envelope)."""

from __future__ import annotations

import asyncio
import io
import json
from typing import Any

import httpx
import numpy as np
import pytest
import soundfile
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, TextResourceContents

from soundstage.core.db import Database
from tests.support.api import assert_error
from tests.support.factories import (
    create_buyer,
    create_customer,
    create_studio,
    create_talent,
    unique_word,
)
from tests.support.mcp import (
    ACCEPT,
    INITIALIZE,
    TOOLS,
    answer,
    call_tools,
    http_session,
    text_of,
    tool_error,
)

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

SENTENCE = "The quick brown fox jumps over the lazy dog near the quiet river bank."
VOICE = "voice_kal"


def test_every_tool_is_listed_with_its_schemas_and_the_catalog_as_resources(
    server: str, db: Database
) -> None:
    customer = create_customer(db)

    async def scenario() -> tuple[Any, Any, Any]:
        async with http_session(server, customer.sandbox_key) as session:
            return (
                (await session.list_tools()).tools,
                (await session.list_resources()).resources,
                (await session.list_resource_templates()).resource_templates,
            )

    tools, resources, templates = asyncio.run(scenario())
    listed = {tool.name: tool for tool in tools}
    assert set(listed) == TOOLS
    for tool in tools:
        assert tool.description
        assert tool.input_schema["type"] == "object"
        assert tool.input_schema["additionalProperties"] is False  # unknown fields refused
        assert tool.output_schema is not None
        assert tool.output_schema["type"] == "object"
    inputs = {name: tool.input_schema for name, tool in listed.items()}
    # The HTTP endpoints' request models, with their bounds.
    assert inputs["text_to_speech"]["required"] == ["text", "voice_id"]
    assert inputs["text_to_speech"]["properties"]["text"]["maxLength"] == 5000
    assert inputs["generate_sound_effect"]["properties"]["duration_seconds"]["maximum"] == 30
    assert inputs["generate_music"]["properties"]["duration_seconds"]["minimum"] == 10
    assert inputs["speech_to_text"]["required"] == inputs["isolate_voice"]["required"]
    assert inputs["speech_to_text"]["required"] == ["audio_url"]
    assert inputs["list_voices"]["properties"]["limit"]["maximum"] == 100
    assert {"q", "genre", "language", "accent", "limit"} <= set(
        inputs["search_talent"]["properties"]
    )
    assert {"city", "state", "type", "capacity"} <= set(inputs["search_studios"]["properties"])
    assert inputs["get_credits"]["properties"] == {}
    outputs = {name: tool.output_schema or {} for name, tool in listed.items()}
    assert {"output_url", "duration_ms", "credits_used"} <= set(
        outputs["text_to_speech"]["properties"]
    )
    assert {"transcript", "words"} <= set(outputs["speech_to_text"]["properties"])
    assert [str(resource.uri) for resource in resources] == ["voices://catalog"]
    assert [template.uri_template for template in templates] == ["voices://{voice_id}"]


def test_text_to_speech_answers_a_signed_url_of_the_audio_and_charges_the_account(
    server: str, db: Database
) -> None:
    customer = create_customer(db, credits_each=1000)
    spoken, balance = call_tools(
        server,
        customer.sandbox_key,
        ("text_to_speech", {"text": SENTENCE, "voice_id": VOICE, "format": "wav"}),
        ("get_credits", {}),
    )
    body = answer(spoken)
    assert json.loads(text_of(spoken)) == body  # the same JSON for a model that reads text
    assert body["status"] == "completed"
    assert (body["characters_processed"], body["credits_used"]) == (len(SENTENCE), len(SENTENCE))
    assert "words" not in body  # absent without timestamps, as over HTTP
    audio = httpx.get(body["output_url"], timeout=30)
    assert audio.status_code == 200
    samples, rate = soundfile.read(io.BytesIO(audio.content), dtype="float32")
    assert abs(len(samples) * 1000 / rate - body["duration_ms"]) <= 30
    assert 2000 < body["duration_ms"] < 10000
    assert float(np.sqrt(np.mean(np.square(samples)))) > 0.01  # speech, not silence
    assert answer(balance) | {"updated_at": None} == {
        "object": "credit_balance",
        "environment": "sandbox",
        "balance": 1000 - len(SENTENCE),
        "reserved": 0,
        "updated_at": None,
    }
    # The job is the account's, as one made over HTTP.
    job = httpx.get(f"{server}/api/v1/jobs/{body['job_id']}", headers=customer.auth())
    assert (job.json()["kind"], job.json()["credits_used"]) == ("tts", len(SENTENCE))


def test_a_key_runs_in_its_own_environment(server: str, db: Database) -> None:
    customer = create_customer(db, credits_each=700)
    (balance,) = call_tools(server, customer.production_key, ("get_credits", {}))
    assert (answer(balance)["environment"], answer(balance)["balance"]) == ("production", 700)


def test_a_bound_violated_is_a_tool_error_and_nothing_is_charged(server: str, db: Database) -> None:
    customer = create_customer(db, credits_each=100)
    at_most = ("word " * 1000)[:5000]
    results = call_tools(
        server,
        customer.sandbox_key,
        ("text_to_speech", {"text": at_most + "s", "voice_id": VOICE}),
        # At the bound the text is taken: what stops it is the price (5,000 credits).
        ("text_to_speech", {"text": at_most, "voice_id": VOICE}),
        ("generate_sound_effect", {"prompt": "a dog barking", "duration_seconds": 31}),
        ("generate_sound_effect", {"prompt": "a dog barking", "duration_seconds": 30}),
        ("text_to_speech", {"text": SENTENCE, "voice_id": VOICE, "volume": 11}),
        ("text_to_speech", {"text": SENTENCE, "voice_id": VOICE, "pitch": "3"}),
        ("text_to_speech", {"text": SENTENCE}),
        ("get_credits", {}),
    )
    too_long, at_bound, too_many_seconds, thirty_seconds, unknown, a_string, missing, balance = (
        results
    )
    error = tool_error(too_long, 422, "parameter_invalid")
    # The envelope the HTTP API answers, with the id of the HTTP request that carried the call.
    assert (error["param"], error["type"]) == ("text", "invalid_request_error")
    assert error["request_id"].startswith("req_")
    tool_error(at_bound, 402, "insufficient_credits")
    assert tool_error(too_many_seconds, 422, "parameter_invalid")["param"] == "duration_seconds"
    tool_error(thirty_seconds, 402, "insufficient_credits")  # 150 credits a generation
    assert tool_error(unknown, 422, "parameter_unknown")["param"] == "volume"
    assert tool_error(a_string, 422, "parameter_invalid")["param"] == "pitch"
    assert tool_error(missing, 422, "parameter_missing")["param"] == "voice_id"
    assert (answer(balance)["balance"], answer(balance)["reserved"]) == (100, 0)


def test_an_unknown_voice_is_a_404_tool_error_and_a_resource_not_found(
    server: str, db: Database
) -> None:
    customer = create_customer(db, credits_each=1000)

    async def scenario() -> tuple[CallToolResult, MCPError]:
        async with http_session(server, customer.sandbox_key) as session:
            result = await session.call_tool(
                "text_to_speech", {"text": SENTENCE, "voice_id": "voice_nobody"}
            )
            with pytest.raises(MCPError) as refused:
                await session.read_resource("voices://voice_nobody")
            return result, refused.value

    result, refused = asyncio.run(scenario())
    assert tool_error(result, 404, "voice_not_found")["param"] == "voice_id"
    assert "voice_not_found" in str(refused)


def test_the_voice_catalog_as_a_tool_and_as_resources(server: str, db: Database) -> None:
    customer = create_customer(db)

    async def scenario() -> tuple[CallToolResult, Any, Any]:
        async with http_session(server, customer.sandbox_key) as session:
            return (
                await session.call_tool("list_voices", {"language": "en", "limit": 3}),
                await session.read_resource("voices://catalog"),
                await session.read_resource(f"voices://{VOICE}"),
            )

    listed, catalog, one = asyncio.run(scenario())
    page = answer(listed)
    assert len(page["data"]) == 3
    assert page["has_more"] is True
    assert all(voice["language"].lower().startswith("en") for voice in page["data"])
    (document,) = catalog.contents
    assert isinstance(document, TextResourceContents)
    assert document.mime_type == "application/json"
    voices = json.loads(document.text)["data"]
    ids = [voice["voice_id"] for voice in voices]
    assert len(ids) == len(set(ids)) > 3
    assert VOICE in ids
    assert {voice["voice_id"] for voice in page["data"]} <= set(ids)
    (voice,) = one.contents
    assert isinstance(voice, TextResourceContents)
    assert json.loads(voice.text) == next(v for v in voices if v["voice_id"] == VOICE)


def test_search_talent_is_for_verified_buyers_only(server: str, db: Database) -> None:
    word = unique_word()
    creator_id = create_talent(db, bio=f"A voice for {word} adverts.")
    unverified, buyer = create_customer(db), create_buyer(db)
    (refused,) = call_tools(server, unverified.sandbox_key, ("search_talent", {"q": word}))
    tool_error(refused, 403, "buyer_not_verified")
    (found,) = call_tools(
        server, buyer.sandbox_key, ("search_talent", {"q": word, "verified": True})
    )
    assert [hit["creator_id"] for hit in answer(found)["data"]] == [creator_id]


def test_search_studios_finds_a_studio_by_city(server: str, db: Database) -> None:
    studio = create_studio(db, types=("podcast",))
    customer = create_customer(db)
    found, none, capacity = call_tools(
        server,
        customer.sandbox_key,
        ("search_studios", {"city": studio.address.city, "type": "podcast"}),
        ("search_studios", {"city": studio.address.city, "type": "foley"}),
        ("search_studios", {"capacity": 1001}),
    )
    (hit,) = answer(found)["data"]
    assert (hit["id"], hit["max_booth_capacity"]) == (studio.id, 4)
    assert answer(none)["data"] == []
    assert tool_error(capacity, 422, "parameter_invalid")["param"] == "capacity"


def test_a_bad_key_is_refused_by_the_gateway_in_the_apis_envelope(
    server: str, db: Database
) -> None:
    refused = httpx.post(
        f"{server}/mcp",
        headers={"Authorization": "Bearer sk_sandbox_nosuchkey", **ACCEPT},
        json=INITIALIZE,
    )
    assert_error(refused, 401, "invalid_api_key")
    assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]
    assert_error(
        httpx.post(f"{server}/mcp", headers=ACCEPT, json=INITIALIZE), 401, "missing_api_key"
    )
    customer = create_customer(db)
    admitted = httpx.post(f"{server}/mcp", headers={**customer.auth(), **ACCEPT}, json=INITIALIZE)
    assert admitted.status_code == 200, admitted.text
    assert admitted.json()["result"]["serverInfo"]["name"] == "soundstage"
    # Spent from the account's bucket, as any API request.
    assert admitted.headers["RateLimit-Policy"].startswith('"account"')
