"""Idempotency-Key on POST: replay, different body 422, in flight 409, scoped to the key."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.idempotency import Claim, IdempotencyStore, fingerprint_of
from tests.accounts.test_auth import assert_error
from tests.conftest import Customer

pytestmark = pytest.mark.services


def balance(client: TestClient, customer: Customer) -> int:
    return int(client.get("/api/v1/credits", headers=customer.auth()).json()["balance"])


def ledger_size(client: TestClient, customer: Customer) -> int:
    return len(
        client.get("/api/v1/credits/ledger?limit=100", headers=customer.auth()).json()["data"]
    )


def test_replay_returns_the_identical_body_and_changes_nothing(
    client: TestClient, customer: Customer
) -> None:
    headers = {**customer.auth(), "Idempotency-Key": "top-up-1"}
    first = client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 250})
    assert first.status_code == 200
    assert first.json()["balance"] == 1250
    entries = ledger_size(client, customer)

    again = client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 250})
    assert again.status_code == 200
    assert again.content == first.content
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.headers["Request-Id"] != first.headers["Request-Id"]
    assert balance(client, customer) == 1250
    assert ledger_size(client, customer) == entries


def test_json_formatting_does_not_change_the_request(
    client: TestClient, customer: Customer
) -> None:
    headers = {**customer.auth(), "Idempotency-Key": "fmt", "Content-Type": "application/json"}
    first = client.post("/api/v1/sandbox/credits", headers=headers, content=b'{"amount":7}')
    again = client.post("/api/v1/sandbox/credits", headers=headers, content=b'{ "amount" : 7 }')
    assert again.content == first.content
    assert balance(client, customer) == 1007


def test_same_key_with_a_different_body_is_422(client: TestClient, customer: Customer) -> None:
    headers = {**customer.auth(), "Idempotency-Key": "top-up-2"}
    assert (
        client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 10}).status_code
        == 200
    )
    response = client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 11})
    error = assert_error(response, 422, "idempotency_key_reused")
    assert error["type"] == "idempotency_error"
    assert error["param"] == "Idempotency-Key"
    assert balance(client, customer) == 1010


def test_same_key_on_another_path_is_422(client: TestClient, customer: Customer) -> None:
    headers = {**customer.auth(), "Idempotency-Key": "shared"}
    assert (
        client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 1}).status_code
        == 200
    )
    response = client.post(
        "/api/v1/buyers/verification",
        headers=headers,
        json={"legal_name": "A", "country": "FR", "contact_email": "a@b.example"},
    )
    assert_error(response, 422, "idempotency_key_reused")


def test_in_flight_key_is_409(
    client: TestClient, customer: Customer, db: Database, settings: Settings
) -> None:
    # The first request holds the key exactly as the middleware leaves it while it runs.
    body = b'{"amount":5}'
    scope = {"method": "POST", "path": "/api/v1/sandbox/credits", "query_string": b""}
    store = IdempotencyStore(db, settings)
    claim = store.begin(customer.sandbox_key_id, "busy", fingerprint_of(scope, body))
    assert isinstance(claim, Claim)

    headers = {**customer.auth(), "Idempotency-Key": "busy", "Content-Type": "application/json"}
    response = client.post("/api/v1/sandbox/credits", headers=headers, content=body)
    assert_error(response, 409, "idempotency_key_in_use")
    # Retry once the holder's lease would have run out, were it dead.
    assert 1 <= int(response.headers["Retry-After"]) <= settings.idempotency_lease_seconds
    assert balance(client, customer) == 1000


def test_keys_are_scoped_to_the_api_key(
    client: TestClient, customer: Customer, other_customer: Customer
) -> None:
    for who in (customer, other_customer):
        response = client.post(
            "/api/v1/sandbox/credits",
            headers={**who.auth(), "Idempotency-Key": "same"},
            json={"amount": 3},
        )
        assert response.status_code == 200
        assert response.json()["balance"] == 1003


def test_errors_are_replayed_too(client: TestClient, customer: Customer) -> None:
    headers = {**customer.auth(), "Idempotency-Key": "bad"}
    first = client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 0})
    assert first.status_code == 422
    again = client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 0})
    assert again.status_code == 422
    assert again.content == first.content


def test_overlong_key_is_422(client: TestClient, customer: Customer) -> None:
    headers = {**customer.auth(), "Idempotency-Key": "k" * 256}
    error = assert_error(
        client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 1}),
        422,
        "parameter_invalid",
    )
    assert error["param"] == "Idempotency-Key"
    ok = client.post(
        "/api/v1/sandbox/credits",
        headers={**customer.auth(), "Idempotency-Key": "k" * 255},
        json={"amount": 1},
    )
    assert ok.status_code == 200


def test_expired_keys_run_again(client: TestClient, customer: Customer, db: Database) -> None:
    from datetime import timedelta

    from sqlalchemy import update

    from soundstage.core.timeutil import utcnow
    from soundstage.models import IdempotencyRecord

    headers = {**customer.auth(), "Idempotency-Key": "old"}
    assert (
        client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 2}).status_code
        == 200
    )
    with db.session() as session:
        session.execute(
            update(IdempotencyRecord)
            .where(
                IdempotencyRecord.api_key_id == customer.sandbox_key_id,
                IdempotencyRecord.key == "old",
            )
            .values(expires_at=utcnow() - timedelta(seconds=1))
        )
    again = client.post("/api/v1/sandbox/credits", headers=headers, json={"amount": 2})
    assert "Idempotent-Replayed" not in again.headers
    assert balance(client, customer) == 1004
