"""The one error envelope for routing, validation and malformed requests."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.accounts.test_auth import assert_error
from tests.conftest import Customer

pytestmark = pytest.mark.services


def test_unknown_route_is_404_in_the_envelope(client: TestClient, customer: Customer) -> None:
    error = assert_error(
        client.get("/api/v1/nothing-here", headers=customer.auth()), 404, "not_found"
    )
    assert "/api/v1/nothing-here" in error["message"]


def test_wrong_method_is_405_with_allow(client: TestClient, customer: Customer) -> None:
    response = client.delete("/api/v1/credits", headers=customer.auth())
    assert_error(response, 405, "method_not_allowed")
    assert response.headers["Allow"] == "GET"


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
