"""One account never slows another: real worker processes take turns between accounts (the
fewest running first, then the one served longest ago) and run at most
`jobs.max_running_per_account` jobs of one account at once; a job left waiting at the cap
runs once a running job of its account ends."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from itertools import pairwise
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from soundstage.config import RunningJobCaps, Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.jobs import live
from soundstage.jobs import service as jobs
from soundstage.models import Job
from soundstage.models.jobs import ACTIVE_STATUSES
from tests.support.factories import Customer, create_customer, principal_of
from tests.support.jobs import submit, wait_for
from tests.support.processes import run_worker

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("capped_worker")]

# Sandbox work of an account runs one job at a time here; production keeps its default cap
# (8), above the worker's 2 processes, so that the production tests see the fair order alone.
CAPS = RunningJobCaps(sandbox=1)
# A job left waiting is woken only by the end of its account's running job: the sweeper's
# wake-up for queued jobs nobody took comes far too late to be what ran it.
NO_SWEEPER_HELP = 300.0


@pytest.fixture(scope="module")
def capped_worker(
    settings: Settings, db: Database, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[subprocess.Popen[bytes]]:
    """`soundstage worker` with 2 processes, the sandbox cap 1, no prompt sweeper help; both
    processes have run a job (the first job of a process imports the task modules)."""
    worker_jobs = settings.jobs.model_copy(
        update={"max_running_per_account": CAPS, "requeue_after_seconds": NO_SWEEPER_HELP}
    )
    processes = run_worker(settings, SOUNDSTAGE_JOBS=worker_jobs.model_dump_json())
    worker = next(processes)
    marker = tmp_path_factory.mktemp("warm") / "pids"
    for _ in range(5):
        warm_up = [
            submit(
                db,
                settings,
                principal_of(create_customer(db)),
                "test.sleep",
                {"seconds": 0.5, "marker": str(marker)},
            )
            for _ in range(2)
        ]
        for job_id in warm_up:
            wait_for_status(db, settings, job_id, "completed", timeout=120)
        if len(set(marker.read_text().split())) == 2:
            break
    yield worker
    next(processes, None)


def wait_for_status(
    db: Database, settings: Settings, job_id: str, status: str, timeout: float
) -> None:
    deadline = time.monotonic() + timeout
    while jobs.read(db, settings, job_id).status != status:
        assert time.monotonic() < deadline, f"job {job_id} never {status}"
        time.sleep(0.05)


def wait_until_idle(db: Database, timeout: float = 60) -> None:
    """Until no job of any test is queued or running: what is measured runs on idle workers."""
    deadline = time.monotonic() + timeout
    while True:
        with db.read_session() as session:
            active = session.scalar(
                select(func.count()).select_from(Job).where(Job.status.in_(ACTIVE_STATUSES))
            )
        if not active:
            return
        assert time.monotonic() < deadline, f"{active} jobs of other tests still active"
        time.sleep(0.1)


def latency(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    seconds: float,
    timeout: float,
) -> float:
    """Seconds from submitting a job of `seconds` (production) to seeing it completed."""
    began = time.monotonic()
    job_id = submit(
        db, settings, principal_of(customer, "production"), "test.sleep", {"seconds": seconds}
    )
    while True:
        job = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth("production")).json()
        took = time.monotonic() - began
        if job["status"] == "completed":
            return took
        assert took < timeout, f"{job['status']} after {took:.1f} s"
        time.sleep(0.02)


def cancel_all(db: Database, settings: Settings, job_ids: list[str]) -> None:
    for job_id in job_ids:
        jobs.cancel_if_active(db, settings, job_id)


def spans(path: Path) -> list[tuple[float, float]]:
    return sorted(
        (float(began), float(ended))
        for began, ended in (line.split() for line in path.read_text().splitlines())
    )


def test_one_accounts_burst_does_not_delay_another_accounts_job(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    other_customer: Customer,
) -> None:
    """Account A submits 50 jobs, account B one job half a second later: B's job is the
    next to start once a worker is free, so its latency stays within 1.5 times its idle
    baseline, plus one job's length (both workers may have just started one of A's jobs).
    In the order of arrival it would wait for about 48 of A's jobs (about 19 s)."""
    seconds = 0.8
    wait_until_idle(db)
    baseline = latency(client, db, settings, other_customer, seconds, timeout=30)
    bound = 1.5 * baseline + seconds

    burst_of: Principal = principal_of(customer, "production")
    burst = [submit(db, settings, burst_of, "test.sleep", {"seconds": seconds}) for _ in range(50)]
    try:
        time.sleep(0.5)
        loaded = latency(client, db, settings, other_customer, seconds, timeout=bound + 5)
    finally:
        cancel_all(db, settings, burst)
    assert loaded <= bound, f"{loaded:.2f} s against an idle baseline of {baseline:.2f} s"


