"""`jobs.run`, the one way a synchronous endpoint runs its job, and `CompletedJob.of`, the
answer built from it: each end of the job (completed, failed, cancelled, too slow) as the
endpoint's caller sees it, on the real queue with a real worker."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError
from soundstage.jobs import service as jobs
from soundstage.jobs.errors import JobCancelledError, JobTimeout
from soundstage.jobs.schemas import CompletedJob, JobOut
from tests.support.factories import Customer, principal_of
from tests.support.jobs import stored

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker")]


class EchoAnswer(CompletedJob):
    """An operation's answer: the shared fields, then its job's result."""

    echo: int


def _balance(client: TestClient, customer: Customer) -> tuple[int, int]:
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    return balance["balance"], balance["reserved"]


def test_a_completed_job_is_answered_with_its_result(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    job = asyncio.run(
        jobs.run(
            db,
            settings,
            principal_of(customer),
            "test.echo",
            stored({"value": 7, "credits": 5}),
            credits_needed=5,
        )
    )
    assert EchoAnswer.of(job).model_dump() == {
        "object": "job",
        "job_id": job.job_id,
        "status": "completed",
        "credits_used": 5,
        "echo": 7,
    }
    assert EchoAnswer.of(job, echo=8).echo == 8  # a field given replaces the result's
    assert _balance(client, customer) == (995, 0)


def test_a_failed_job_raises_the_error_a_direct_call_would_answer(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    with pytest.raises(AppError) as raised:
        asyncio.run(
            jobs.run(
                db, settings, principal_of(customer), "test.invalid", stored({}), credits_needed=9
            )
        )
    error = raised.value
    assert (error.status, error.type, error.code, error.param) == (
        422,
        "invalid_request_error",
        "engine_refused",
        "value",
    )
    assert _balance(client, customer) == (1000, 0)


@pytest.mark.parametrize("wait", [jobs.run, jobs.submit_and_wait], ids=["run", "submit_and_wait"])
def test_a_job_past_the_limit_is_504_cancelled_and_free(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    wait: Callable[..., Coroutine[Any, Any, JobOut]],
) -> None:
    impatient = settings.model_copy(
        update={"jobs": settings.jobs.model_copy(update={"sync_timeout_seconds": 0.3})}
    )
    with pytest.raises(JobTimeout) as raised:
        asyncio.run(
            wait(
                db,
                impatient,
                principal_of(customer),
                "test.sleep",
                stored({"seconds": 3, "credits": 50}),
                credits_needed=50,
            )
        )
    assert (raised.value.status, raised.value.code) == (504, "job_timeout")
    job_id = raised.value.message.split()[1]
    assert job_id.startswith("job_")
    job = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth()).json()
    assert (job["status"], job["credits_used"]) == ("cancelled", 0)
    assert _balance(client, customer) == (1000, 0)


def test_a_job_cancelled_while_waited_for_is_409(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    outcome: list[JobOut | AppError] = []

    def wait() -> None:
        try:
            outcome.append(
                asyncio.run(
                    jobs.run(
                        db,
                        settings,
                        principal_of(customer),
                        "test.sleep",
                        stored({"seconds": 10, "credits": 30}),
                        credits_needed=30,
                    )
                )
            )
        except AppError as error:
            outcome.append(error)

    waiter = threading.Thread(target=wait)
    waiter.start()
    job_id = _first_job(client, customer, "test.sleep")
    cancelled = client.post(f"/api/v1/jobs/{job_id}/cancel", headers=customer.auth())
    assert cancelled.json()["status"] == "cancelled"
    waiter.join(30)
    [error] = outcome
    assert isinstance(error, JobCancelledError)
    assert (error.status, error.code) == (409, "job_cancelled")
    assert _balance(client, customer) == (1000, 0)


def _first_job(client: TestClient, customer: Customer, kind: str) -> str:
    """The id of the caller's first job of `kind`, once it has been submitted."""
    deadline = time.monotonic() + 30
    while True:
        listed = client.get(f"/api/v1/jobs?kind={kind}", headers=customer.auth()).json()
        if listed["data"]:
            return str(listed["data"][0]["job_id"])
        assert time.monotonic() < deadline
        time.sleep(0.05)
