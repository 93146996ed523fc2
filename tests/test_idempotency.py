"""Idempotency-Key on POST: replay, different body 422, in flight 409, scoped to the key."""

from __future__ import annotations

import asyncio
import math
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.fingerprint import StreamedDigest, fingerprint_of
from soundstage.core.principal import IdempotencyClaim as Claim
from soundstage.idempotency import IdempotencyStore
from tests.support.api import assert_error
from tests.support.factories import Customer

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
    claimed = time.monotonic()
    claim = store.begin(customer.sandbox_key_id, "busy", fingerprint_of(scope, body))
    assert isinstance(claim, Claim)

    headers = {**customer.auth(), "Idempotency-Key": "busy", "Content-Type": "application/json"}
    response = client.post("/api/v1/sandbox/credits", headers=headers, content=body)
    elapsed = time.monotonic() - claimed
    assert_error(response, 409, "idempotency_key_in_use")
    # Retry once the holder's lease would have run out, were it dead: the lease's whole
    # length less the (sub-second) time since it was taken, rounded up.
    lease = settings.idempotency_lease_seconds
    retry_after = int(response.headers["Retry-After"])
    assert math.ceil(lease - elapsed) <= retry_after <= math.ceil(lease), (retry_after, elapsed)
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


def test_an_upload_retried_with_a_new_multipart_boundary_is_replayed(
    client: TestClient, customer: Customer
) -> None:
    wav = _silence_wav(3200)
    headers = {**customer.auth(), "Idempotency-Key": "upload-retry"}
    # httpx draws a new boundary for each request, as most clients do.
    first = client.post("/api/v1/uploads", headers=headers, files={"file": ("a.wav", wav)})
    again = client.post("/api/v1/uploads", headers=headers, files={"file": ("a.wav", wav)})
    assert first.status_code == 200, first.text
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.json()["id"] == first.json()["id"]
    other = client.post(
        "/api/v1/uploads", headers=headers, files={"file": ("a.wav", _silence_wav(1600))}
    )
    assert_error(other, 422, "idempotency_key_reused")


def test_a_dead_requests_key_is_taken_over_once_its_lease_ran_out(
    settings: Settings, db: Database, customer: Customer
) -> None:
    """A request that died stops renewing its lease: a retry waits at most the lease, then
    runs normally (here the dead one had created nothing). A live request renews its lease
    every heartbeat and keeps its key however long it runs."""
    short = settings.model_copy(
        update={"idempotency_lease_seconds": 1.0, "idempotency_heartbeat_seconds": 0.2}
    )
    app = create_app(short)

    @app.post("/api/v1/probe-slow")
    async def slow() -> dict[str, str]:
        await asyncio.sleep(2.5)
        return {"status": "done"}

    body = b'{"amount":5}'
    scope = {"method": "POST", "path": "/api/v1/sandbox/credits", "query_string": b""}
    dead = IdempotencyStore(db, short).begin(
        customer.sandbox_key_id, "died", fingerprint_of(scope, body)
    )
    assert isinstance(dead, Claim)
    headers = {**customer.auth(), "Idempotency-Key": "died", "Content-Type": "application/json"}
    with TestClient(app) as client:
        busy = client.post("/api/v1/sandbox/credits", headers=headers, content=body)
        assert_error(busy, 409, "idempotency_key_in_use")
        assert busy.headers["Retry-After"] == "1"
        time.sleep(1.1)
        taken = client.post("/api/v1/sandbox/credits", headers=headers, content=body)
        assert taken.status_code == 200, taken.text
        assert taken.json()["balance"] == 1005
        replay = client.post("/api/v1/sandbox/credits", headers=headers, content=body)
        assert replay.headers["Idempotent-Replayed"] == "true"
        assert balance(client, customer) == 1005

        live = {**customer.auth(), "Idempotency-Key": "live"}
        with ThreadPoolExecutor(1) as pool:
            running = pool.submit(client.post, "/api/v1/probe-slow", headers=live)
            time.sleep(1.6)  # past the lease it renews
            assert_error(
                client.post("/api/v1/probe-slow", headers=live), 409, "idempotency_key_in_use"
            )
            assert running.result().json() == {"status": "done"}


def _silence_wav(frames: int) -> bytes:
    return (
        b"RIFF"
        + (36 + 2 * frames).to_bytes(4, "little")
        + b"WAVEfmt "
        + (16).to_bytes(4, "little")
        + (1).to_bytes(2, "little")
        + (1).to_bytes(2, "little")
        + (16000).to_bytes(4, "little")
        + (32000).to_bytes(4, "little")
        + (2).to_bytes(2, "little")
        + (16).to_bytes(2, "little")
        + b"data"
        + (2 * frames).to_bytes(4, "little")
        + b"\x00\x00" * frames
    )


def test_a_streamed_fingerprint_ignores_the_boundary_and_the_chunking() -> None:
    def scope(boundary: str) -> dict[str, object]:
        content_type = f"multipart/form-data; boundary={boundary}".encode()
        return {
            "method": "POST",
            "path": "/api/v1/uploads",
            "query_string": b"",
            "headers": [(b"content-type", content_type)],
        }

    def body(boundary: str, payload: bytes) -> bytes:
        return (
            (
                f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\n'
            ).encode()
            + payload
            + f"\r\n--{boundary}--\r\n".encode()
        )

    def streamed(boundary: str, payload: bytes, size: int) -> str:
        data, digest = body(boundary, payload), StreamedDigest(scope(boundary))
        for start in range(0, len(data), size):
            digest.update(data[start : start + size])
        return digest.fingerprint(scope(boundary))

    payload = bytes(range(256)) * 40
    reference = streamed("b0undary", payload, 1 << 20)
    for boundary, size in (("b0undary", 1), ("b0undary", 7), ("x" * 60, 5), ("Zz9", 1000)):
        assert streamed(boundary, payload, size) == reference
    assert streamed("b0undary", payload[:-1] + b"!", 7) != reference
