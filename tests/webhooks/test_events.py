"""Events over HTTP: listing and filtering, and isolation of events and deliveries."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.webhooks import service
from tests.support.api import assert_error
from tests.support.factories import Customer
from tests.support.servers import Receiver
from tests.support.webhooks import deliveries, emit, register

pytestmark = pytest.mark.services


def test_events_are_listed_newest_first_and_filtered_by_type(
    client: TestClient, db: Database, customer: Customer
) -> None:
    first = emit(db, customer, "dubbing.completed", {"output_url": "https://cdn.example/1"})
    second = emit(db, customer, "daw.completed", {"download_url": "https://cdn.example/2"})
    third = emit(db, customer, "dubbing.completed", {"output_url": "https://cdn.example/3"})

    listed = client.get("/api/v1/events", headers=customer.auth()).json()
    assert [e["id"] for e in listed["data"]] == [third, second, first]
    assert listed["data"][1] == {
        "object": "event",
        "id": second,
        "type": "daw.completed",
        "data": {"download_url": "https://cdn.example/2"},
        "created_at": listed["data"][1]["created_at"],
    }
    dubbing = client.get("/api/v1/events?type=dubbing.completed", headers=customer.auth())
    assert [e["id"] for e in dubbing.json()["data"]] == [third, first]
    page = client.get(f"/api/v1/events?limit=1&starting_after={third}", headers=customer.auth())
    assert ([e["id"] for e in page.json()["data"]], page.json()["has_more"]) == ([second], True)
    unknown = client.get("/api/v1/events?type=job.exploded", headers=customer.auth())
    assert assert_error(unknown, 422, "parameter_invalid")["param"] == "type"


def test_emit_refuses_an_event_type_outside_the_catalogue(db: Database, customer: Customer) -> None:
    with pytest.raises(ValueError, match="unknown event type"), db.session() as session:
        service.emit(session, (customer.account_id, "sandbox"), "job.exploded", {})


def test_another_accounts_or_environments_event_is_404(
    client: TestClient, db: Database, customer: Customer, other_customer: Customer
) -> None:
    event_id = emit(db, customer, "dubbing.completed", {})
    for headers in (other_customer.auth(), customer.auth("production")):
        error = assert_error(
            client.get(f"/api/v1/events/{event_id}", headers=headers), 404, "event_not_found"
        )
        assert error["param"] == "event_id"
        assert client.get("/api/v1/events", headers=headers).json()["data"] == []
    own = client.get(f"/api/v1/events/{event_id}", headers=customer.auth())
    assert own.status_code == 200


def test_a_delivery_is_found_only_under_its_own_endpoint(
    client: TestClient,
    db: Database,
    customer: Customer,
    other_customer: Customer,
    receiver: Receiver,
) -> None:
    mine = register(client, customer, receiver)["id"]
    sibling = register(client, customer, receiver)["id"]
    theirs = register(client, other_customer, receiver)["id"]
    emit(db, customer, "daw.completed", {})
    [delivery] = [d for d in deliveries(client, customer, mine)]
    for owner, endpoint_id in ((customer, sibling), (other_customer, theirs)):
        response = client.post(
            f"/api/v1/webhooks/endpoints/{endpoint_id}/deliveries/{delivery['id']}/retry",
            headers=owner.auth(),
        )
        assert assert_error(response, 404, "webhook_delivery_not_found")["param"] == "delivery_id"
        assert deliveries(client, owner, endpoint_id) == [] or owner is customer
