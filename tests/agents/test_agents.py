"""Voice agents over HTTP: create, read, list (cursor pages), update, delete; the voice is
checked against the catalog and the language against the voice; every bound, one value
inside and one outside."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error
from tests.support.factories import Customer

pytestmark = pytest.mark.services

AGENTS = "/api/v1/agents"


@pytest.fixture(autouse=True)
def _voices(demo_catalog: CatalogCounts) -> None:
    """The demo voices agents speak with."""


def create(client: TestClient, customer: Customer, **fields: Any) -> Any:
    body = {"name": "Front desk", "voice_id": "voice_joe", **fields}
    return client.post(AGENTS, json=body, headers=customer.auth())


def test_an_agent_is_created_read_updated_and_deleted(
    client: TestClient, customer: Customer
) -> None:
    response = create(
        client,
        customer,
        greeting="Hello! How can I help?",
        instructions="Answer questions about opening hours.",
    )
    assert response.status_code == 200, response.text
    agent = response.json()
    assert agent["object"] == "agent"
    assert agent["id"].startswith("agent_")
    assert agent["language"] == "en-US"  # the voice's
    assert agent["greeting"] == "Hello! How can I help?"
    assert agent["created_at"] == agent["updated_at"]
    url = f"{AGENTS}/{agent['id']}"
    assert client.get(url, headers=customer.auth()).json() == agent
    patched = client.patch(url, json={"name": "Reception"}, headers=customer.auth()).json()
    assert patched["name"] == "Reception"
    assert patched["greeting"] == agent["greeting"]
    assert patched["voice_id"] == "voice_joe"
    assert patched["updated_at"] > agent["updated_at"]
    # A new voice without a language takes the new voice's.
    spanish = client.patch(url, json={"voice_id": "voice_es_lucia"}, headers=customer.auth())
    assert (spanish.json()["voice_id"], spanish.json()["language"]) == ("voice_es_lucia", "es-ES")
    deleted = client.delete(url, headers=customer.auth())
    assert deleted.json() == {"object": "agent", "id": agent["id"], "deleted": True}
    assert_error(client.get(url, headers=customer.auth()), 404, "agent_not_found")
    assert_error(client.delete(url, headers=customer.auth()), 404, "agent_not_found")


def test_the_language_is_the_voices_or_a_variant_of_it(
    client: TestClient, customer: Customer
) -> None:
    british = create(client, customer, language="en-gb")
    assert british.json()["language"] == "en-GB"
    french = create(client, customer, language="fr-FR")
    assert assert_error(french, 422, "language_mismatch")["param"] == "language"
    agent = british.json()
    url = f"{AGENTS}/{agent['id']}"
    to_french = client.patch(url, json={"voice_id": "voice_fr_julien"}, headers=customer.auth())
    assert to_french.json()["language"] == "fr-FR"
    mismatch = client.patch(url, json={"language": "de"}, headers=customer.auth())
    assert assert_error(mismatch, 422, "language_mismatch")["param"] == "language"
    assert client.get(url, headers=customer.auth()).json()["language"] == "fr-FR"


def test_an_unknown_voice_is_404(client: TestClient, customer: Customer) -> None:
    error = assert_error(create(client, customer, voice_id="voice_nobody"), 404, "voice_not_found")
    assert error["param"] == "voice_id"
    agent = create(client, customer).json()
    patched = client.patch(
        f"{AGENTS}/{agent['id']}", json={"voice_id": "voice_nobody"}, headers=customer.auth()
    )
    assert_error(patched, 404, "voice_not_found")
    assert client.get(AGENTS, headers=customer.auth()).json()["data"][0]["voice_id"] == "voice_joe"


@pytest.mark.parametrize(
    ("field", "inside", "outside"),
    [
        ("name", "x" * 100, "x" * 101),
        ("name", "x", ""),
        ("greeting", "x" * 1000, "x" * 1001),
        ("instructions", "x" * 10_000, "x" * 10_001),
        ("language", "en", "english"),
        ("voice_id", "voice_joe", ""),
    ],
)
def test_bounds(
    client: TestClient, customer: Customer, field: str, inside: str, outside: str
) -> None:
    assert create(client, customer, **{field: inside}).status_code == 200
    response = create(client, customer, **{field: outside})
    assert assert_error(response, 422, "parameter_invalid")["param"] == field
    agent = create(client, customer).json()
    patched = client.patch(
        f"{AGENTS}/{agent['id']}", json={field: outside}, headers=customer.auth()
    )
    assert assert_error(patched, 422, "parameter_invalid")["param"] == field
    assert client.get(f"{AGENTS}/{agent['id']}", headers=customer.auth()).json() == agent
    unknown = client.patch(
        f"{AGENTS}/{agent['id']}", json={"color": "red"}, headers=customer.auth()
    )
    assert assert_error(unknown, 422, "parameter_unknown")["param"] == "color"


@pytest.mark.parametrize("field", ["name", "voice_id"])
def test_required_fields(client: TestClient, customer: Customer, field: str) -> None:
    body = {"name": "Front desk", "voice_id": "voice_joe"}
    del body[field]
    response = client.post(AGENTS, json=body, headers=customer.auth())
    assert assert_error(response, 422, "parameter_missing")["param"] == field


def test_agents_list_newest_first_with_cursors(client: TestClient, customer: Customer) -> None:
    made = [create(client, customer, name=f"Agent {n}").json()["id"] for n in range(5)]
    listed = client.get(AGENTS, headers=customer.auth()).json()
    assert [a["id"] for a in listed["data"]] == made[::-1]
    first = client.get(f"{AGENTS}?limit=2", headers=customer.auth()).json()
    rest = client.get(
        f"{AGENTS}?limit=3&starting_after={first['data'][-1]['id']}", headers=customer.auth()
    ).json()
    assert [a["id"] for a in first["data"] + rest["data"]] == made[::-1]
    assert first["has_more"] is True
    assert rest["has_more"] is False


def test_agents_are_per_account_and_environment(
    client: TestClient, customer: Customer, other_customer: Customer
) -> None:
    agent = create(client, customer).json()
    for headers in (other_customer.auth(), customer.auth("production")):
        assert_error(client.get(f"{AGENTS}/{agent['id']}", headers=headers), 404, "agent_not_found")
        assert client.get(AGENTS, headers=headers).json()["data"] == []


@pytest.mark.parametrize("field", ["name", "voice_id", "language", "greeting", "instructions"])
def test_patching_null_is_422_and_changes_nothing(
    client: TestClient, customer: Customer, field: str
) -> None:
    agent = create(client, customer, greeting="Hi", instructions="Be brief.").json()
    url = f"{AGENTS}/{agent['id']}"
    response = client.patch(url, json={field: None}, headers=customer.auth())
    assert assert_error(response, 422, "parameter_invalid")["param"] == field
    assert client.get(url, headers=customer.auth()).json() == agent
