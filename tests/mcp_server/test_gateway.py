"""/mcp is an API path like any other, in process (the real app through Starlette's test client):
its requests spend the account's rate limit, in the bucket its other requests spend; and an
app run without its lifespan (so without the MCP session manager) answers 503 in the API's
envelope, never a crash."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import Settings
from soundstage.core.db import Database
from tests.support.api import assert_error
from tests.support.factories import create_customer
from tests.support.mcp import ACCEPT, INITIALIZE

pytestmark = pytest.mark.services


def test_mcp_requests_spend_the_accounts_rate_limit_with_its_other_requests(
    settings: Settings, db: Database
) -> None:
    limits = settings.rate_limits.model_copy(update={"sandbox": "3/minute"})
    app = create_app(settings.model_copy(update={"rate_limits": limits}))
    customer, other = create_customer(db), create_customer(db)
    mcp = {**customer.auth(), **ACCEPT}
    with TestClient(app) as client:
        assert client.get("/api/v1/credits", headers=customer.auth()).status_code == 200
        for _ in range(2):
            answered = client.post("/mcp", headers=mcp, json=INITIALIZE)
            assert answered.status_code == 200, answered.text
            assert answered.json()["result"]["serverInfo"]["name"] == "soundstage"
        refused = client.post("/mcp", headers=mcp, json=INITIALIZE)
        assert_error(refused, 429, "rate_limited")
        assert int(refused.headers["Retry-After"]) >= 1
        # Another account's bucket is its own.
        admitted = client.post("/mcp", headers={**other.auth(), **ACCEPT}, json=INITIALIZE)
        assert admitted.status_code == 200


def test_an_app_run_without_its_lifespan_answers_503(settings: Settings, db: Database) -> None:
    customer = create_customer(db)
    client = TestClient(create_app(settings))  # not entered: the lifespan never runs
    answered = client.post("/mcp", headers={**customer.auth(), **ACCEPT}, json=INITIALIZE)
    assert_error(answered, 503, "service_unavailable")
