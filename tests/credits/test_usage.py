"""GET /api/v1/credits/usage: credits captured per UTC day and per operation, summed from the
ledger's real captures (made by the credits service and by a real TTS job), for the caller's
account and environment only; `days` bounded 1..90."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.core.timeutil import travel, utcnow
from soundstage.credits import service as credits
from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer, principal_of

pytestmark = pytest.mark.services

USAGE = "/api/v1/credits/usage"


def charge(db: Database, customer: Customer, operation: str, amount: int, **kw: Any) -> None:
    """A reservation of `amount` for `operation`, captured whole (what a job's success does)."""
    environment = kw.get("environment", "sandbox")
    with db.session() as session:
        held = credits.reserve(session, principal_of(customer, environment), amount, operation)
    with db.session() as session:
        credits.capture(session, held.id, amount)


def usage(client: TestClient, customer: Customer, query: str = "", env: str = "sandbox") -> Any:
    response = client.get(f"{USAGE}{query}", headers=customer.auth(env))
    assert response.status_code == 200, response.text
    return response.json()


def by_day(body: dict[str, Any]) -> dict[str, dict[str, int]]:
    """{day: {operation: credits}} of the days with charges."""
    return {
        d["date"]: {o["operation"]: o["credits"] for o in d["operations"]}
        for d in body["days"]
        if d["operations"]
    }


def test_captures_are_summed_per_operation_and_only_captures_count(
    client: TestClient, db: Database, customer: Customer
) -> None:
    charge(db, customer, "tts", 120)
    charge(db, customer, "tts", 30)
    charge(db, customer, "stt", 250)
    with db.session() as session:
        credits.reserve(session, principal_of(customer), 100, "music")  # still held
        dropped = credits.reserve(session, principal_of(customer), 50, "sound")
    with db.session() as session:
        credits.release(session, dropped.id)  # failed work: charged nothing
        partial = credits.reserve(session, principal_of(customer), 400, "isolator")
    with db.session() as session:
        credits.capture(session, partial.id, 150)  # the rest returned

    body = usage(client, customer)
    today = utcnow().date()
    assert (body["object"], body["environment"]) == ("credit_usage", "sandbox")
    assert (body["start_date"], body["end_date"]) == (
        (today - timedelta(days=29)).isoformat(),
        today.isoformat(),
    )
    assert len(body["days"]) == 30
    assert [d["date"] for d in body["days"]] == sorted(d["date"] for d in body["days"])
    assert by_day(body) == {today.isoformat(): {"isolator": 150, "stt": 250, "tts": 150}}
    assert body["days"][-1]["credits"] == body["credits"] == 550
    assert all(d["credits"] == 0 for d in body["days"][:-1])
    # What the ledger's captures say, paged through.
    ledger = client.get("/api/v1/credits/ledger?limit=100", headers=customer.auth()).json()
    captured = sum(t["amount"] for t in ledger["data"] if t["type"] == "capture")
    assert captured == body["credits"]


def test_another_account_and_the_other_environment_are_not_counted(
    client: TestClient, db: Database, customer: Customer
) -> None:
    stranger = create_customer(db, credits_each=1000)
    charge(db, stranger, "tts", 700)
    charge(db, customer, "tts", 40, environment="production")
    charge(db, customer, "tts", 25)
    today = utcnow().date().isoformat()
    assert by_day(usage(client, customer)) == {today: {"tts": 25}}
    production = usage(client, customer, env="production")
    assert (production["environment"], by_day(production)) == ("production", {today: {"tts": 40}})
    assert by_day(usage(client, stranger)) == {today: {"tts": 700}}


def test_a_utc_day_boundary_splits_the_usage(
    client: TestClient, db: Database, customer: Customer
) -> None:
    now = utcnow()
    midnight = datetime.combine(now.date() + timedelta(days=1), time.min, tzinfo=UTC)
    with travel(midnight - timedelta(seconds=30) - now):  # 23:59:30 today
        charge(db, customer, "tts", 11)
    with travel(midnight + timedelta(seconds=30) - now):  # 00:00:30 tomorrow
        charge(db, customer, "tts", 22)
        charge(db, customer, "sound", 150)
        before, after = now.date().isoformat(), midnight.date().isoformat()
        two_days = usage(client, customer, "?days=2")
        assert by_day(two_days) == {before: {"tts": 11}, after: {"sound": 150, "tts": 22}}
        assert [d["credits"] for d in two_days["days"]] == [11, 172]
        one_day = usage(client, customer, "?days=1")
        assert (one_day["start_date"], one_day["end_date"]) == (after, after)
        assert by_day(one_day) == {after: {"sound": 150, "tts": 22}}
        assert one_day["credits"] == 172


def test_days_is_bounded_one_to_ninety(
    client: TestClient, db: Database, customer: Customer
) -> None:
    now = utcnow()
    with travel(-timedelta(days=89)):  # the first day of a 90-day window
        charge(db, customer, "stt", 250)
    with travel(-timedelta(days=90)):  # the day before it
        charge(db, customer, "stt", 500)
    longest = usage(client, customer, "?days=90")
    first = (now.date() - timedelta(days=89)).isoformat()
    assert (len(longest["days"]), longest["start_date"]) == (90, first)
    assert (by_day(longest), longest["credits"]) == ({first: {"stt": 250}}, 250)
    assert len(usage(client, customer, "?days=1")["days"]) == 1
    for outside in ("0", "91", "-1", "1.5", "ten"):
        response = client.get(f"{USAGE}?days={outside}", headers=customer.auth())
        error = assert_error(response, 422, "parameter_invalid")
        assert error["param"] == "days"


@pytest.mark.usefixtures("worker")
def test_a_real_tts_job_is_counted_as_it_was_charged(
    client: TestClient, db: Database, demo_catalog: CatalogCounts
) -> None:
    customer = create_customer(db, credits_each=1000)
    text = "Usage is counted per day."
    spoken = client.post(
        "/api/v1/speech/tts",
        headers=customer.auth(),
        json={"voice_id": "voice_kal", "text": text, "format": "wav"},
    )
    assert spoken.status_code == 200, spoken.text
    assert spoken.json()["credits_used"] == len(text)
    body = usage(client, customer, "?days=7")
    assert by_day(body) == {utcnow().date().isoformat(): {"tts": len(text)}}
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert balance["balance"] == 1000 - body["credits"]
