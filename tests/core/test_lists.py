"""One list shape and one timestamp format: every list endpoint answers
`{"object": "list", "data": [...], "has_more": bool}` paged by `limit` / `starting_after` /
`ending_before`, and every instant of every answer (webhook events too) is RFC 3339 UTC with
milliseconds and `Z`."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.timeutil import TIMESTAMP_PATTERN, rfc3339
from soundstage.voices.service import CatalogCounts
from soundstage.webhooks import service as webhooks
from tests.support.api import every_page, list_operations
from tests.support.factories import Customer, create_buyer, principal_of
from tests.support.jobs import submit, wait_for

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker")]

TIMESTAMP = re.compile(TIMESTAMP_PATTERN)
PAGE_PARAMETERS = {"limit", "starting_after", "ending_before"}


def test_every_list_has_the_one_shape_and_the_cursor_parameters(client: TestClient) -> None:
    lists = list_operations(client.get("/openapi.json").json())
    assert len(lists) >= 17
    assert {"/api/v1/speech/dubbing/languages", "/api/v1/creative/sound/recipes"} <= set(lists)
    for path, operation in lists.items():
        properties = operation["schema"]["properties"]
        assert set(properties) == {"object", "data", "has_more"}, path
        assert properties["object"]["const"] == "list", path
        assert properties["has_more"]["type"] == "boolean", path
        names = {p["name"] for p in operation["parameters"] if p["in"] == "query"}
        assert names >= PAGE_PARAMETERS, path


def _instants(schema: Any, where: str = "") -> list[tuple[str, Any]]:
    """Every `*_at` property and every date-time anywhere in the document, with its schema."""
    found = []
    if isinstance(schema, dict):
        if schema.get("format") == "date-time":
            found.append((where, schema))
        for name, value in schema.get("properties", {}).items():
            if name.endswith("_at"):
                found.append((f"{where}.{name}", value))
        for key, value in schema.items():
            found += _instants(value, f"{where}/{key}")
    elif isinstance(schema, list):
        for i, value in enumerate(schema):
            found += _instants(value, f"{where}[{i}]")
    return found


# A vendor's own wire format, which its SDK parses: ElevenLabs' user has `created_at` in Unix
# seconds (an int its SDK requires).
VENDOR_INSTANTS = {"/components/schemas/ElevenLabsUser.created_at"}


def test_every_instant_in_the_document_is_the_one_timestamp(client: TestClient) -> None:
    instants = _instants(client.get("/openapi.json").json())
    assert len(instants) > 40
    assert {where for where, _ in instants} >= VENDOR_INSTANTS
    for where, schema in instants:
        if where in VENDOR_INSTANTS:
            assert schema["type"] == "integer", where
            continue
        variants = schema.get("anyOf", [schema])
        strings = [v for v in variants if v.get("type") != "null"]
        assert strings, where
        for variant in strings:
            assert variant.get("pattern") == TIMESTAMP_PATTERN, where


def test_the_format_is_utc_with_milliseconds() -> None:
    moment = datetime(2026, 11, 23, 11, 0, 0, 123_999, tzinfo=timezone(timedelta(hours=1)))
    assert rfc3339(moment) == "2026-11-23T10:00:00.123Z"
    # SQLite hands back naive datetimes: they are UTC.
    assert rfc3339(datetime(2026, 11, 23, 10, 0)) == "2026-11-23T10:00:00.000Z"
    assert TIMESTAMP.fullmatch(rfc3339(datetime.now(UTC)))


def _timestamps(value: Any, key: str = "") -> list[str]:
    """Every value of a `*_at` key, at any depth (event data included)."""
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _timestamps(v, k)]
    if isinstance(value, list):
        return [s for v in value for s in _timestamps(v, key)]
    return [value] if key.endswith("_at") and value is not None else []


def test_every_list_answers_the_shape_and_the_timestamps(
    client: TestClient, db: Database, settings: Settings, demo_catalog: CatalogCounts
) -> None:
    customer = create_buyer(db, credits_each=100)
    # Something in the lists: a ledger (the grant), an agent, an asynchronous job and its
    # event (with the job, timestamps included, in its data).
    voice = client.get("/api/v1/voices?limit=1", headers=customer.auth()).json()["data"][0]
    agent = {"name": "Receptionist", "voice_id": voice["voice_id"]}
    assert client.post("/api/v1/agents", json=agent, headers=customer.auth()).status_code == 200
    job_id = submit(db, settings, principal_of(customer), "test.echo", {"value": 1}, is_async=True)
    wait_for(client, customer, job_id, "completed")

    lists = list_operations(client.get("/openapi.json").json())
    checked = 0
    for path in sorted(lists):
        if "{" in path:
            continue  # deliveries of one endpoint: below
        response = client.get(f"{path}?limit=2", headers=customer.auth())
        assert response.status_code == 200, (path, response.text)
        body = response.json()
        assert set(body) == {"object", "data", "has_more"}, path
        assert (body["object"], type(body["has_more"])) == ("list", bool), path
        assert len(body["data"]) <= 2, path
        for value in _timestamps(body["data"]):
            assert TIMESTAMP.fullmatch(value), (path, value)
            checked += 1
    assert checked >= 8  # ledger, agent, job, event and the job in its data

    event = client.get("/api/v1/events", headers=customer.auth()).json()["data"][0]
    assert event["data"]["job_id"] == job_id
    assert TIMESTAMP.fullmatch(event["data"]["completed_at"])


def test_a_webhook_payload_spells_time_as_the_api(
    client: TestClient, db: Database, customer: Customer
) -> None:
    with db.session() as session:
        event = webhooks.emit(
            session, (customer.account_id, "sandbox"), "job.completed", {"job_id": "job_x"}
        )
        payload = json.loads(webhooks.payload_of(event))
    shown = client.get(f"/api/v1/events/{event.id}", headers=customer.auth()).json()
    assert payload["timestamp"] == shown["created_at"]
    assert TIMESTAMP.fullmatch(payload["timestamp"])


@pytest.mark.parametrize(
    ("path", "key"),
    [("/api/v1/speech/dubbing/languages", "id"), ("/api/v1/creative/sound/recipes", "name")],
)
def test_a_catalog_list_pages_like_a_table(
    client: TestClient, customer: Customer, demo_catalog: CatalogCounts, path: str, key: str
) -> None:
    keys = [item[key] for item in every_page(client, customer, path, key=key)]
    assert len(keys) == len(set(keys)) > 10
    first = client.get(f"{path}?limit=3", headers=customer.auth()).json()
    assert ([i[key] for i in first["data"]], first["has_more"]) == (keys[:3], True)
    second = client.get(f"{path}?limit=3&starting_after={keys[2]}", headers=customer.auth()).json()
    assert [i[key] for i in second["data"]] == keys[3:6]
    back = client.get(f"{path}?limit=2&ending_before={keys[3]}", headers=customer.auth()).json()
    assert ([i[key] for i in back["data"]], back["has_more"]) == (keys[1:3], True)
    start = client.get(f"{path}?limit=5&ending_before={keys[2]}", headers=customer.auth()).json()
    assert ([i[key] for i in start["data"]], start["has_more"]) == (keys[:2], False)
    last = client.get(f"{path}?limit=100&starting_after={keys[-2]}", headers=customer.auth()).json()
    assert ([i[key] for i in last["data"]], last["has_more"]) == (keys[-1:], False)
    missing = client.get(f"{path}?starting_after=zz_nothing", headers=customer.auth())
    assert missing.status_code == 404
    assert missing.json()["error"]["param"] == "starting_after"
