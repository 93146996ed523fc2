"""Webhook endpoints over HTTP: creation and its one-time secret, validation, address rules
(one answer whether a name does not resolve or resolves to a private address), the cap per
account and environment, listing, deletion, and isolation between accounts and
environments."""

from __future__ import annotations

import base64
import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient
from standardwebhooks import Webhook

from soundstage.config import WebhookSettings
from soundstage.core.db import Database
from soundstage.webhooks import service
from tests.support.api import assert_error
from tests.support.factories import Customer, principal_of
from tests.support.servers import Receiver
from tests.support.webhooks import register

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
        assert assert_error(again, 404, "webhook_endpoint_not_found")["param"] == "endpoint_id"
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
                client.request(method, path, headers=headers), 404, "webhook_endpoint_not_found"
            )
            assert error["param"] == "endpoint_id", (method, path)
        assert client.get(ENDPOINTS, headers=headers).json()["data"] == []
        cursor = client.get(f"{ENDPOINTS}?starting_after={endpoint_id}", headers=headers)
        assert assert_error(cursor, 404, "webhook_endpoint_not_found")["param"] == "starting_after"
    # Still there for its owner.
    assert client.get(f"{ENDPOINTS}/{endpoint_id}", headers=customer.auth()).status_code == 200


def test_unresolvable_and_private_urls_get_the_same_answer(
    client: TestClient, customer: Customer
) -> None:
    """No DNS oracle: the answer does not tell whether a name exists or where it points."""
    urls = [
        "http://no-such-host.invalid/hook",  # does not resolve
        "http://localhost:8080/hook",  # a name that resolves to loopback
        "http://10.1.2.3/hook",  # a private literal
        "http://[::1]/hook",  # a loopback literal
    ]
    answers = []
    for url in urls:
        response = client.post(ENDPOINTS, headers=customer.auth(), json={"url": url})
        error = assert_error(response, 422, "url_not_allowed")
        answers.append({k: v for k, v in error.items() if k != "request_id"})
    assert answers == [answers[0]] * len(urls), answers
    assert answers[0]["param"] == "url"
    assert "localhost" not in answers[0]["message"]


def create(client: TestClient, customer: Customer, url: str, environment: str = "sandbox") -> Any:
    return client.post(ENDPOINTS, headers=customer.auth(environment), json={"url": url})


def test_an_account_has_at_most_16_endpoints_per_environment(
    client: TestClient, customer: Customer, receiver: Receiver, webhook_settings: WebhookSettings
) -> None:
    assert webhook_settings.max_endpoints == 16  # the default
    ids = [register(client, customer, receiver)["id"] for _ in range(16)]  # the 16th: inside
    error = assert_error(create(client, customer, receiver.url), 422, "too_many_endpoints")
    assert error["param"] is None
    assert "16" in error["message"]
    listed = client.get(f"{ENDPOINTS}?limit=100", headers=customer.auth()).json()["data"]
    assert len(listed) == 16

    # The other environment has its own 16.
    assert create(client, customer, receiver.url, "production").status_code == 200
    # A deleted endpoint does not count: its place can be taken, once.
    assert client.delete(f"{ENDPOINTS}/{ids[3]}", headers=customer.auth()).status_code == 200
    assert create(client, customer, receiver.url).status_code == 200
    assert_error(create(client, customer, receiver.url), 422, "too_many_endpoints")


def test_a_creation_racing_for_the_last_place_is_refused(
    client: TestClient, db: Database, customer: Customer, receiver: Receiver
) -> None:
    for _ in range(15):
        register(client, customer, receiver)
    answers: list[Any] = []
    # The 16th is created in a transaction left open while another creation arrives over
    # HTTP: that one waits for it (SQLite's write lock; PostgreSQL's unique slot), then finds
    # no place left.
    with db.session() as session:
        service.create_endpoint(
            session,
            principal_of(customer),
            url=receiver.url,
            description=None,
            enabled_events=["*"],
            allow_hosts=["127.0.0.1"],
            max_endpoints=16,
        )
        racer = threading.Thread(
            target=lambda: answers.append(create(client, customer, receiver.url))
        )
        racer.start()
        racer.join(0.5)
    racer.join(60)
    [answer] = answers
    assert_error(answer, 422, "too_many_endpoints")
    listed = client.get(f"{ENDPOINTS}?limit=100", headers=customer.auth()).json()["data"]
    assert len(listed) == 16
