"""Licensing over HTTP: the quote and its 1% success fee, validation of every field, each
transition of the lifecycle and each forbidden one (409), expiry on a moved clock, the
creator's side for the account that speaks for the creator, and the sandbox helpers."""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from fractions import Fraction
from typing import Any

import pycountry
import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.core.money import charge
from soundstage.core.timeutil import travel
from soundstage.workforce.licensing import pricing
from soundstage.workforce.talent import service as talent
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer, create_talent
from tests.support.workforce import LICENSING, act, licenses_url, request_license

pytestmark = pytest.mark.services

COUNTRIES = sorted(str(country.alpha_2) for country in pycountry.countries)


@pytest.fixture
def creator(db: Database) -> str:
    """A creator with known rates: internet 125 cents, broadcast 12,345, audiobook 100,000."""
    rates = {"internet": 125, "broadcast": 12_345, "audiobook": 100_000}
    return create_talent(db, rate_card=rates)


def half_up(value: Fraction) -> int:
    return int(value + Fraction(1, 2)) if value >= 0 else -int(-value + Fraction(1, 2))


def test_the_success_fee_is_one_percent_half_up_for_every_amount_to_100000() -> None:
    for amount in range(1, 100_001):
        priced = charge(amount, pricing.SUCCESS_FEE_RATE, "usd")
        assert priced.fee_cents == (amount + 50) // 100, amount  # 1%, half-up, in integers
        assert priced.amount_cents + priced.fee_cents == priced.total_cents
    assert charge(50, Decimal("0.01"), "USD").fee_cents == 1  # 0.5 rounds up
    assert charge(49, Decimal("0.01"), "USD").fee_cents == 0
    assert charge(150, Decimal("0.01"), "USD").fee_cents == 2  # 1.5 rounds up, not to even


def test_quotes_multiply_the_base_fee_and_round_half_up_once() -> None:
    territories = ["US", "CA,US", "CA,GB,US", "AU,CA,DE,FR,GB,US", pricing.WORLDWIDE]
    for base in (100, 125, 333, 12_345, 99_999):
        for territory in territories:
            for months in (1, 3, 4, 6, 7, 12, 13, 24, 36, 37, 60, 61, 120):
                quoted = pricing.quote(base, territory, months, "USD")
                exact = (
                    Fraction(base)
                    * Fraction(quoted.territory_multiplier)
                    * Fraction(quoted.term_multiplier)
                )
                assert quoted.charge.amount_cents == half_up(exact)
                total = quoted.charge.amount_cents + quoted.charge.fee_cents
                assert quoted.charge.total_cents == total
    assert [pricing.territory_multiplier(t) for t in territories] == [
        Decimal("1.00"), Decimal("1.50"), Decimal("2.00"), Decimal("3.00"), Decimal("3.00"),
    ]  # fmt: skip
    terms = {1: "0.40", 3: "0.40", 4: "0.60", 6: "0.60", 7: "1.00", 12: "1.00", 13: "1.75",
             24: "1.75", 25: "2.40", 36: "2.40", 37: "3.50", 60: "3.50", 61: "5.00",
             120: "5.00"}  # fmt: skip
    assert {m: str(pricing.term_multiplier(m)) for m in terms} == terms


def test_a_term_ends_on_the_same_day_or_the_months_last() -> None:
    start = datetime(2027, 1, 31, 10, 30)
    assert pricing.term_ends_at(start, 1) == datetime(2027, 2, 28, 10, 30)
    assert pricing.term_ends_at(start, 13) == datetime(2028, 2, 29, 10, 30)
    assert pricing.term_ends_at(datetime(2027, 5, 15), 120) == datetime(2037, 5, 15)


