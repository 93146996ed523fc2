"""Authentication through the HTTP API: missing, malformed, unknown, revoked, other environment."""

from __future__ import annotations

import time

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from soundstage.accounts import service as accounts
from soundstage.app import create_app
from soundstage.config import AccountSettings, Settings
from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.models import ApiKey
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer

pytestmark = pytest.mark.services


def test_missing_key_is_401(client: TestClient) -> None:
    error = assert_error(client.get("/api/v1/credits"), 401, "missing_api_key")
    assert error["type"] == "authentication_error"


@pytest.mark.parametrize(
    "header",
    ["Basic dXNlcjpwYXNz", "Bearer", "Bearer pk_test_123", "sk_sandbox_abc", "Token sk_live_abc"],
)
def test_malformed_authorization_is_401(client: TestClient, header: str) -> None:
    response = client.get("/api/v1/credits", headers={"Authorization": header})
    assert_error(response, 401, "malformed_api_key")


def test_unknown_key_is_401(client: TestClient) -> None:
    response = client.get(
        "/api/v1/credits", headers={"Authorization": "Bearer sk_sandbox_" + "x" * 32}
    )
    assert_error(response, 401, "invalid_api_key")


def test_revoked_key_is_401_and_other_keys_still_work(
    client: TestClient, db: Database, customer: Customer
) -> None:
    assert client.get("/api/v1/credits", headers=customer.auth()).status_code == 200
    with db.session() as session:
        accounts.revoke_key(session, customer.sandbox_key_id)
    assert_error(client.get("/api/v1/credits", headers=customer.auth()), 401, "api_key_revoked")
    assert client.get("/api/v1/credits", headers=customer.auth("production")).status_code == 200


def test_key_with_the_other_environments_prefix_is_401(
    client: TestClient, customer: Customer
) -> None:
    secret = customer.sandbox_key.removeprefix("sk_sandbox_")
    response = client.get("/api/v1/credits", headers={"Authorization": f"Bearer sk_live_{secret}"})
    assert_error(response, 401, "invalid_api_key")


def test_each_key_sees_its_own_environment(client: TestClient, customer: Customer) -> None:
    sandbox = client.get("/api/v1/credits", headers=customer.auth("sandbox")).json()
    production = client.get("/api/v1/credits", headers=customer.auth("production")).json()
    assert sandbox["environment"] == "sandbox"
    assert production["environment"] == "production"


def test_keys_are_stored_hashed_only(db: Database, customer: Customer) -> None:
    from sqlalchemy import select

    from soundstage.models import ApiKey

    with db.session() as session:
        rows = session.scalars(select(ApiKey).where(ApiKey.account_id == customer.account_id)).all()
    assert len(rows) == 2
    for row in rows:
        assert customer.sandbox_key not in (row.secret_hash, row.display_prefix)
        assert row.secret_hash == accounts.hash_secret(
            customer.sandbox_key if row.environment == "sandbox" else customer.production_key
        )
    assert {r.display_prefix[:8] for r in rows} == {"sk_sandb", "sk_live_"}


def test_every_response_carries_a_request_id(client: TestClient, customer: Customer) -> None:
    ids = set()
    for response in (
        client.get("/api/v1/credits", headers=customer.auth()),
        client.get("/api/v1/credits"),
        client.get("/nowhere"),
        client.get("/openapi.json"),
    ):
        assert response.headers["Request-Id"].startswith("req_")
        ids.add(response.headers["Request-Id"])
    assert len(ids) == 4


BEARER = 'Bearer realm="soundstage"'
# Routes of different kinds: a GET of a record, a list, a POST with a body, an unknown path.
ROUTES = [
    ("GET", "/api/v1/credits"),
    ("GET", "/api/v1/jobs/job_anything"),
    ("POST", "/api/v1/speech/tts"),
    ("GET", "/api/v1/nothing-here"),
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
def test_every_401_carries_a_bearer_challenge(
    client: TestClient, db: Database, method: str, path: str
) -> None:
    """RFC 6750: no key (or another scheme) gets the plain challenge; a bearer key that is
    refused gets `error="invalid_token"` (an empty one `invalid_request`)."""
    revoked = create_customer(db)
    with db.session() as session:
        accounts.revoke_key(session, revoked.sandbox_key_id)
    cases = [
        ({}, "missing_api_key", None),
        ({"Authorization": "Basic dXNlcjpwYXNz"}, "malformed_api_key", None),
        ({"Authorization": "Bearer"}, "malformed_api_key", "invalid_request"),
        ({"Authorization": "Bearer pk_test_123"}, "malformed_api_key", "invalid_token"),
        ({"Authorization": "Bearer sk_live_" + "x" * 32}, "invalid_api_key", "invalid_token"),
        (revoked.auth(), "api_key_revoked", "invalid_token"),
    ]
    for headers, code, bearer_error in cases:
        response = client.request(method, path, headers=headers, json={})
        error = assert_error(response, 401, code)
        challenge = response.headers["WWW-Authenticate"]
        if bearer_error is None:
            assert challenge == BEARER, (headers, challenge)
        else:
            assert challenge.startswith(f'{BEARER}, error="{bearer_error}", error_description="')
            assert error["message"] in challenge


def test_openapi_documents_the_challenge_on_every_401(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    for path, item in schema["paths"].items():
        if not path.startswith("/api/"):
            continue
        for method, operation in item.items():
            headers = operation["responses"]["401"]["headers"]
            assert "WWW-Authenticate" in headers, (method, path)


def test_a_key_revoked_elsewhere_is_refused_within_the_key_cache_time(
    settings: Settings, db: Database, customer: Customer
) -> None:
    """A process trusts a key it found valid for `accounts.key_cache_seconds`; a revocation
    made by another process (here a plain UPDATE, as another node's would be) reaches it
    within that time, and one made through the process itself at once (test above)."""
    cached = settings.model_copy(update={"accounts": AccountSettings(key_cache_seconds=1.0)})
    with TestClient(create_app(cached)) as client:
        assert client.get("/api/v1/credits", headers=customer.auth()).status_code == 200
        with db.engine.begin() as conn:
            conn.execute(
                update(ApiKey)
                .where(ApiKey.id == customer.sandbox_key_id)
                .values(revoked_at=utcnow())
            )
        deadline = time.monotonic() + 10
        while client.get("/api/v1/credits", headers=customer.auth()).status_code == 200:
            assert time.monotonic() < deadline, "the revoked key was still trusted after 10 s"
            time.sleep(0.1)
        assert_error(client.get("/api/v1/credits", headers=customer.auth()), 401, "api_key_revoked")