def test_an_account_never_runs_more_than_its_cap_and_others_use_the_free_workers(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    other_customer: Customer,
    tmp_path: Path,
) -> None:
    """Sandbox cap 1 on 2 worker processes: A's four jobs run one at a time (through the
    API, never two of them processing; by their own clocks, never two running), every one
    of them runs, and B's job, submitted after them, runs on the other worker meanwhile."""
    seconds = 0.5
    a_spans, b_spans = tmp_path / "a", tmp_path / "b"
    wait_until_idle(db)
    queued = [
        submit(
            db,
            settings,
            principal_of(customer),
            "test.sleep",
            {"seconds": seconds, "spans": str(a_spans)},
        )
        for _ in range(4)
    ]
    other = submit(
        db,
        settings,
        principal_of(other_customer),
        "test.sleep",
        {"seconds": seconds, "spans": str(b_spans)},
    )

    most_processing = 0
    deadline = time.monotonic() + 30
    while True:
        listed = client.get("/api/v1/jobs?limit=100", headers=customer.auth()).json()["data"]
        states = [job["status"] for job in listed if job["job_id"] in queued]
        most_processing = max(most_processing, states.count("processing"))
        if states.count("completed") == len(queued):
            break
        assert time.monotonic() < deadline, states
        time.sleep(0.02)
    wait_for(client, other_customer, other, "completed")

    assert most_processing == 1
    ran = spans(a_spans)
    assert len(ran) == len(queued)
    assert all(ended <= began for (_, ended), (began, _) in pairwise(ran))
    [(b_began, _)] = spans(b_spans)
    assert b_began < ran[-1][0]  # B did not wait for A's queue


def test_a_job_waiting_at_its_accounts_cap_runs_when_the_running_one_ends(
    client: TestClient, db: Database, settings: Settings, customer: Customer, tmp_path: Path
) -> None:
    """A's second job arrives while its first runs at the cap: its message wakes the idle
    worker, which may not start it and takes nothing else. Nothing else happens (no other
    job, no sweeper for minutes): the worker of the first job, once it ends, takes it."""
    a_spans = tmp_path / "a"
    wait_until_idle(db)
    who = principal_of(customer)
    first = submit(db, settings, who, "test.sleep", {"seconds": 1.5, "spans": str(a_spans)})
    wait_for(client, customer, first, "processing")
    second = submit(db, settings, who, "test.sleep", {"seconds": 0.1, "spans": str(a_spans)})
    time.sleep(0.5)
    assert client.get(f"/api/v1/jobs/{second}", headers=customer.auth()).json()["status"] == (
        "queued"
    )

    wait_for(client, customer, second, "completed", timeout=30)
    (_, first_ended), (second_began, _) = spans(a_spans)
    assert first_ended <= second_began


def test_a_live_job_counts_for_no_cap(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    """A realtime session's job (run by its caller, not by a worker) is no queued work: at
    the sandbox cap of 1, the account's job runs while its session's job is open."""
    wait_until_idle(db)
    who = principal_of(customer)
    owner = "api-test:1:live"
    with db.session() as session:
        session_job = live.start(
            session,
            settings,
            who,
            "shout_realtime",
            {},
            credits_needed=0,
            owner=owner,
            lease_seconds=60,
        )
    try:
        queued = submit(db, settings, who, "test.sleep", {"seconds": 0.1})
        wait_for(client, customer, queued, "completed", timeout=30)
    finally:
        with db.session() as session:
            live.finish(session, settings, session_job, owner, credits_used=0, result={})