def test_a_request_is_quoted_from_the_rate_card(
    client: TestClient, buyer: Customer, creator: str
) -> None:
    license_ = request_license(
        client, buyer, creator, territory="us, ca", duration_months=24, usage_type="broadcast"
    )
    assert license_["object"] == "license"
    assert license_["id"].startswith("lic_")
    assert license_["status"] == "requested"
    assert license_["territory"] == "CA,US"
    assert license_["pricing"] == {
        "base_fee_cents": 12_345,
        "territory_multiplier": "1.50",
        "term_multiplier": "1.75",
    }
    # 12,345 x 1.5 x 1.75 = 32,405.625 -> 32,406; 1% = 324.06 -> 324.
    assert (license_["amount_cents"], license_["success_fee_cents"], license_["total_cents"]) == (
        32_406,
        324,
        32_730,
    )
    assert license_["currency"] == "USD"
    assert license_["starts_at"] is None
    assert license_["ends_at"] is None
    # 125 x 1.00 x 0.40 = 50 cents; 1% = 0.5 -> 1 (half-up).
    small = request_license(client, buyer, creator, usage_type="internet", duration_months=1)
    assert (small["amount_cents"], small["success_fee_cents"], small["total_cents"]) == (50, 1, 51)
    worldwide = request_license(
        client, buyer, creator, usage_type="audiobook", territory="Worldwide", duration_months=120
    )
    assert worldwide["territory"] == "worldwide"
    assert worldwide["amount_cents"] == 1_500_000  # 100,000 x 3 x 5
    assert worldwide["success_fee_cents"] == 15_000
    fetched = client.get(licenses_url(license_["id"]), headers=buyer.auth()).json()
    assert fetched == license_


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("usage_type", "radio"),
        ("usage_type", None),
        ("territory", "XX"),
        ("territory", "USA"),
        ("territory", "US,,CA"),
        ("territory", "world"),
        ("territory", ",".join(COUNTRIES[:51])),
        ("territory", 7),
        ("territory", "ß"),  # 'ß'.upper() is SS, South Sudan
        ("territory", "us,ß"),
        ("territory", "\uff35\uff33"),
        ("duration_months", 0),
        ("duration_months", 121),
        ("duration_months", 1.5),
        ("duration_months", "twelve"),
        ("creator_id", ""),
        ("creator_id", "c" * 41),
    ],
)
def test_bad_values_are_422_naming_the_field_and_create_nothing(
    client: TestClient, buyer: Customer, creator: str, field: str, value: Any
) -> None:
    body = {
        "creator_id": creator,
        "usage_type": "broadcast",
        "territory": "US",
        "duration_months": 12,
    }
    response = client.post(LICENSING, json={**body, field: value}, headers=buyer.auth())
    assert assert_error(response, 422, "parameter_invalid")["param"] == field
    assert client.get(licenses_url(), headers=buyer.auth()).json()["data"] == []


@pytest.mark.parametrize("field", ["creator_id", "usage_type", "territory", "duration_months"])
def test_every_field_is_required(
    client: TestClient, buyer: Customer, creator: str, field: str
) -> None:
    body = {
        "creator_id": creator,
        "usage_type": "broadcast",
        "territory": "US",
        "duration_months": 12,
    }
    del body[field]
    response = client.post(LICENSING, json=body, headers=buyer.auth())
    assert assert_error(response, 422, "parameter_missing")["param"] == field


def test_bounds_inside_are_accepted(client: TestClient, buyer: Customer, creator: str) -> None:
    fifty = ",".join(COUNTRIES[:50])
    for changes in ({"duration_months": 1}, {"duration_months": 120}, {"territory": fifty}):
        request_license(client, buyer, creator, **changes)


def test_an_unknown_creator_is_404_and_an_unoffered_usage_422(
    client: TestClient, buyer: Customer, creator: str
) -> None:
    body = {"usage_type": "broadcast", "territory": "US", "duration_months": 12}
    missing = client.post(LICENSING, json={**body, "creator_id": "cr_nobody"}, headers=buyer.auth())
    assert assert_error(missing, 404, "creator_not_found")["param"] == "creator_id"
    unoffered = client.post(
        LICENSING, json={**body, "creator_id": creator, "usage_type": "games"}, headers=buyer.auth()
    )
    assert assert_error(unoffered, 422, "usage_not_offered")["param"] == "usage_type"
    assert client.get(licenses_url(), headers=buyer.auth()).json()["data"] == []


