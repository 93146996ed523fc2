"""Sandbox top-ups are capped: the sandbox balance (available plus reserved) may not pass
`credits.sandbox_max_balance` (10,000,000 by default); past it, 422 naming `amount`."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from tests.support.api import assert_error
from tests.support.factories import create_customer

pytestmark = pytest.mark.services

TOP_UP = "/api/v1/sandbox/credits"


def test_a_top_up_may_fill_the_sandbox_balance_to_its_cap_and_no_further(
    client: TestClient, db: Database
) -> None:
    customer = create_customer(db, credits_each=1_000)
    filled = client.post(TOP_UP, headers=customer.auth(), json={"amount": 9_999_000})
    assert filled.status_code == 200, filled.text
    assert filled.json()["balance"] == 10_000_000
    error = assert_error(
        client.post(TOP_UP, headers=customer.auth(), json={"amount": 1}),
        422,
        "sandbox_balance_limit",
    )
    assert error["param"] == "amount"
    assert "10,000,000" in error["message"]
    assert client.get("/api/v1/credits", headers=customer.auth()).json()["balance"] == 10_000_000
    grants = [
        t
        for t in client.get("/api/v1/credits/ledger", headers=customer.auth()).json()["data"]
        if t["type"] == "grant"
    ]
    assert [t["amount"] for t in grants] == [9_999_000, 1_000]  # the refused one left none


def test_repeated_top_ups_stop_at_the_cap(client: TestClient, db: Database) -> None:
    """The old per-request bound (10,000,000) alone let a loop grow the balance forever."""
    customer = create_customer(db)
    for _ in range(2):
        response = client.post(TOP_UP, headers=customer.auth(), json={"amount": 5_000_000})
        assert response.status_code == 200, response.text
    assert_error(
        client.post(TOP_UP, headers=customer.auth(), json={"amount": 5_000_000}),
        422,
        "sandbox_balance_limit",
    )
    assert client.get("/api/v1/credits", headers=customer.auth()).json()["balance"] == 10_000_000
