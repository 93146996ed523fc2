"""The buyer-verification gate: exactly the spec's "workforce discovery and licensing"
(accounts.verification.GATED_ROUTES) answers 403 `buyer_not_verified` until the caller's buyer
verification (in the key's environment) is `verified`, then 200; each says so in its OpenAPI
description. Campaign briefs, the creator's side, demos and voice agents are open to any key
(campaign matches are withheld from unverified buyers)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient

from soundstage.accounts.verification import GATE_SENTENCE, GATED_ROUTES, require_verified_buyer
from soundstage.core.db import Database
from tests.support.api import assert_error
from tests.support.factories import (
    BUYER_DETAILS,
    Customer,
    create_api_key,
    create_customer,
    create_talent,
    verify_buyer,
)

pytestmark = pytest.mark.services

CAMPAIGN = {
    "title": "Radio spot",
    "description": "A 30-second radio spot for a bakery.",
    "languages": ["en"],
    "usage_type": "broadcast",
    "budget_cents": 500_000,
    "deadline": "2099-01-31",
}


def _calls(dependant: Dependant) -> Iterator[Any]:
    yield dependant.call
    for sub in dependant.dependencies:
        yield from _calls(sub)


def routes(app: FastAPI) -> dict[str, bool]:
    """Every API route of the app ("METHOD /path", routers included at any depth), and whether
    the buyer gate guards it (its own dependencies and its routers')."""
    return {
        f"{method} {context.path}": require_verified_buyer in set(_calls(context.dependant))
        for context in iter_route_contexts(app.routes)
        if isinstance(context.original_route, APIRoute)
        for method in sorted(context.methods or ())
    }


def test_the_gated_routes_are_exactly_the_listed_ones(client: TestClient) -> None:
    found = routes(client.app)  # type: ignore[arg-type]
    gated = {route for route, guarded in found.items() if guarded}
    assert gated == set(GATED_ROUTES)
    assert len(GATED_ROUTES) == len(set(GATED_ROUTES)) == 9


def test_each_gated_route_says_so_in_its_openapi_description(client: TestClient) -> None:
    paths = client.get("/openapi.json").json()["paths"]
    described = {
        f"{method.upper()} {path}"
        for path, item in paths.items()
        for method, operation in item.items()
        # Markdown: a line break inside a sentence is a space.
        if GATE_SENTENCE in " ".join(operation.get("description", "").split())
    }
    assert described == set(GATED_ROUTES)
    for route in GATED_ROUTES:
        method, path = route.split(" ", 1)
        assert "403" in paths[path][method.lower()]["responses"], route


def _request(route: str, creator_id: str) -> tuple[str, str, dict[str, Any] | None]:
    """A valid request of a gated route: ids of objects the caller does not hold are 404
    once the gate lets it through, never 403."""
    method, template = route.split(" ", 1)
    path = template.format(
        creator_id=creator_id, campaign_id="camp_nothing", license_id="lic_nothing"
    )
    body: dict[str, Any] | None = None
    if path.endswith("/search"):
        path += "?role=narrator&language=en"
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
    return create_talent(db)


@pytest.mark.parametrize("route", GATED_ROUTES)
def test_gated_until_the_buyer_is_verified(
    client: TestClient, customer: Customer, creator: str, route: str
) -> None:
    method, path, body = _request(route, creator)

    def call(environment: str = "sandbox") -> Any:
        return client.request(method, path, json=body, headers=customer.auth(environment))

    error = assert_error(call(), 403, "buyer_not_verified")
    assert "unverified" in error["message"]
    submitted = client.post(
        "/api/v1/buyers/verification", json=BUYER_DETAILS, headers=customer.auth()
    )
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
    client.post("/api/v1/buyers/verification", json=BUYER_DETAILS, headers=customer.auth())
    client.post("/api/v1/sandbox/buyers/verification/reject", headers=customer.auth())
    response = client.get("/api/v1/workforce/discover", headers=customer.auth())
    assert "rejected" in assert_error(response, 403, "buyer_not_verified")["message"]


# The workforce and agent routes open to any key, each with a request that an unverified buyer
# may make (unknown ids are 404, a bad signature 403 of its own, a closed campaign 409).
UNGATED = {
    "POST /api/v1/workforce/campaign": ("/api/v1/workforce/campaign", 200),
    "GET /api/v1/workforce/campaigns": ("/api/v1/workforce/campaigns", 200),
    "GET /api/v1/workforce/campaigns/{campaign_id}": (
        "/api/v1/workforce/campaigns/camp_nothing", 404),
    "POST /api/v1/workforce/campaigns/{campaign_id}/close": (
        "/api/v1/workforce/campaigns/camp_nothing/close", 404),
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


def test_every_other_workforce_and_agent_route_is_listed_as_open(client: TestClient) -> None:
    open_routes = {
        route
        for route, guarded in routes(client.app).items()  # type: ignore[arg-type]
        if not guarded and ("/workforce" in route or "/agents" in route or "/demos/" in route)
    }
    assert open_routes == set(UNGATED)


@pytest.mark.parametrize("route", sorted(UNGATED))
def test_campaigns_the_creators_side_sandbox_helpers_demos_and_agents_are_not_gated(
    client: TestClient, customer: Customer, route: str
) -> None:
    method = route.split(" ", 1)[0]
    path, status = UNGATED[route]
    body: dict[str, Any] | None = None
    if method in ("POST", "PATCH"):
        body = CAMPAIGN if path.endswith("/campaign") else {}
    response = client.request(method, path, json=body, headers=customer.auth())
    assert response.status_code == status, response.text
    if status >= 400:
        assert response.json()["error"]["code"] != "buyer_not_verified"


def test_campaign_matches_are_withheld_until_the_buyer_is_verified(
    client: TestClient, db: Database, customer: Customer, talent_catalog: object
) -> None:
    """An unverified account posts, lists, reads and closes its briefs; the talent they match
    shows once its verification passes (the matches were kept)."""
    auth = customer.auth()
    # The only talent speaking Scottish Gaelic: the brief's one match.
    gaelic = create_talent(db, languages=["gd-GB"])
    brief = {**CAMPAIGN, "languages": ["gd"]}
    posted = client.post("/api/v1/workforce/campaign", json=brief, headers=auth)
    assert posted.status_code == 200, posted.text
    campaign = posted.json()
    assert (campaign["matches"], campaign["matches_withheld"]) == ([], True)
    path = f"/api/v1/workforce/campaigns/{campaign['id']}"
    listed = client.get("/api/v1/workforce/campaigns", headers=auth).json()["data"]
    assert [(c["id"], c["matches"], c["matches_withheld"]) for c in listed] == [
        (campaign["id"], [], True)
    ]
    assert client.get(path, headers=auth).json() == campaign
    client.post("/api/v1/buyers/verification", json=BUYER_DETAILS, headers=auth)
    assert client.get(path, headers=auth).json()["matches_withheld"]  # pending is not verified
    client.post("/api/v1/sandbox/buyers/verification/approve", headers=auth)
    shown = client.get(path, headers=auth).json()
    assert shown["matches_withheld"] is False
    assert [m["creator_id"] for m in shown["matches"]] == [gaelic]
    # Verification is per environment: production keys still see none.
    production = client.post("/api/v1/workforce/campaign", json=brief,
                             headers=customer.auth("production")).json()  # fmt: skip
    assert (production["matches"], production["matches_withheld"]) == ([], True)
    closed = client.post(f"{path}/close", headers=auth).json()
    assert (closed["status"], closed["matches"]) == ("closed", shown["matches"])


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
    second = create_api_key(db, customer, "sandbox")
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