def test_the_whole_lifecycle_to_expiry(client: TestClient, buyer: Customer, creator: str) -> None:
    license_ = request_license(client, buyer, creator, duration_months=1)
    accepted = act(client, buyer, license_["id"], "accept").json()
    assert accepted["status"] == "accepted"
    assert accepted["accepted_at"] is not None
    completed = act(client, buyer, license_["id"], "complete")
    assert completed.status_code == 200, completed.text
    done = completed.json()
    assert done["status"] == "completed"
    starts = datetime.fromisoformat(done["starts_at"])
    ends = datetime.fromisoformat(done["ends_at"])
    assert done["completed_at"] == done["starts_at"]
    assert ends == pricing.term_ends_at(starts, 1)
    # The agreement keeps the quote it was made at.
    assert (done["amount_cents"], done["success_fee_cents"], done["total_cents"]) == (
        license_["amount_cents"],
        license_["success_fee_cents"],
        license_["total_cents"],
    )
    assert done["success_fee_cents"] + done["amount_cents"] == done["total_cents"]
    term = ends - starts
    with travel(term - timedelta(minutes=1)):
        assert client.get(licenses_url(done["id"]), headers=buyer.auth()).json()["status"] == (
            "completed"
        )
    with travel(term + timedelta(seconds=1)):
        expired = client.get(licenses_url(done["id"]), headers=buyer.auth()).json()
        assert expired["status"] == "expired"
        listed = client.get(licenses_url() + "?status=expired", headers=buyer.auth()).json()
        assert [x["id"] for x in listed["data"]] == [done["id"]]
        assert (
            client.get(licenses_url() + "?status=completed", headers=buyer.auth()).json()["data"]
            == []
        )
        for action in ("cancel", "complete", "accept", "decline"):
            error = assert_error(
                act(client, buyer, done["id"], action), 409, "license_state_conflict"
            )
            assert "expired" in error["message"]


# From each state, the moves that are refused.
FORBIDDEN = {
    "requested": ["complete"],
    "accepted": ["accept", "decline"],
    "declined": ["accept", "decline", "complete", "cancel"],
    "cancelled": ["accept", "decline", "complete", "cancel"],
    "completed": ["accept", "decline", "complete", "cancel"],
}
PATHS = {
    "requested": [],
    "accepted": ["accept"],
    "declined": ["decline"],
    "cancelled": ["cancel"],
    "completed": ["accept", "complete"],
}


@pytest.mark.parametrize(
    ("state", "action"), [(s, a) for s, actions in FORBIDDEN.items() for a in actions]
)
def test_forbidden_transitions_are_409_and_change_nothing(
    client: TestClient, buyer: Customer, creator: str, state: str, action: str
) -> None:
    license_ = request_license(client, buyer, creator)
    for step in PATHS[state]:
        assert act(client, buyer, license_["id"], step).status_code == 200
    before = client.get(licenses_url(license_["id"]), headers=buyer.auth()).json()
    assert before["status"] == state
    error = assert_error(act(client, buyer, license_["id"], action), 409, "license_state_conflict")
    assert state in error["message"]
    assert client.get(licenses_url(license_["id"]), headers=buyer.auth()).json() == before


@pytest.mark.parametrize(("state", "action", "result"), [
    ("requested", "accept", "accepted"), ("requested", "decline", "declined"),
    ("requested", "cancel", "cancelled"), ("accepted", "complete", "completed"),
    ("accepted", "cancel", "cancelled"),
])  # fmt: skip
def test_allowed_transitions(
    client: TestClient, buyer: Customer, creator: str, state: str, action: str, result: str
) -> None:
    license_ = request_license(client, buyer, creator)
    for step in PATHS[state]:
        assert act(client, buyer, license_["id"], step).status_code == 200, step
    moved = act(client, buyer, license_["id"], action)
    assert moved.status_code == 200, moved.text
    assert moved.json()["status"] == result
    assert moved.json()[f"{result}_at"] is not None


def test_a_decline_carries_its_reason(client: TestClient, buyer: Customer, creator: str) -> None:
    license_ = request_license(client, buyer, creator)
    response = client.post(
        f"/api/v1/sandbox/workforce/licenses/{license_['id']}/decline",
        json={"reason": "Booked solid until spring."},
        headers=buyer.auth(),
    )
    assert response.json()["decline_reason"] == "Booked solid until spring."
    too_long = client.post(
        f"/api/v1/sandbox/workforce/licenses/{license_['id']}/decline",
        json={"reason": "x" * 1001},
        headers=buyer.auth(),
    )
    assert assert_error(too_long, 422, "parameter_invalid")["param"] == "reason"


