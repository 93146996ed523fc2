"""The one error envelope for routing, validation and malformed requests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import Settings
from tests.support.api import assert_error
from tests.support.factories import Customer

pytestmark = pytest.mark.services


def test_unknown_route_is_404_in_the_envelope(client: TestClient, customer: Customer) -> None:
    error = assert_error(
        client.get("/api/v1/nothing-here", headers=customer.auth()), 404, "route_not_found"
    )
    assert "/api/v1/nothing-here" in error["message"]


def test_wrong_method_is_405_with_allow(client: TestClient, customer: Customer) -> None:
    response = client.delete("/api/v1/credits", headers=customer.auth())
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == "GET"
    # A path served by several routes (one per method) lists them all.
    response = client.put("/api/v1/webhooks/endpoints", headers=customer.auth())
    error = assert_error(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == "GET, POST"
    assert "GET, POST" in error["message"]
    response = client.post("/api/v1/webhooks/endpoints/we_none", headers=customer.auth())
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == "GET, DELETE"


def test_validation_error_is_422_naming_the_field(client: TestClient, customer: Customer) -> None:
    response = client.post(
        "/api/v1/buyers/verification",
        headers=customer.auth(),
        json={"legal_name": "Acme Ltd", "country": "ZZ", "contact_email": "ops@acme.example"},
    )
    error = assert_error(response, 422, "parameter_invalid")
    assert error["param"] == "country"


def test_missing_field_is_422_parameter_missing(client: TestClient, customer: Customer) -> None:
    response = client.post(
        "/api/v1/buyers/verification", headers=customer.auth(), json={"legal_name": "Acme Ltd"}
    )
    error = assert_error(response, 422, "parameter_missing")
    assert error["param"] in {"country", "contact_email"}


def test_unknown_field_is_422(client: TestClient, customer: Customer) -> None:
    response = client.post(
        "/api/v1/sandbox/credits", headers=customer.auth(), json={"amount": 5, "bonus": 1}
    )
    error = assert_error(response, 422, "parameter_unknown")
    assert error["param"] == "bonus"


def test_query_bounds_are_422(client: TestClient, customer: Customer) -> None:
    for limit, status in ((1, 200), (100, 200), (0, 422), (101, 422)):
        response = client.get(f"/api/v1/credits/ledger?limit={limit}", headers=customer.auth())
        assert response.status_code == status, (limit, response.text)
        if status == 422:
            assert response.json()["error"]["param"] == "limit"


def test_invalid_json_is_400(client: TestClient, customer: Customer) -> None:
    response = client.post(
        "/api/v1/sandbox/credits",
        headers={**customer.auth(), "Content-Type": "application/json"},
        content=b'{"amount": ',
    )
    assert_error(response, 400, "malformed_request")


def test_non_json_body_is_400(client: TestClient, customer: Customer) -> None:
    response = client.post(
        "/api/v1/sandbox/credits",
        headers={**customer.auth(), "Content-Type": "text/plain"},
        content=b"amount=5",
    )
    error = assert_error(response, 400, "malformed_request")
    assert "application/json" in error["message"]


def test_body_over_the_cap_is_413(client: TestClient, customer: Customer, settings) -> None:  # type: ignore[no-untyped-def]
    body = b'{"amount": 1, "pad": "' + b"x" * settings.max_request_bytes + b'"}'
    response = client.post(
        "/api/v1/sandbox/credits",
        headers={**customer.auth(), "Content-Type": "application/json"},
        content=body,
    )
    assert_error(response, 413, "request_too_large")
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert balance["balance"] == 1000


def test_chunked_body_over_the_cap_is_413(settings: Settings, customer: Customer) -> None:
    """Without a Content-Length the cap is found while reading: still 413 in the envelope,
    for JSON bodies and uploads, with and without an Idempotency-Key."""
    upload_cap = 64 * 1024
    small = settings.model_copy(
        update={"media": settings.media.model_copy(update={"upload_max_bytes": upload_cap})}
    )
    json_cap = settings.max_request_bytes
    with TestClient(create_app(small)) as client:
        for with_key in (False, True):
            for extra in (0, 1):  # at the cap, one byte over
                key = {"Idempotency-Key": f"chunked-{extra}"} if with_key else {}
                response = client.post(
                    "/api/v1/sandbox/credits",
                    headers={**customer.auth(), **key, "Content-Type": "application/json"},
                    content=in_chunks(padded_json(json_cap + extra)),
                )
                if extra:
                    assert_error(response, 413, "request_too_large")
                else:  # read whole: the unknown field is named
                    assert_error(response, 422, "parameter_unknown")

                key = {"Idempotency-Key": f"chunked-upload-{extra}"} if with_key else {}
                body, content_type = multipart_wav(upload_cap + extra)
                response = client.post(
                    "/api/v1/uploads",
                    headers={**customer.auth(), **key, "Content-Type": content_type},
                    content=in_chunks(body),
                )
                if extra:
                    assert_error(response, 413, "request_too_large")
                else:
                    assert response.status_code == 200, response.text
    balance = TestClient(create_app(settings)).get("/api/v1/credits", headers=customer.auth())
    assert balance.json()["balance"] == 1000


def in_chunks(body: bytes) -> Iterator[bytes]:
    """A generator body: sent chunked, without a Content-Length."""
    for start in range(0, len(body), 64 * 1024):
        yield body[start : start + 64 * 1024]


def padded_json(size: int) -> bytes:
    head, tail = b'{"amount": 1, "pad": "', b'"}'
    return head + b"x" * (size - len(head) - len(tail)) + tail


def multipart_wav(size: int, boundary: str = "soundstage-test-boundary") -> tuple[bytes, str]:
    """A multipart body of exactly `size` bytes: one 8-bit mono WAV in the field `file`."""
    head = (
        f'--{boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n'
        "Content-Type: audio/wav\r\n\r\n"
    ).encode()
    tail = f"\r\n--{boundary}--\r\n".encode()
    frames = size - len(head) - len(tail) - 44
    wav = (
        b"RIFF"
        + (36 + frames).to_bytes(4, "little")
        + b"WAVEfmt "
        + (16).to_bytes(4, "little")
        + (1).to_bytes(2, "little")
        + (1).to_bytes(2, "little")
        + (8000).to_bytes(4, "little")
        + (8000).to_bytes(4, "little")
        + (1).to_bytes(2, "little")
        + (8).to_bytes(2, "little")
        + b"data"
        + frames.to_bytes(4, "little")
        + b"\x80" * frames
    )
    return head + wav + tail, f"multipart/form-data; boundary={boundary}"


def test_healthz_answers_without_a_key(client: TestClient) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_control_characters_in_the_url_are_400(client: TestClient, customer: Customer) -> None:
    for url in ("/api/v1/jobs/job_%00x", "/api/v1/credits/ledger?starting_after=a%00b"):
        assert_error(client.get(url, headers=customer.auth()), 400, "malformed_request")


def test_nul_in_a_body_field_is_422_naming_it(client: TestClient, customer: Customer) -> None:
    response = client.post(
        "/api/v1/buyers/verification",
        headers=customer.auth(),
        json={
            "legal_name": "Acme",
            "country": "FR",
            "contact_email": "a@b.example",
            "tax_id": "FR\x001",
        },
    )
    error = assert_error(response, 422, "parameter_invalid")
    assert error["param"] == "tax_id"


def test_empty_cursor_is_422(client: TestClient, customer: Customer) -> None:
    response = client.get("/api/v1/credits/ledger?starting_after=", headers=customer.auth())
    error = assert_error(response, 422, "parameter_invalid")
    assert error["param"] == "starting_after"
