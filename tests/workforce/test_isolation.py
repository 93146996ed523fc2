"""Isolation: a buyer's campaigns, licenses, licensed media and voice agents are invisible to
other accounts and to the same account's other environment (404, never listed)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from tests.support.api import assert_error
from tests.support.factories import Customer, create_talent
from tests.support.workforce import brief, completed_license

pytestmark = pytest.mark.services


@pytest.fixture
def owned(client: TestClient, db: Database, buyer: Customer) -> dict[str, Any]:
    """One of each object, made with the buyer's sandbox key."""
    creator = create_talent(db)
    campaign = client.post("/api/v1/workforce/campaign", json=brief(), headers=buyer.auth())
    license_ = completed_license(client, buyer, creator)
    media = client.get("/api/v1/workforce/media", headers=buyer.auth()).json()["data"]
    agent = client.post(
        "/api/v1/agents", json={"name": "Front desk", "voice_id": "voice_joe"}, headers=buyer.auth()
    )
    assert media
    return {
        "creator_id": creator,
        "campaign": campaign.json()["id"],
        "license": license_["id"],
        "media": media[0]["id"],
        "agent": agent.json()["id"],
    }


def reads(owned: dict[str, Any]) -> list[tuple[str, str]]:
    return [
        (f"/api/v1/workforce/campaigns/{owned['campaign']}", "campaign_not_found"),
        (f"/api/v1/workforce/licenses/{owned['license']}", "license_not_found"),
        (f"/api/v1/agents/{owned['agent']}", "agent_not_found"),
    ]


def writes(owned: dict[str, Any]) -> list[tuple[str, str, str]]:
    return [
        ("POST", f"/api/v1/workforce/campaigns/{owned['campaign']}/close", "campaign_not_found"),
        ("POST", f"/api/v1/workforce/licenses/{owned['license']}/cancel", "license_not_found"),
        ("POST", f"/api/v1/workforce/licenses/{owned['license']}/complete", "license_not_found"),
        ("PATCH", f"/api/v1/agents/{owned['agent']}", "agent_not_found"),
        ("DELETE", f"/api/v1/agents/{owned['agent']}", "agent_not_found"),
    ]


LISTS = [
    "/api/v1/workforce/campaigns",
    "/api/v1/workforce/licenses",
    "/api/v1/workforce/media",
    "/api/v1/agents",
]


@pytest.mark.parametrize("who", ["other account", "other environment"])
def test_nobody_else_sees_or_touches_them(
    client: TestClient,
    buyer: Customer,
    other_buyer: Customer,
    owned: dict[str, Any],
    who: str,
) -> None:
    headers = other_buyer.auth() if who == "other account" else buyer.auth("production")
    for path, code in reads(owned):
        assert_error(client.get(path, headers=headers), 404, code)
    for method, path, code in writes(owned):
        body = {"name": "Mine now"} if method == "PATCH" else None
        assert_error(client.request(method, path, json=body, headers=headers), 404, code)
    for path in LISTS:
        listed = client.get(path, headers=headers).json()
        assert listed["data"] == [], path
        cursor = owned["media"] if "media" in path else None
        if cursor:
            stranger = client.get(f"{path}?starting_after={cursor}", headers=headers)
            assert stranger.status_code == 404
    # The owner still has everything, untouched.
    for path, _ in reads(owned):
        assert client.get(path, headers=buyer.auth()).status_code == 200
    assert (
        client.get(f"/api/v1/workforce/campaigns/{owned['campaign']}", headers=buyer.auth()).json()[
            "status"
        ]
        == "open"
    )
    agent = client.get(f"/api/v1/agents/{owned['agent']}", headers=buyer.auth()).json()
    assert agent["name"] == "Front desk"  # the stranger's PATCH changed nothing
    license_ = client.get(f"/api/v1/workforce/licenses/{owned['license']}", headers=buyer.auth())
    assert license_.json()["status"] == "completed"  # nor did its cancel
    for path in LISTS:
        assert len(client.get(path, headers=buyer.auth()).json()["data"]) >= 1, path
