"""The buyer-verification gate: every buyer-facing workforce endpoint answers 403
`buyer_not_verified` until the caller's buyer verification (in the key's environment) is
`verified`, then 200; the creator's side and voice agents are not gated."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
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


def gated_requests(creator_id: str) -> list[tuple[str, str, dict[str, Any] | None]]:
    license_body = {
        "creator_id": creator_id,
        "usage_type": "internet",
        "territory": "US",
        "duration_months": 12,
    }
    return [
        ("GET", "/api/v1/workforce/discover", None),
        ("GET", "/api/v1/workforce/search?q=narrator", None),
        ("GET", f"/api/v1/workforce/creators/{creator_id}", None),
        ("POST", "/api/v1/workforce/campaign", CAMPAIGN),
        ("GET", "/api/v1/workforce/campaigns", None),
        ("POST", "/api/v1/workforce/licensing", license_body),
        ("GET", "/api/v1/workforce/licenses", None),
        ("GET", "/api/v1/workforce/media", None),
    ]


GATED = [f"{m} {p}" for m, p, _ in gated_requests("{creator_id}")]


@pytest.fixture
def creator(db: Database, talent_catalog: object) -> str:
    return add_talent(db, profile())[0]


@pytest.mark.parametrize("index", range(len(GATED)), ids=GATED)
def test_gated_until_the_buyer_is_verified(
    client: TestClient, customer: Customer, creator: str, index: int
) -> None:
    method, path, body = gated_requests(creator)[index]

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
    assert response.status_code == 200, response.text
    # Verification is per environment: production is still unverified.
    assert_error(call("production"), 403, "buyer_not_verified")


def test_a_rejected_buyer_stays_gated(client: TestClient, customer: Customer) -> None:
    client.post("/api/v1/buyers/verification", json=DETAILS, headers=customer.auth())
    client.post("/api/v1/sandbox/buyers/verification/reject", headers=customer.auth())
    response = client.get("/api/v1/workforce/discover", headers=customer.auth())
    assert "rejected" in assert_error(response, 403, "buyer_not_verified")["message"]


def test_the_creators_side_and_agents_are_not_gated(client: TestClient, customer: Customer) -> None:
    for path in ("/api/v1/workforce/talent/licenses", "/api/v1/agents"):
        assert client.get(path, headers=customer.auth()).status_code == 200


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
    assert create_customer(db)  # the gate belongs to the account, not to the key
