"""Account-level API key management over HTTP: list, create (secret shown once), revoke, in
the calling key's account and environment only."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.accounts import service as accounts
from soundstage.accounts.errors import LastApiKey
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.pagination import PageParams
from tests.support.api import assert_error, every_page
from tests.support.factories import Customer, create_customer, principal_of

pytestmark = pytest.mark.services


def bearer(secret: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {secret}"}


def create(client: TestClient, headers: dict[str, str], name: str | None = None) -> dict[str, Any]:
    response = client.post(
        "/api/v1/keys", json={} if name is None else {"name": name}, headers=headers
    )
    assert response.status_code == 201, response.text
    body: dict[str, Any] = response.json()
    return body


def test_a_created_key_is_listed_without_its_secret_and_authenticates(
    client: TestClient, customer: Customer
) -> None:
    created = create(client, customer.auth(), "CI")
    secret = created.pop("secret")
    assert secret.startswith("sk_sandbox_")
    assert len(secret) > 40
    assert created["object"] == "api_key"
    assert created["id"].startswith("key_")
    assert (created["environment"], created["name"], created["status"]) == (
        "sandbox",
        "CI",
        "active",
    )
    assert created["revoked_at"] is None
    assert created["current"] is False
    assert created["preview"] == secret[: len("sk_sandbox_") + 4] + "…"

    listing = client.get("/api/v1/keys", headers=customer.auth())
    assert listing.status_code == 200
    body = listing.json()
    assert (body["object"], body["has_more"]) == ("list", False)
    assert [k["id"] for k in body["data"]] == [created["id"], customer.sandbox_key_id]
    assert body["data"][0] == created  # the same fields, less the secret
    # The secret is in the create answer only: no listing, no other key's answer holds it.
    assert secret not in listing.text
    assert secret[len("sk_sandbox_") + 4 :] not in listing.text
    assert "secret" not in body["data"][1]
    assert [k["current"] for k in body["data"]] == [False, True]

    # The new key is a key like any other: it calls the API and manages the account's keys.
    assert client.get("/api/v1/credits", headers=bearer(secret)).status_code == 200
    theirs = client.get("/api/v1/keys", headers=bearer(secret)).json()["data"]
    assert [(k["id"], k["current"]) for k in theirs] == [
        (created["id"], True),
        (customer.sandbox_key_id, False),
    ]


def test_the_list_pages_newest_first(client: TestClient, customer: Customer) -> None:
    made = [create(client, customer.auth(), f"key {i}")["id"] for i in range(3)]
    first = client.get("/api/v1/keys?limit=2", headers=customer.auth()).json()
    assert [k["id"] for k in first["data"]] == made[::-1][:2]
    assert first["has_more"]
    rest = client.get(
        f"/api/v1/keys?limit=2&starting_after={made[1]}", headers=customer.auth()
    ).json()
    assert [k["id"] for k in rest["data"]] == [made[0], customer.sandbox_key_id]
    assert not rest["has_more"]
    assert [k["id"] for k in every_page(client, customer, "/api/v1/keys")] == [
        *made[::-1],
        customer.sandbox_key_id,
    ]


def test_a_revoked_key_is_refused_and_listed_as_revoked(
    client: TestClient, customer: Customer
) -> None:
    created = create(client, customer.auth())
    revoked = client.post(f"/api/v1/keys/{created['id']}/revoke", headers=customer.auth())
    assert revoked.status_code == 200, revoked.text
    body = revoked.json()
    assert (body["id"], body["status"]) == (created["id"], "revoked")
    assert body["revoked_at"] is not None
    assert "secret" not in body
    assert_error(
        client.get("/api/v1/credits", headers=bearer(created["secret"])), 401, "api_key_revoked"
    )
    # Idempotent: a second revoke answers the key as it is, revoked_at unchanged.
    again = client.post(f"/api/v1/keys/{created['id']}/revoke", headers=customer.auth())
    assert again.status_code == 200
    assert again.json() == body
    listed = client.get("/api/v1/keys", headers=customer.auth()).json()["data"]
    assert [k["status"] for k in listed] == ["revoked", "active"]
    assert client.get("/api/v1/credits", headers=customer.auth()).status_code == 200


def test_a_key_may_revoke_itself_but_not_the_last_active_one(
    client: TestClient, customer: Customer
) -> None:
    error = assert_error(
        client.post(f"/api/v1/keys/{customer.sandbox_key_id}/revoke", headers=customer.auth()),
        409,
        "last_api_key",
    )
    assert error["param"] == "key_id"
    assert client.get("/api/v1/credits", headers=customer.auth()).status_code == 200

    spare = create(client, customer.auth())
    itself = client.post(f"/api/v1/keys/{customer.sandbox_key_id}/revoke", headers=customer.auth())
    assert itself.status_code == 200
    assert itself.json()["status"] == "revoked"
    assert itself.json()["current"] is True
    assert_error(client.get("/api/v1/keys", headers=customer.auth()), 401, "api_key_revoked")
    # The spare is now the last one: it may not go, and it still works.
    assert_error(
        client.post(f"/api/v1/keys/{spare['id']}/revoke", headers=bearer(spare["secret"])),
        409,
        "last_api_key",
    )
    # The production key of the same account is untouched: environments are counted apart.
    assert client.get("/api/v1/keys", headers=customer.auth("production")).status_code == 200


def test_other_environments_and_accounts_keys_are_invisible(
    client: TestClient, db: Database, customer: Customer
) -> None:
    other = create_customer(db)
    create(client, customer.auth())  # so that the last-key rule is not what refuses below
    production = client.get("/api/v1/keys", headers=customer.auth("production")).json()["data"]
    assert [k["id"] for k in production] == [customer.production_key_id]
    assert production[0]["environment"] == "production"
    assert production[0]["preview"].startswith("sk_live_")
    sandbox_ids = {
        k["id"] for k in client.get("/api/v1/keys", headers=customer.auth()).json()["data"]
    }
    assert customer.production_key_id not in sandbox_ids
    assert other.sandbox_key_id not in sandbox_ids

    for key_id, headers in [
        (customer.production_key_id, customer.auth()),  # the same account's other environment
        (customer.sandbox_key_id, customer.auth("production")),
        (other.sandbox_key_id, customer.auth()),  # another account's
        (customer.sandbox_key_id, other.auth()),
        ("key_doesnotexist", customer.auth()),
    ]:
        error = assert_error(
            client.post(f"/api/v1/keys/{key_id}/revoke", headers=headers), 404, "api_key_not_found"
        )
        assert error["param"] == "key_id"
    # Nothing was revoked by those.
    for headers in (customer.auth(), customer.auth("production"), other.auth()):
        assert client.get("/api/v1/credits", headers=headers).status_code == 200
    # Another account's key is no cursor of mine either.
    assert_error(
        client.get(f"/api/v1/keys?starting_after={other.sandbox_key_id}", headers=customer.auth()),
        404,
        "api_key_not_found",
    )


def test_a_create_retried_with_its_idempotency_key_makes_one_key(
    client: TestClient, customer: Customer
) -> None:
    headers = {**customer.auth(), "Idempotency-Key": "console-create-1"}
    first = client.post("/api/v1/keys", json={"name": "console"}, headers=headers)
    second = client.post("/api/v1/keys", json={"name": "console"}, headers=headers)
    assert (first.status_code, second.status_code) == (201, 201)
    assert second.json() == first.json()
    listed = client.get("/api/v1/keys", headers=customer.auth()).json()["data"]
    assert [k["id"] for k in listed] == [first.json()["id"], customer.sandbox_key_id]
    assert_error(
        client.post("/api/v1/keys", json={"name": "other"}, headers=headers),
        422,
        "idempotency_key_reused",
    )


def test_active_keys_are_bounded_per_environment(
    client: TestClient, customer: Customer, settings: Settings
) -> None:
    bound = settings.accounts.max_active_keys
    made = [create(client, customer.auth())["id"] for _ in range(bound - 2)]
    last = create(client, customer.auth())  # the bound-th active key: inside
    made.append(last["id"])
    error = assert_error(
        client.post("/api/v1/keys", json={}, headers=customer.auth()), 409, "too_many_api_keys"
    )
    assert str(bound) in error["message"]
    # The other environment has its own bound.
    assert (
        client.post("/api/v1/keys", json={}, headers=customer.auth("production")).status_code == 201
    )
    # A revoked key frees its place.
    assert client.post(f"/api/v1/keys/{made[0]}/revoke", headers=customer.auth()).status_code == 200
    create(client, customer.auth())
    assert len(list(every_page(client, customer, "/api/v1/keys"))) == bound + 1


def test_a_name_is_a_bounded_printable_label(client: TestClient, customer: Customer) -> None:
    assert create(client, customer.auth(), "n" * 100)["name"] == "n" * 100
    for name in ("", "n" * 101, "line\nbreak", 7):
        response = client.post("/api/v1/keys", json={"name": name}, headers=customer.auth())
        assert response.status_code == 422, (name, response.text)
        assert response.json()["error"]["param"] == "name"
    unnamed = create(client, customer.auth())
    assert unnamed["name"] is None


def test_two_revocations_at_once_leave_one_key_active(db: Database, customer: Customer) -> None:
    """The last-key rule holds under concurrency: key management of an account runs one
    request at a time (the account row is locked), so of two revocations racing for the last
    two active keys, one is refused."""
    with db.session() as session:
        spare = accounts.create_key(session, (customer.account_id, "sandbox")).key.id
    me = principal_of(customer)
    barrier = threading.Barrier(2)

    def revoke(key_id: str) -> str:
        barrier.wait()
        try:
            with db.session() as session:
                accounts.revoke_owned_key(session, me, key_id)
        except LastApiKey as error:
            return error.code
        return "revoked"

    with ThreadPoolExecutor(2) as pool:
        outcomes = sorted(pool.map(revoke, [customer.sandbox_key_id, spare]))
    assert outcomes == ["last_api_key", "revoked"]
    with db.read_session() as session:
        active = [k for k in accounts.list_keys(session, me, PageParams())[0] if not k.revoked_at]
    assert len(active) == 1