def test_the_creators_account_answers_its_requests(
    client: TestClient, db: Database, buyer: Customer, creator: str
) -> None:
    talent_account = create_customer(db)  # not a verified buyer: it sells, it does not buy
    with db.session() as session:
        talent.set_owner(session, creator, talent_account.account_id)
    asked = request_license(client, buyer, creator)
    declined = request_license(client, buyer, creator)
    in_production = request_license(client, buyer, creator, environment="production")
    inbox = client.get("/api/v1/workforce/talent/licenses", headers=talent_account.auth())
    assert inbox.status_code == 200, inbox.text
    assert [x["id"] for x in inbox.json()["data"]] == [declined["id"], asked["id"]]
    accept = client.post(
        f"/api/v1/workforce/talent/licenses/{asked['id']}/accept", headers=talent_account.auth()
    )
    assert accept.json()["status"] == "accepted"
    decline = client.post(
        f"/api/v1/workforce/talent/licenses/{declined['id']}/decline",
        json={"reason": "Not my genre."},
        headers=talent_account.auth(),
    )
    assert decline.json()["status"] == "declined"
    assert (
        client.get(licenses_url(asked["id"]), headers=buyer.auth()).json()["status"] == "accepted"
    )
    again = client.post(
        f"/api/v1/workforce/talent/licenses/{asked['id']}/decline", headers=talent_account.auth()
    )
    assert_error(again, 409, "license_state_conflict")
    pending = client.get(
        "/api/v1/workforce/talent/licenses?status=requested", headers=talent_account.auth()
    ).json()["data"]
    assert pending == []
    # The production request is seen by the production key only.
    production_inbox = client.get(
        "/api/v1/workforce/talent/licenses", headers=talent_account.auth("production")
    ).json()["data"]
    assert [x["id"] for x in production_inbox] == [in_production["id"]]
    wrong_environment = client.post(
        f"/api/v1/workforce/talent/licenses/{in_production['id']}/accept",
        headers=talent_account.auth(),
    )
    assert_error(wrong_environment, 404, "license_not_found")
    # Another account does not speak for this creator, nor does the buyer.
    for stranger in (create_customer(db), buyer):
        response = client.post(
            f"/api/v1/workforce/talent/licenses/{in_production['id']}/accept",
            headers=stranger.auth("production"),
        )
        assert_error(response, 404, "license_not_found")


def test_sandbox_helpers_answer_sandbox_keys_for_their_own_licenses(
    client: TestClient, buyer: Customer, other_buyer: Customer, creator: str
) -> None:
    production = request_license(client, buyer, creator, environment="production")
    refused = act(client, buyer, production["id"], "accept", environment="production")
    assert_error(refused, 403, "sandbox_only")
    sandbox = request_license(client, buyer, creator)
    assert_error(act(client, other_buyer, sandbox["id"], "accept"), 404, "license_not_found")
    assert act(client, buyer, sandbox["id"], "accept").json()["status"] == "accepted"


def test_a_replayed_request_makes_one_license(
    client: TestClient, buyer: Customer, creator: str
) -> None:
    body = {
        "creator_id": creator,
        "usage_type": "internet",
        "territory": "GB",
        "duration_months": 6,
    }
    headers = {**buyer.auth(), "Idempotency-Key": "license-once"}
    first = client.post(LICENSING, json=body, headers=headers)
    second = client.post(LICENSING, json=body, headers=headers)
    assert first.status_code == second.status_code == 200
    assert first.json() == second.json()
    assert len(client.get(licenses_url(), headers=buyer.auth()).json()["data"]) == 1


def test_licenses_list_newest_first_with_filters(
    client: TestClient, db: Database, buyer: Customer, creator: str
) -> None:
    other = create_talent(db)
    first = request_license(client, buyer, creator)
    second = request_license(client, buyer, other, usage_type="internet")
    act(client, buyer, second["id"], "cancel")
    listed = client.get(licenses_url(), headers=buyer.auth()).json()
    assert [x["id"] for x in listed["data"]] == [second["id"], first["id"]]
    by_creator = client.get(licenses_url() + f"?creator_id={other}", headers=buyer.auth()).json()
    assert [x["id"] for x in by_creator["data"]] == [second["id"]]
    cancelled = client.get(licenses_url() + "?status=cancelled", headers=buyer.auth()).json()
    assert [x["id"] for x in cancelled["data"]] == [second["id"]]
    bad = client.get(licenses_url() + "?status=paid", headers=buyer.auth())
    assert assert_error(bad, 422, "parameter_invalid")["param"] == "status"


def test_a_decline_reason_is_at_most_1000_characters(
    client: TestClient, buyer: Customer, creator: str
) -> None:
    first = request_license(client, buyer, creator)
    url = f"/api/v1/sandbox/workforce/licenses/{first['id']}/decline"
    too_long = client.post(url, json={"reason": "r" * 1001}, headers=buyer.auth())
    assert assert_error(too_long, 422, "parameter_invalid")["param"] == "reason"
    declined = client.post(url, json={"reason": "r" * 1000}, headers=buyer.auth())
    assert declined.status_code == 200, declined.text
    assert declined.json()["decline_reason"] == "r" * 1000
