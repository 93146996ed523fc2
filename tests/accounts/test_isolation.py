"""Sandbox and production, and accounts, are fully isolated: another's id is a 404."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.support.api import assert_error
from tests.support.factories import Customer

pytestmark = pytest.mark.services


def newest_transaction_id(
    client: TestClient, customer: Customer, environment: str = "sandbox"
) -> str:
    ledger = client.get("/api/v1/credits/ledger", headers=customer.auth(environment)).json()
    return str(ledger["data"][0]["id"])


def test_own_transaction_is_visible(client: TestClient, customer: Customer) -> None:
    tx = newest_transaction_id(client, customer)
    response = client.get(f"/api/v1/credits/ledger/{tx}", headers=customer.auth())
    assert response.status_code == 200
    assert response.json()["id"] == tx


def test_another_accounts_object_is_404(
    client: TestClient, customer: Customer, other_customer: Customer
) -> None:
    tx = newest_transaction_id(client, customer)
    response = client.get(f"/api/v1/credits/ledger/{tx}", headers=other_customer.auth())
    error = assert_error(response, 404, "credit_transaction_not_found")
    assert error["param"] == "transaction_id"


def test_the_other_environments_object_is_404(client: TestClient, customer: Customer) -> None:
    tx = newest_transaction_id(client, customer, "sandbox")
    assert_error(
        client.get(f"/api/v1/credits/ledger/{tx}", headers=customer.auth("production")),
        404,
        "credit_transaction_not_found",
    )


def test_another_accounts_cursor_is_404(
    client: TestClient, customer: Customer, other_customer: Customer
) -> None:
    tx = newest_transaction_id(client, customer)
    response = client.get(
        f"/api/v1/credits/ledger?starting_after={tx}", headers=other_customer.auth()
    )
    error = assert_error(response, 404, "credit_transaction_not_found")
    assert error["param"] == "starting_after"


def test_buyer_verification_is_per_environment(client: TestClient, customer: Customer) -> None:
    details = {"legal_name": "Acme Ltd", "country": "gb", "contact_email": "ops@acme.example"}
    assert (
        client.post(
            "/api/v1/buyers/verification", headers=customer.auth(), json=details
        ).status_code
        == 200
    )
    assert (
        client.get("/api/v1/buyers/verification", headers=customer.auth()).json()["status"]
        == "pending"
    )
    production = client.get(
        "/api/v1/buyers/verification", headers=customer.auth("production")
    ).json()
    assert production["status"] == "unverified"
    assert production["legal_name"] is None
