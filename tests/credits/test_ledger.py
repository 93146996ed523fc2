"""Credits: balanced double-entry ledger, no overdraft under concurrency, charge only on success."""

from __future__ import annotations

import threading

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from soundstage.core.db import Database
from soundstage.core.errors import InsufficientCredits
from soundstage.credits import service as credits
from soundstage.models import CreditBalance, CreditReservation
from tests.support.credits import wallet_sums
from tests.support.factories import Customer, create_customer, principal_of

pytestmark = pytest.mark.services


def test_every_transaction_sums_to_zero_and_matches_the_balance(
    client: TestClient, db: Database, customer: Customer
) -> None:
    who = principal_of(customer)
    with db.session() as session:
        kept = credits.reserve(session, who, 300, "tts", "job_a")
        dropped = credits.reserve(session, who, 200, "tts", "job_b")
    with db.session() as session:
        credits.capture(session, kept.id, 120)
        credits.release(session, dropped.id)

    ledger = client.get("/api/v1/credits/ledger?limit=100", headers=customer.auth()).json()
    types = [t["type"] for t in ledger["data"]]
    assert types == ["release", "capture", "reserve", "reserve", "grant"]
    for transaction in ledger["data"]:
        assert sum(e["amount"] for e in transaction["entries"]) == 0, transaction

    sums = wallet_sums(db, customer.account_id, "sandbox")
    assert sums == {"issued": -1000, "available": 880, "reserved": 0, "consumed": 120}
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (880, 0)


def test_reserved_credits_show_until_settled(
    client: TestClient, db: Database, customer: Customer
) -> None:
    with db.session() as session:
        held = credits.reserve(session, principal_of(customer), 250, "stt", "job_x")
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (750, 250)
    with db.session() as session:
        credits.release(session, held.id)
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (1000, 0)


def test_twenty_concurrent_reservations_never_overdraw(db: Database) -> None:
    customer = create_customer(db, credits_each=1000)
    who = principal_of(customer)
    barrier = threading.Barrier(20)
    outcomes: list[str] = []
    lock = threading.Lock()

    def attempt() -> None:
        barrier.wait()
        try:
            with db.session() as session:
                credits.reserve(session, who, 100, "tts")
            result = "ok"
        except InsufficientCredits:
            result = "402"
        with lock:
            outcomes.append(result)

    threads = [threading.Thread(target=attempt) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert sorted(outcomes) == ["402"] * 10 + ["ok"] * 10
    with db.session() as session:
        balance = session.get(CreditBalance, (customer.account_id, "sandbox"))
        held = session.scalar(
            select(func.count()).where(CreditReservation.account_id == customer.account_id)
        )
    assert balance is not None
    assert (balance.available, balance.reserved, held) == (0, 1000, 10)
    assert wallet_sums(db, customer.account_id, "sandbox")["available"] == 0


def test_insufficient_credits_is_402_before_any_work(db: Database, customer: Customer) -> None:
    with db.session() as session, pytest.raises(InsufficientCredits) as raised:
        credits.reserve(session, principal_of(customer), 1001, "tts")
    assert raised.value.status == 402
    assert raised.value.code == "insufficient_credits"
    assert wallet_sums(db, customer.account_id, "sandbox") == {"issued": -1000, "available": 1000}


def test_a_failed_operation_leaves_the_balance_unchanged(
    client: TestClient, db: Database, customer: Customer
) -> None:
    before = client.get("/api/v1/credits", headers=customer.auth()).json()
    with db.session() as session:
        reservation = credits.reserve(session, principal_of(customer), 400, "tts", "job_fail")
    # the work fails: its reservation is released, nothing is captured
    with db.session() as session:
        credits.release(session, reservation.id)
        credits.release(session, reservation.id)  # a redelivered failure changes nothing
    after = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (after["balance"], after["reserved"]) == (before["balance"], before["reserved"])
    assert wallet_sums(db, customer.account_id, "sandbox").get("consumed", 0) == 0


def test_capture_happens_once(db: Database, customer: Customer) -> None:
    with db.session() as session:
        reservation = credits.reserve(session, principal_of(customer), 500, "stt", "job_twice")
    for _ in range(3):  # a job redelivered three times
        with db.session() as session:
            credits.capture(session, reservation.id, 500)
    with db.session() as session:
        credits.release(session, reservation.id)  # too late: already captured
    sums = wallet_sums(db, customer.account_id, "sandbox")
    assert sums["consumed"] == 500
    assert sums["available"] == 500


def test_environments_have_separate_balances(
    client: TestClient, db: Database, customer: Customer
) -> None:
    with db.session() as session:
        credits.reserve(session, principal_of(customer, "production"), 1000, "tts")
    assert client.get("/api/v1/credits", headers=customer.auth("production")).json()["balance"] == 0
    assert client.get("/api/v1/credits", headers=customer.auth("sandbox")).json()["balance"] == 1000
