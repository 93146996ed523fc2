"""Workforce requests over HTTP: a campaign brief, licenses requested and moved through their
lifecycle. (Talent profiles are made by `tests.support.factories`.)"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from fastapi.testclient import TestClient

from soundstage.core.timeutil import utcnow
from tests.support.factories import Customer

LICENSING = "/api/v1/workforce/licensing"


def brief(**changes: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "title": "Audiobook narrator wanted",
        "description": "A 9-hour mystery novel, recorded remotely.",
        "roles": ["narrator"],
        "genres": ["audiobook"],
        "languages": ["en"],
        "script_excerpt": "The rain had not stopped for three days.",
        "usage_type": "audiobook",
        "budget_cents": 60_000,
        "deadline": (utcnow().date() + timedelta(days=30)).isoformat(),
    }
    body.update(changes)
    return body


def licenses_url(license_id: str = "", action: str = "") -> str:
    return (
        "/api/v1/workforce/licenses"
        + (f"/{license_id}" if license_id else "")
        + (f"/{action}" if action else "")
    )


def request_license(
    client: TestClient,
    buyer: Customer,
    creator_id: str,
    environment: str = "sandbox",
    **changes: Any,
) -> dict[str, Any]:
    body: dict[str, Any] = {"creator_id": creator_id, "usage_type": "broadcast", "territory": "US"}
    body["duration_months"] = 12
    body.update(changes)
    response = client.post(LICENSING, json=body, headers=buyer.auth(environment))
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def act(
    client: TestClient, buyer: Customer, license_id: str, action: str, environment: str = "sandbox"
) -> Any:
    if action in ("accept", "decline"):  # the creator's answer, played by the sandbox helper
        path = f"/api/v1/sandbox/workforce/licenses/{license_id}/{action}"
    else:
        path = licenses_url(license_id, action)
    return client.post(path, headers=buyer.auth(environment))


def completed_license(
    client: TestClient, buyer: Customer, creator_id: str, **changes: Any
) -> dict[str, Any]:
    license_ = request_license(client, buyer, creator_id, usage_type="internet", **changes)
    act(client, buyer, license_["id"], "accept")
    done: dict[str, Any] = act(client, buyer, license_["id"], "complete").json()
    return done
