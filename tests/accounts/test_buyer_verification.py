"""Buyer verification: status, submission with validated details, sandbox decisions, the gate."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from soundstage.accounts.verification import VerifiedBuyerDep
from soundstage.app import create_app
from soundstage.config import Settings
from tests.support.api import Answer, assert_error
from tests.support.factories import BUYER_DETAILS, Customer

pytestmark = pytest.mark.services


def submit(client: TestClient, customer: Customer, **changes: object) -> Answer:
    return client.post(
        "/api/v1/buyers/verification", headers=customer.auth(), json={**BUYER_DETAILS, **changes}
    )


def test_new_account_is_unverified(client: TestClient, customer: Customer) -> None:
    body = client.get("/api/v1/buyers/verification", headers=customer.auth()).json()
    assert body["object"] == "buyer_verification"
    assert body["status"] == "unverified"
    assert body["submitted_at"] is None


def test_submission_moves_to_pending_with_normalized_details(
    client: TestClient, customer: Customer
) -> None:
    response = submit(client, customer)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "pending"
    assert body["country"] == "GB"
    assert body["submitted_at"] is not None
    assert client.get("/api/v1/buyers/verification", headers=customer.auth()).json() == body


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("country", "XX"),
        ("country", "GBR"),
        ("contact_email", "not-an-email"),
        ("legal_name", ""),
        ("legal_name", "x" * 201),
        ("tax_id", "GB<script>"),
        ("tax_id", "1" * 65),
    ],
)
def test_invalid_details_are_422_naming_the_field(
    client: TestClient, customer: Customer, field: str, value: str
) -> None:
    response = submit(client, customer, **{field: value})
    error = assert_error(response, 422, "parameter_invalid")
    assert error["param"] == field
    assert (
        client.get("/api/v1/buyers/verification", headers=customer.auth()).json()["status"]
        == "unverified"
    )


def test_bounds_inside_are_accepted(client: TestClient, customer: Customer) -> None:
    response = submit(client, customer, legal_name="x" * 200, tax_id="1" * 64)
    assert response.status_code == 200


def test_tax_id_is_optional(client: TestClient, customer: Customer) -> None:
    details = {k: v for k, v in BUYER_DETAILS.items() if k != "tax_id"}
    response = client.post("/api/v1/buyers/verification", headers=customer.auth(), json=details)
    assert response.status_code == 200
    assert response.json()["tax_id"] is None


def test_sandbox_approval(client: TestClient, customer: Customer) -> None:
    not_pending = client.post(
        "/api/v1/sandbox/buyers/verification/approve", headers=customer.auth()
    )
    assert_error(not_pending, 409, "verification_state_conflict")
    submit(client, customer)
    approved = client.post(
        "/api/v1/sandbox/buyers/verification/approve", headers=customer.auth()
    ).json()
    assert approved["status"] == "verified"
    assert approved["verified_at"] is not None
    assert_error(submit(client, customer), 409, "verification_state_conflict")


def test_rejected_buyer_can_resubmit(client: TestClient, customer: Customer) -> None:
    submit(client, customer)
    rejected = client.post(
        "/api/v1/sandbox/buyers/verification/reject", headers=customer.auth()
    ).json()
    assert rejected["status"] == "rejected"
    assert rejected["rejected_at"] is not None
    again = submit(client, customer, legal_name="Acme Audio Limited").json()
    assert (again["status"], again["rejected_at"]) == ("pending", None)


def test_sandbox_helpers_refuse_production_keys(client: TestClient, customer: Customer) -> None:
    client.post(
        "/api/v1/buyers/verification", headers=customer.auth("production"), json=BUYER_DETAILS
    )
    response = client.post(
        "/api/v1/sandbox/buyers/verification/approve", headers=customer.auth("production")
    )
    assert_error(response, 403, "sandbox_only")
    status = client.get("/api/v1/buyers/verification", headers=customer.auth("production")).json()[
        "status"
    ]
    assert status == "pending"


def test_gate_dependency_answers_403_until_verified(settings: Settings, customer: Customer) -> None:
    # The gate as the workforce endpoints use it, on a probe route of a real app instance.
    app = create_app(settings)

    @app.get("/api/v1/gate-probe")
    def probe(principal: VerifiedBuyerDep) -> dict[str, str]:
        return {"account": principal.account_id}

    with TestClient(app) as client:
        assert_error(
            client.get("/api/v1/gate-probe", headers=customer.auth()), 403, "buyer_not_verified"
        )
        submit(client, customer)
        assert_error(
            client.get("/api/v1/gate-probe", headers=customer.auth()), 403, "buyer_not_verified"
        )
        client.post("/api/v1/sandbox/buyers/verification/approve", headers=customer.auth())
        response = client.get("/api/v1/gate-probe", headers=customer.auth())
        assert response.status_code == 200
        assert response.json() == {"account": customer.account_id}
        other_environment = client.get("/api/v1/gate-probe", headers=customer.auth("production"))
        assert_error(other_environment, 403, "buyer_not_verified")
