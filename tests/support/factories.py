"""Things a test needs, made through the real services (never raw SQL): a customer (account,
a sandbox and a production key, credits), an API key, a verified buyer, talent profiles
(the talent catalog's import) and studios with rooms (the studio catalog's import).

Each call makes fresh rows with unique ids, so tests never see each other's and never clean
up."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from soundstage.accounts import service as accounts
from soundstage.accounts import verification
from soundstage.config import Environment
from soundstage.core.db import Database
from soundstage.core.ids import random_token
from soundstage.core.principal import Principal
from soundstage.credits import service as credits
from soundstage.studios.catalog import WEEKDAYS, StudioSpec
from soundstage.studios.importer import upsert_studios
from soundstage.workforce.talent.catalog import TalentIn, upsert_talent

# Customers


@dataclass
class Customer:
    account_id: str
    sandbox_key: str
    production_key: str
    sandbox_key_id: str
    production_key_id: str

    def auth(self, environment: str = "sandbox") -> dict[str, str]:
        key = self.sandbox_key if environment == "sandbox" else self.production_key
        return {"Authorization": f"Bearer {key}"}


def create_customer(db: Database, credits_each: int = 0) -> Customer:
    """A fresh account with a sandbox and a production key, and `credits_each` credits
    granted in each environment."""
    with db.session() as session:
        account = accounts.create_account(session, "Test customer")
        sandbox = accounts.create_key(session, (account.id, "sandbox"))
        production = accounts.create_key(session, (account.id, "production"))
        if credits_each:
            for environment in ("sandbox", "production"):
                credits.grant(session, (account.id, environment), credits_each, "test grant")
    return Customer(
        account.id, sandbox.secret, production.secret, sandbox.key.id, production.key.id
    )


def create_api_key(db: Database, customer: Customer, environment: Environment = "sandbox") -> str:
    """Another key of the customer's, in `environment`: its secret."""
    with db.session() as session:
        return accounts.create_key(session, (customer.account_id, environment)).secret


def principal_of(customer: Customer, environment: str = "sandbox") -> Principal:
    """Who the customer's key is, for calling a service directly."""
    key_id = customer.sandbox_key_id if environment == "sandbox" else customer.production_key_id
    return Principal(customer.account_id, environment, key_id)  # type: ignore[arg-type]


# Buyers

# What a buyer sends to be verified (`POST /api/v1/buyers/verification`).
BUYER_DETAILS = {
    "legal_name": "Acme Audio Ltd",
    "country": "gb",
    "contact_email": "buyers@acme.example",
    "tax_id": "GB123 456-789",
}


def verify_buyer(db: Database, customer: Customer, *environments: str) -> Customer:
    """Verified as an operator would (the HTTP path is tested in
    tests/workforce/test_gate.py), in `environments` (both if none)."""
    with db.session() as session:
        for environment in environments or ("sandbox", "production"):
            verification.decide(
                session, (customer.account_id, environment), approve=True, require_pending=False
            )
    return customer


def create_buyer(db: Database, credits_each: int = 0) -> Customer:
    """A fresh customer, a verified buyer in both environments."""
    return verify_buyer(db, create_customer(db, credits_each))


# Talent


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
    """The profiles imported through the talent catalog; their creator ids."""
    with db.session() as session:
        upsert_talent(session, profiles)
    return [p.creator_id for p in profiles]


def create_talent(db: Database, **fields: Any) -> str:
    """One talent profile (`profile(**fields)`) imported; its creator id."""
    (creator_id,) = add_talent(db, profile(**fields))
    return creator_id


# Studios

EVERY_DAY_9_TO_6 = [{"day": day, "open": "09:00", "close": "18:00"} for day in WEEKDAYS]
ROOM_A = {
    "name": "Studio A",
    "booth_capacity": 4,
    "hourly_rate_cents": 5000,
    "currency": "USD",
    "min_booking_hours": 2,
    "buffer_minutes": 30,
}
ROOM_B = {
    "name": "Vocal Booth",
    "booth_capacity": 2,
    "hourly_rate_cents": 3333,
    "currency": "USD",
    "min_booking_hours": 1,
    "buffer_minutes": 0,
}
MakeStudio = Callable[..., StudioSpec]


def studio_spec(
    *,
    timezone: str = "America/New_York",
    hours: Sequence[dict[str, str]] = EVERY_DAY_9_TO_6,
    rooms: Sequence[dict[str, Any]] = (ROOM_A, ROOM_B),
    closures: Sequence[dict[str, Any]] = (),
    city: str | None = None,
    state: str = "Test State",
    types: Sequence[str] = ("recording", "podcast"),
    rating: float | None = 4.5,
    **extra: Any,
) -> StudioSpec:
    """A studio with a unique id and city; rooms get ids `<studio id>_a`, `_b`, ..."""
    token = secrets.token_hex(5)
    studio_id = f"studio_t{token}"
    return StudioSpec.model_validate(
        {
            "id": studio_id,
            "name": f"Test Studio {token}",
            "types": list(types),
            "address": {
                "city": city or f"Testville {token}",
                "state": state,
                "country": "US",
            },
            "timezone": timezone,
            "latitude": 40.7,
            "longitude": -74.0,
            "rating": rating,
            "review_count": 0 if rating is None else 12,
            "rooms": [{"id": f"{studio_id}_{chr(97 + n)}", **room} for n, room in enumerate(rooms)],
            "opening_hours": list(hours),
            "closures": list(closures),
            **extra,
        }
    )


def create_studio(db: Database, **options: Any) -> StudioSpec:
    """A studio (`studio_spec(**options)`) imported through the studio catalog."""
    spec = studio_spec(**options)
    with db.session() as session:
        upsert_studios(session, [spec])
    return spec
