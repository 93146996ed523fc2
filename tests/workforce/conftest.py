"""Workforce fixtures: the demo talent catalog loaded once through the services, verified
buyers, and talent written for one test with words no other profile holds."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.accounts import verification
from soundstage.core.db import Database
from soundstage.core.ids import random_token
from soundstage.voices.service import CatalogCounts
from soundstage.workforce.talent.catalog import TalentCounts, TalentIn, upsert_talent
from soundstage.workforce.talent.demo import load_demo_talent
from tests.conftest import Customer, create_customer


@pytest.fixture(scope="session")
def talent_catalog(db: Database, demo_catalog: CatalogCounts) -> TalentCounts:
    """The demo talent catalog on top of the demo voices, loaded once per session."""
    with db.session() as session:
        return load_demo_talent(session)


def verify_buyer(db: Database, customer: Customer, *environments: str) -> Customer:
    """Verified as an operator would (the HTTP path is tested in test_gate.py)."""
    with db.session() as session:
        for environment in environments or ("sandbox", "production"):
            verification.decide(
                session, customer.account_id, environment, approve=True, require_pending=False
            )
    return customer


@pytest.fixture
def buyer(db: Database, talent_catalog: TalentCounts) -> Customer:
    """A fresh account, a verified buyer in both environments."""
    return verify_buyer(db, create_customer(db))


@pytest.fixture
def other_buyer(db: Database, talent_catalog: TalentCounts) -> Customer:
    return verify_buyer(db, create_customer(db))


def unique_word() -> str:
    """A word no profile holds (letters only, so it is one search token)."""
    return "zq" + "".join(c for c in random_token(24).lower() if c.isalpha())[:10]


def profile(**fields: Any) -> TalentIn:
    """A talent profile with sensible defaults and a unique id."""
    values: dict[str, Any] = {
        "creator_id": f"cr_test_{unique_word()}",
        "display_name": "Test Talent",
        "bio": "A voice talent written for one test.",
        "roles": ["voice_actor"],
        "genres": ["commercial"],
        "languages": ["en-US"],
        "accents": ["General American"],
        "vocal_styles": ["warm"],
        "gender": "female",
        "age_range": "young_adult",
        "verified": True,
        "rating": 4.5,
        "ratings_count": 10,
        "rate_card": {"internet": 20_000, "broadcast": 100_000},
        "demos": [
            {
                "title": "Commercial demo",
                "genre": "commercial",
                "script": "Fresh bread, every morning, just around the corner.",
                "voice_id": "voice_sarah",
            }
        ],
    }
    values.update(fields)
    return TalentIn.model_validate(values)


def add_talent(db: Database, *profiles: TalentIn) -> list[str]:
    with db.session() as session:
        upsert_talent(session, profiles)
    return [p.creator_id for p in profiles]


def every_page(
    client: TestClient, customer: Customer, path: str, environment: str = "sandbox"
) -> Iterator[dict[str, Any]]:
    """Every object of a cursor-paginated list, following `starting_after`."""
    separator = "&" if "?" in path else "?"
    cursor = ""
    while True:
        response = client.get(
            f"{path}{separator}limit=100{cursor}", headers=customer.auth(environment)
        )
        assert response.status_code == 200, response.text
        body = response.json()
        yield from body["data"]
        if not body["has_more"]:
            return
        last = body["data"][-1]
        cursor = f"&starting_after={last.get('creator_id') or last['id']}"
