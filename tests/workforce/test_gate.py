"""The buyer-verification gate: every buyer-facing workforce endpoint answers 403
`buyer_not_verified` until the caller's buyer verification (in the key's environment) is
`verified`, then 200; the creator's side and voice agents are not gated."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute
from fastapi.testclient import TestClient

from soundstage.accounts import service as accounts
from soundstage.accounts.verification import require_verified_buyer
from soundstage.agents import endpoints as agents
from soundstage.core.db import Database
from soundstage.workforce.campaigns import endpoints as campaigns
from soundstage.workforce.licensing import endpoints as licensing
from soundstage.workforce.media import endpoints as media
from soundstage.workforce.talent import endpoints as talent
from tests.accounts.test_auth import assert_error
from tests.accounts.test_buyer_verification import DETAILS
from tests.conftest import Customer, create_customer
from tests.workforce.conftest import add_talent, profile, verify_buyer

pytestmark = pytest.mark.services

CAMPAIGN = {
    "title": "Radio spot",
    "description": "A 30-second radio spot for a bakery.",
    "languages": ["en"],
    "usage_type": "broadcast",
    "budget_cents": 500_000,
    "deadline": "2099-01-31",
}


# Every endpoint behind the gate. The list is checked against the app's routes below, so an
# endpoint that loses its gate, or a new one that gains it, fails a test.
GATED = [
    "GET /api/v1/workforce/discover",
    "GET /api/v1/workforce/search",
    "GET /api/v1/workforce/creators/{creator_id}",
    "POST /api/v1/workforce/campaign",
    "GET /api/v1/workforce/campaigns",
    "GET /api/v1/workforce/campaigns/{campaign_id}",
    "POST /api/v1/workforce/campaigns/{campaign_id}/close",
    "POST /api/v1/workforce/licensing",
    "GET /api/v1/workforce/licenses",
    "GET /api/v1/workforce/licenses/{license_id}",
    "POST /api/v1/workforce/licenses/{license_id}/complete",
    "POST /api/v1/workforce/licenses/{license_id}/cancel",
    "GET /api/v1/workforce/media",
]


def _calls(dependant: Dependant) -> Iterator[Any]:
    yield dependant.call
    for sub in dependant.dependencies:
        yield from _calls(sub)


# The routers of the workforce and agents packages, and where the app mounts each.
ROUTERS = [
    (talent.router, "/api/v1"),
    (talent.public_router, ""),
    (campaigns.router, "/api/v1"),
    (licensing.router, "/api/v1"),
    (media.router, "/api/v1"),
    (agents.router, "/api/v1"),
]


def routes() -> dict[str, bool]:
    """Every route of those routers ("METHOD /path"), and whether the buyer gate guards it."""
    return {
        f"{method} {prefix}{route.path}": require_verified_buyer in set(_calls(route.dependant))
        for router, prefix in ROUTERS
        for route in router.routes
        if isinstance(route, APIRoute)
        for method in sorted(route.methods)
    }


def test_every_router_is_mounted(client: TestClient) -> None:
    paths = set(client.get("/openapi.json").json()["paths"])
    for route in routes():
        path = route.split(" ", 1)[1]
        assert path in paths or path.startswith("/demos/"), route


def test_the_gated_endpoints_are_exactly_these() -> None:
    gated = sorted(route for route, guarded in routes().items() if guarded)
    assert gated == sorted(GATED)
    assert len(GATED) == 13


def _request(route: str, creator_id: str) -> tuple[str, str, dict[str, Any] | None]:
    """A valid request of a gated route: ids of objects the caller does not hold are 404
    once the gate lets it through, never 403."""
    method, template = route.split(" ", 1)
    path = template.format(
        creator_id=creator_id, campaign_id="camp_nothing", license_id="lic_nothing"
    )
    body: dict[str, Any] | None = None
    if path.endswith("/search"):
        path += "?q=narrator"
    elif path.endswith("/campaign"):
        body = CAMPAIGN
    elif path.endswith("/licensing"):
        body = {
            "creator_id": creator_id,
            "usage_type": "internet",
            "territory": "US",
            "duration_months": 12,
        }
    return method, path, body


@pytest.fixture
def creator(db: Database, talent_catalog: object) -> str:
    return add_talent(db, profile())[0]


@pytest.mark.parametrize("route", GATED)
def test_gated_until_the_buyer_is_verified(
    client: TestClient, customer: Customer, creator: str, route: str
) -> None:
    method, path, body = _request(route, creator)

    def call(environment: str = "sandbox") -> Any:
        return client.request(method, path, json=body, headers=customer.auth(environment))

    error = assert_error(call(), 403, "buyer_not_verified")
    assert "unverified" in error["message"]
    submitted = client.post("/api/v1/buyers/verification", json=DETAILS, headers=customer.auth())
    assert submitted.json()["status"] == "pending"
    assert "pending" in assert_error(call(), 403, "buyer_not_verified")["message"]
    approved = client.post("/api/v1/sandbox/buyers/verification/approve", headers=customer.auth())
    assert approved.json()["status"] == "verified"
    response = call()
    expected = 404 if "_nothing" in path else 200
    assert response.status_code == expected, response.text
    # Verification is per environment: production is still unverified.
    assert_error(call("production"), 403, "buyer_not_verified")


def test_a_rejected_buyer_stays_gated(client: TestClient, customer: Customer) -> None:
    client.post("/api/v1/buyers/verification", json=DETAILS, headers=customer.auth())
    client.post("/api/v1/sandbox/buyers/verification/reject", headers=customer.auth())
    response = client.get("/api/v1/workforce/discover", headers=customer.auth())
    assert "rejected" in assert_error(response, 403, "buyer_not_verified")["message"]


# The workforce and agent routes that stay open to any key, each with a request that an
# unverified buyer may make (unknown ids are 404, a bad signature 403 of its own).
UNGATED = {
    "GET /api/v1/workforce/talent/licenses": ("/api/v1/workforce/talent/licenses", 200),
    "POST /api/v1/workforce/talent/licenses/{license_id}/accept": (
        "/api/v1/workforce/talent/licenses/lic_nothing/accept", 404),
    "POST /api/v1/workforce/talent/licenses/{license_id}/decline": (
        "/api/v1/workforce/talent/licenses/lic_nothing/decline", 404),
    "POST /api/v1/sandbox/workforce/licenses/{license_id}/accept": (
        "/api/v1/sandbox/workforce/licenses/lic_nothing/accept", 404),
    "POST /api/v1/sandbox/workforce/licenses/{license_id}/decline": (
        "/api/v1/sandbox/workforce/licenses/lic_nothing/decline", 404),
    "GET /demos/{demo_id}/{filename}": ("/demos/demo_nothing/x.mp3", 403),
    "GET /api/v1/agents": ("/api/v1/agents", 200),
    "POST /api/v1/agents": ("/api/v1/agents", 422),
    "GET /api/v1/agents/{agent_id}": ("/api/v1/agents/agent_nothing", 404),
    "PATCH /api/v1/agents/{agent_id}": ("/api/v1/agents/agent_nothing", 404),
    "DELETE /api/v1/agents/{agent_id}": ("/api/v1/agents/agent_nothing", 404),
}  # fmt: skip


def test_every_other_workforce_and_agent_route_is_listed_as_open() -> None:
    open_routes = {route for route, guarded in routes().items() if not guarded}
    assert open_routes == set(UNGATED)


@pytest.mark.parametrize("route", sorted(UNGATED))
def test_the_creators_side_sandbox_helpers_demos_and_agents_are_not_gated(
    client: TestClient, customer: Customer, route: str
) -> None:
    method = route.split(" ", 1)[0]
    path, status = UNGATED[route]
    response = client.request(method, path, json={} if method in ("POST", "PATCH") else None,
                              headers=customer.auth())  # fmt: skip
    assert response.status_code == status, response.text
    if status >= 400:
        assert response.json()["error"]["code"] != "buyer_not_verified"


def test_the_gate_is_checked_before_anything_is_written(
    client: TestClient, db: Database, customer: Customer, creator: str
) -> None:
    body = {"creator_id": creator, "usage_type": "internet", "territory": "US"}
    body["duration_months"] = 12  # type: ignore[assignment]
    assert_error(
        client.post("/api/v1/workforce/licensing", json=body, headers=customer.auth()),
        403,
        "buyer_not_verified",
    )
    verify_buyer(db, customer, "sandbox")
    assert client.get("/api/v1/workforce/licenses", headers=customer.auth()).json()["data"] == []
    # The gate belongs to the account: a second sandbox key of it is let through too.
    with db.session() as session:
        second = accounts.create_key(session, customer.account_id, "sandbox").secret
    listed = client.get("/api/v1/workforce/licenses", headers={"Authorization": f"Bearer {second}"})
    assert listed.status_code == 200, listed.text
    assert listed.json()["data"] == []
    # ...and another account is not.
    stranger = create_customer(db)
    assert_error(
        client.get("/api/v1/workforce/licenses", headers=stranger.auth()), 403, "buyer_not_verified"
    )


@pytest.mark.parametrize(
    ("path", "param", "missing"),
    [
        ("/api/v1/workforce/creators/{}", "creator_id", "creator_not_found"),
        ("/api/v1/workforce/campaigns/{}", "campaign_id", "campaign_not_found"),
        ("/api/v1/workforce/licenses/{}", "license_id", "license_not_found"),
        ("/api/v1/agents/{}", "agent_id", "agent_not_found"),
    ],
)
def test_ids_in_paths_are_at_most_40_characters(
    client: TestClient, db: Database, customer: Customer, path: str, param: str, missing: str
) -> None:
    verify_buyer(db, customer, "sandbox")
    inside = client.get(path.format("x" * 40), headers=customer.auth())
    assert assert_error(inside, 404, missing)["param"] == param
    outside = client.get(path.format("x" * 41), headers=customer.auth())
    assert assert_error(outside, 422, "parameter_invalid")["param"] == param
