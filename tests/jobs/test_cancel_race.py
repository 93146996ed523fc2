"""A cancel that races a worker's reservation (PostgreSQL: the two transactions overlap on the
job row; SQLite serializes them). No worker runs in this module: the test plays the worker's
part with the same calls the worker makes, holding its transaction open."""

from __future__ import annotations

import threading
import time
from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import update

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.timeutil import utcnow
from soundstage.credits import service as credits
from soundstage.jobs import repository
from soundstage.jobs import service as jobs
from soundstage.models import Job
from soundstage.models.jobs import JobStatus
from tests.support.api import Answer
from tests.support.credits import wallet_sums
from tests.support.factories import Customer, principal_of
from tests.support.jobs import stored

pytestmark = pytest.mark.services


def test_a_cancel_racing_a_workers_reservation_leaves_nothing_reserved(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    who = principal_of(customer)
    with db.session() as session:
        job_id = jobs.submit(
            session,
            settings,
            who,
            "test.priced",
            stored({"price": 300}),
            credits_needed=0,
            is_async=False,
        ).id
    owner = "race-test:1:abcd"
    with db.session() as session:
        # The worker's claim of this very job (a worker takes the next in the fair order
        # between accounts, which may be another test's job left queued).
        claimed = session.execute(
            update(Job)
            .where(Job.id == job_id, Job.status == JobStatus.QUEUED)
            .values(
                status=JobStatus.PROCESSING,
                attempts=1,
                lease_owner=owner,
                lease_expires_at=utcnow() + timedelta(seconds=60),
            )
        )
        assert claimed.rowcount == 1  # type: ignore[attr-defined]

    answers: list[Answer] = []
    started = threading.Event()

    def cancel() -> None:
        started.set()
        answers.append(client.post(f"/api/v1/jobs/{job_id}/cancel", headers=customer.auth()))

    # The worker's reservation (jobs.worker._reserve), its transaction still open while the
    # cancel comes in; committed half a second later.
    with db.session() as session:
        reservation = credits.reserve(session, who, 300, "test.priced", job_id)
        assert repository.set_reservation(session, job_id, owner, reservation.id, 300)
        canceller = threading.Thread(target=cancel)
        canceller.start()
        started.wait(5)
        time.sleep(0.5)
    canceller.join(30)

    [answer] = answers
    assert answer.status_code == 200, answer.text
    assert answer.json()["status"] == "cancelled"
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (1000, 0)
    sums = wallet_sums(db, customer.account_id, "sandbox")
    assert (sums.get("reserved", 0), sums.get("consumed", 0)) == (0, 0)
