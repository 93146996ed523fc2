"""Cursor pagination on the ledger: limit, starting_after, ending_before, has_more."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.credits import service as credits
from tests.support.api import assert_error
from tests.support.factories import create_customer

pytestmark = pytest.mark.services


def test_walk_forward_and_back(client: TestClient, db: Database) -> None:
    customer = create_customer(db)
    with db.session() as session:
        for amount in range(1, 8):
            credits.grant(session, (customer.account_id, "sandbox"), amount, f"grant {amount}")
    every = client.get("/api/v1/credits/ledger?limit=100", headers=customer.auth()).json()["data"]
    assert [t["amount"] for t in every] == [7, 6, 5, 4, 3, 2, 1]
    ids = [t["id"] for t in every]

    seen: list[str] = []
    cursor = None
    while True:
        query = "limit=3" + (f"&starting_after={cursor}" if cursor else "")
        page = client.get(f"/api/v1/credits/ledger?{query}", headers=customer.auth()).json()
        assert page["object"] == "list"
        seen += [t["id"] for t in page["data"]]
        if not page["has_more"]:
            break
        cursor = page["data"][-1]["id"]
    assert seen == ids

    back = client.get(
        f"/api/v1/credits/ledger?limit=2&ending_before={ids[4]}", headers=customer.auth()
    ).json()
    assert [t["id"] for t in back["data"]] == ids[2:4]
    assert back["has_more"] is True
    first = client.get(
        f"/api/v1/credits/ledger?limit=5&ending_before={ids[2]}", headers=customer.auth()
    ).json()
    assert [t["id"] for t in first["data"]] == ids[:2]
    assert first["has_more"] is False


def test_both_cursors_is_422(client: TestClient, db: Database) -> None:
    customer = create_customer(db, credits_each=5)
    tx = client.get("/api/v1/credits/ledger", headers=customer.auth()).json()["data"][0]["id"]
    response = client.get(
        f"/api/v1/credits/ledger?starting_after={tx}&ending_before={tx}", headers=customer.auth()
    )
    error = assert_error(response, 422, "parameter_invalid")
    assert error["param"] == "ending_before"


def test_default_limit_is_20(client: TestClient, db: Database) -> None:
    customer = create_customer(db)
    with db.session() as session:
        for _ in range(21):
            credits.grant(session, (customer.account_id, "sandbox"), 1)
    page = client.get("/api/v1/credits/ledger", headers=customer.auth()).json()
    assert len(page["data"]) == 20
    assert page["has_more"] is True
