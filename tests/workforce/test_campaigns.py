"""Campaign briefs over HTTP: validation of every field and its bounds, the best-matching
talent, listing, reading and closing."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from tests.support.api import assert_error
from tests.support.factories import Customer, add_talent, profile
from tests.support.workforce import brief

pytestmark = pytest.mark.services

CAMPAIGNS = "/api/v1/workforce/campaigns"


def post(client: TestClient, buyer: Customer, **changes: Any) -> Any:
    return client.post("/api/v1/workforce/campaign", json=brief(**changes), headers=buyer.auth())


def test_a_brief_opens_with_the_best_matching_talent(
    client: TestClient, db: Database, buyer: Customer
) -> None:
    # A budget of exactly 12,345 cents: only talent at or below it matches.
    best, good, pricey, wrong_language, no_audiobooks = add_talent(
        db,
        profile(roles=["narrator", "host"], genres=["audiobook", "corporate"],
                rate_card={"audiobook": 12_345}, languages=["en-GB"]),
        profile(roles=["voice_actor"], genres=["audiobook"], rate_card={"audiobook": 100},
                verified=False),
        profile(roles=["narrator"], genres=["audiobook"], rate_card={"audiobook": 12_346}),
        profile(roles=["narrator"], genres=["audiobook"], rate_card={"audiobook": 100},
                languages=["de-DE"]),
        profile(roles=["narrator"], genres=["audiobook"], rate_card={"internet": 100}),
    )  # fmt: skip
    response = post(client, buyer, budget_cents=12_345)
    assert response.status_code == 200, response.text
    campaign = response.json()
    assert campaign["object"] == "campaign"
    assert campaign["id"].startswith("camp_")
    assert campaign["status"] == "open"
    assert campaign["closed_at"] is None
    assert campaign["currency"] == "USD"
    matches = campaign["matches"]
    assert len(matches) <= 10  # the ten best at most; `best` below shows there is one
    ids = [m["creator_id"] for m in matches]
    assert len(set(ids)) == len(ids)
    assert best in ids
    assert not {pricey, wrong_language, no_audiobooks} & set(ids)
    # Scored 3 per shared role, 2 per shared genre, 1 if verified; best first.
    by_id = {m["creator_id"]: m for m in matches}
    assert by_id[best]["score"] == 3 + 2 + 1
    assert by_id[best]["base_fee_cents"] == 12_345
    scores = [m["score"] for m in matches]
    assert scores == sorted(scores, reverse=True)
    assert all(m["base_fee_cents"] <= 12_345 for m in matches)
    assert matches[0]["score"] == 6
    if good in by_id:
        assert by_id[good]["score"] == 2
    fetched = client.get(f"{CAMPAIGNS}/{campaign['id']}", headers=buyer.auth()).json()
    assert fetched == campaign


def test_matches_speak_a_wanted_language(client: TestClient, buyer: Customer) -> None:
    campaign = post(client, buyer, languages=["es", "fr-CA"], roles=[], genres=[],
                    usage_type="internet", budget_cents=1_000_000).json()  # fmt: skip
    assert campaign["matches"]
    for match in campaign["matches"]:
        creator = client.get(
            f"/api/v1/workforce/creators/{match['creator_id']}", headers=buyer.auth()
        ).json()
        assert any(t.startswith("es") or t == "fr-CA" for t in creator["languages"])
        assert "internet" in [r["usage_type"] for r in creator["rate_card"]]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("title", ""), ("title", "x" * 201), ("description", ""), ("description", "x" * 5001),
        ("roles", ["singer"]), ("roles", ["host", "host"]), ("genres", ["jazz"]),
        ("languages", []), ("languages", ["english"]), ("languages", ["en"] * 2),
        ("languages", ["en"] + [f"en-{c}" for c in ("GB", "US", "AU", "CA", "IE", "NZ", "ZA",
                                                       "IN", "SG", "PH")]),
        ("script_excerpt", "x" * 5001), ("usage_type", "radio"), ("budget_cents", 99),
        ("budget_cents", 1_000_000_001), ("budget_cents", "lots"), ("deadline", "2026-13-01"),
        ("deadline", "tomorrow"),
        ("deadline", "\u0662\u0660\u0669\u0669-\u0660\u0661-\u0663\u0661"),
        ("deadline", "\uff12\uff10\uff19\uff19-01-31"),
        ("deadline", 4102444800), ("deadline", "4102444800"), ("deadline", "2099-01-31T00:00"),
        ("languages", ["\uff45\uff4e"]),
    ],
)  # fmt: skip
def test_bad_briefs_are_422_naming_the_field(
    client: TestClient, buyer: Customer, field: str, value: Any
) -> None:
    response = post(client, buyer, **{field: value})
    assert response.status_code == 422, response.text
    assert response.json()["error"]["param"].split("[")[0] == field
    assert client.get(CAMPAIGNS, headers=buyer.auth()).json()["data"] == []


def test_the_deadline_must_be_after_today(client: TestClient, buyer: Customer) -> None:
    today = utcnow().date()
    for days in (0, -1):
        response = post(client, buyer, deadline=(today + timedelta(days=days)).isoformat())
        assert assert_error(response, 422, "parameter_invalid")["param"] == "deadline"
    assert post(client, buyer, deadline=(today + timedelta(days=1)).isoformat()).status_code == 200


def test_bounds_inside_are_accepted(client: TestClient, buyer: Customer) -> None:
    for changes in (
        {"title": "x" * 200, "description": "x" * 5000, "script_excerpt": "x" * 5000},
        {"budget_cents": 100, "roles": [], "genres": []},
        {"budget_cents": 1_000_000_000, "languages": [f"en-{c}" for c in
         ("GB", "US", "AU", "CA", "IE", "NZ", "ZA", "IN", "SG", "PH")]},
    ):  # fmt: skip
        response = post(client, buyer, **changes)
        assert response.status_code == 200, response.text
    response = post(client, buyer, budget_cents=100, languages=["en"], usage_type="ai_voice")
    assert response.json()["matches"] == []  # nobody works that cheap


@pytest.mark.parametrize("field", ["title", "description", "languages", "usage_type",
                                   "budget_cents", "deadline"])  # fmt: skip
def test_required_fields(client: TestClient, buyer: Customer, field: str) -> None:
    body = brief()
    del body[field]
    response = client.post("/api/v1/workforce/campaign", json=body, headers=buyer.auth())
    assert assert_error(response, 422, "parameter_missing")["param"] == field


def test_campaigns_are_listed_and_closed(client: TestClient, buyer: Customer) -> None:
    first = post(client, buyer, title="First").json()
    second = post(client, buyer, title="Second").json()
    listed = client.get(CAMPAIGNS, headers=buyer.auth()).json()
    assert [c["id"] for c in listed["data"]] == [second["id"], first["id"]]
    page = client.get(f"{CAMPAIGNS}?limit=1", headers=buyer.auth()).json()
    assert [c["id"] for c in page["data"]] == [second["id"]]
    assert page["has_more"] is True
    closed = client.post(f"{CAMPAIGNS}/{first['id']}/close", headers=buyer.auth())
    assert closed.status_code == 200, closed.text
    assert closed.json()["status"] == "closed"
    assert closed.json()["closed_at"] is not None
    again = client.post(f"{CAMPAIGNS}/{first['id']}/close", headers=buyer.auth())
    assert_error(again, 409, "campaign_state_conflict")
    open_ones = client.get(f"{CAMPAIGNS}?status=open", headers=buyer.auth()).json()["data"]
    assert [c["id"] for c in open_ones] == [second["id"]]
    closed_ones = client.get(f"{CAMPAIGNS}?status=closed", headers=buyer.auth()).json()["data"]
    assert [c["id"] for c in closed_ones] == [first["id"]]
    missing = client.get(f"{CAMPAIGNS}/camp_nothing", headers=buyer.auth())
    assert assert_error(missing, 404, "campaign_not_found")["param"] == "campaign_id"
