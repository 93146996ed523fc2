"""Webhook endpoints over HTTP: creation and its one-time secret, validation, address rules,
listing, deletion, and isolation between accounts and environments."""

from __future__ import annotations

import base64

import pytest
from fastapi.testclient import TestClient
from standardwebhooks import Webhook

from tests.accounts.test_auth import assert_error
from tests.conftest import Customer
from tests.webhooks.conftest import Receiver, register

pytestmark = pytest.mark.services

ENDPOINTS = "/api/v1/webhooks/endpoints"


def test_creation_answers_the_secret_once(
    client: TestClient, customer: Customer, receiver: Receiver
) -> None:
    created = register(client, customer, receiver, description="orders")
    assert created["id"].startswith("we_")
    assert created["object"] == "webhook_endpoint"
    assert (created["url"], created["description"]) == (receiver.url, "orders")
    assert created["enabled_events"] == ["*"]
    assert (created["status"], created["disabled_reason"]) == ("enabled", None)
    secret = created["secret"]
    assert secret.startswith("whsec_")
    assert len(base64.b64decode(secret.removeprefix("whsec_"))) >= 24
    Webhook(secret)  # the library accepts it as is

    one = client.get(f"{ENDPOINTS}/{created['id']}", headers=customer.auth())
    listed = client.get(ENDPOINTS, headers=customer.auth())
    for response in (one, listed):
        assert response.status_code == 200
        assert secret not in response.text
        assert secret.removeprefix("whsec_") not in response.text
    assert "secret" not in one.json()
    assert [e["id"] for e in listed.json()["data"]] == [created["id"]]
    assert {k: v for k, v in created.items() if k != "secret"} == one.json()


def test_enabled_events_are_validated(
    client: TestClient, customer: Customer, receiver: Receiver
) -> None:
    chosen = register(
        client,
        customer,
        receiver,
        enabled_events=["dubbing.completed", "daw.completed", "dubbing.completed"],
    )
    assert chosen["enabled_events"] == ["dubbing.completed", "daw.completed"]
    for events in (["*", "daw.completed"], ["job.exploded"], [], "daw.completed"):
        response = client.post(
            ENDPOINTS,
            headers=customer.auth(),
            json={"url": receiver.url, "enabled_events": events},
        )
        error = assert_error(response, 422, "parameter_invalid")
        assert error["param"].startswith("enabled_events"), events


@pytest.mark.parametrize(
    "url",
    ["ftp://example.com/hook", "example.com/hook", "http://user:pw@127.0.0.1/hook", "http://"],
)
def test_a_url_that_is_not_http_is_422(client: TestClient, customer: Customer, url: str) -> None:
    response = client.post(ENDPOINTS, headers=customer.auth(), json={"url": url})
    assert assert_error(response, 422, "parameter_invalid")["param"] == "url"


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.2/hook",  # loopback, not on the allow-list (which holds 127.0.0.1)
        "http://localhost:8080/hook",
        "http://[::1]/hook",
        "http://10.1.2.3/hook",
        "https://192.168.0.10/hook",
        "http://169.254.169.254/latest/meta-data",
        "http://0.0.0.0/hook",
        "http://no-such-host.invalid/hook",
    ],
)
def test_private_and_unresolvable_addresses_are_refused(
    client: TestClient, customer: Customer, url: str
) -> None:
    response = client.post(ENDPOINTS, headers=customer.auth(), json={"url": url})
    assert assert_error(response, 422, "url_not_allowed")["param"] == "url"
    assert client.get(ENDPOINTS, headers=customer.auth()).json()["data"] == []


def test_listing_pages_newest_first(
    client: TestClient, customer: Customer, receiver: Receiver
) -> None:
    ids = [register(client, customer, receiver)["id"] for _ in range(3)]
    first = client.get(f"{ENDPOINTS}?limit=2", headers=customer.auth()).json()
    assert ([e["id"] for e in first["data"]], first["has_more"]) == (ids[:0:-1], True)
    rest = client.get(f"{ENDPOINTS}?limit=2&starting_after={ids[1]}", headers=customer.auth())
    assert ([e["id"] for e in rest.json()["data"]], rest.json()["has_more"]) == ([ids[0]], False)


def test_deleting_an_endpoint(client: TestClient, customer: Customer, receiver: Receiver) -> None:
    endpoint_id = register(client, customer, receiver)["id"]
    response = client.delete(f"{ENDPOINTS}/{endpoint_id}", headers=customer.auth())
    assert response.status_code == 200
    assert response.json() == {"object": "webhook_endpoint", "id": endpoint_id, "deleted": True}
    for method in ("GET", "DELETE"):
        again = client.request(method, f"{ENDPOINTS}/{endpoint_id}", headers=customer.auth())
        assert assert_error(again, 404, "resource_missing")["param"] == "endpoint_id"
    assert client.get(ENDPOINTS, headers=customer.auth()).json()["data"] == []


def test_another_accounts_or_environments_endpoint_is_404(
    client: TestClient, customer: Customer, other_customer: Customer, receiver: Receiver
) -> None:
    endpoint_id = register(client, customer, receiver)["id"]
    paths = [
        ("GET", f"{ENDPOINTS}/{endpoint_id}"),
        ("DELETE", f"{ENDPOINTS}/{endpoint_id}"),
        ("GET", f"{ENDPOINTS}/{endpoint_id}/deliveries"),
        ("POST", f"{ENDPOINTS}/{endpoint_id}/deliveries/wd_0000000000000000000000/retry"),
    ]
    for headers in (other_customer.auth(), customer.auth("production")):
        for method, path in paths:
            error = assert_error(
                client.request(method, path, headers=headers), 404, "resource_missing"
            )
            assert error["param"] == "endpoint_id", (method, path)
        assert client.get(ENDPOINTS, headers=headers).json()["data"] == []
        cursor = client.get(f"{ENDPOINTS}?starting_after={endpoint_id}", headers=headers)
        assert assert_error(cursor, 404, "resource_missing")["param"] == "starting_after"
    # Still there for its owner.
    assert client.get(f"{ENDPOINTS}/{endpoint_id}", headers=customer.auth()).status_code == 200
