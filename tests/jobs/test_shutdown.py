"""Graceful shutdown of `soundstage worker` on SIGTERM (what systemd and Kubernetes send): no
new job is taken; a job that finishes within `jobs.shutdown_timeout_seconds` completes and the
process exits 0; one that does not is interrupted and put back in the queue at once, run again
by another worker and charged once. Real worker processes, as a deployment runs them."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.models import Job
from tests.support.credits import wallet_sums
from tests.support.factories import Customer, create_customer, principal_of
from tests.support.jobs import submit
from tests.support.processes import (
    REPO_ROOT,
    children_of,
    free_port,
    settings_env,
    wait_for_port,
    wait_until_gone,
)

pytestmark = pytest.mark.services

# Leases far longer than the test: a job re-run promptly was re-queued by its worker, not
# found by the sweeper once its lease ran out.
LONG_LEASES = {"lease_seconds": 120, "requeue_after_seconds": 120}


class Workers:
    """`soundstage worker` processes of one test, stopped (SIGKILL) if still running."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.running: list[subprocess.Popen[bytes]] = []

    def start(self, shutdown_timeout_seconds: float) -> subprocess.Popen[bytes]:
        jobs = self.settings.jobs.model_copy(
            update={**LONG_LEASES, "shutdown_timeout_seconds": shutdown_timeout_seconds}
        )
        env = settings_env(self.settings)
        env["SOUNDSTAGE_JOBS"] = jobs.model_dump_json()
        proc = subprocess.Popen(
            [sys.executable, "-m", "soundstage.cli", "worker", "--processes", "1"],
            env=env,
            cwd=REPO_ROOT,
            start_new_session=True,  # its own group: stop_all takes its children too
        )
        self.running.append(proc)
        return proc

    def stop_all(self) -> None:
        for proc in self.running:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # a worker exited leaves no children
            proc.wait(10)


@pytest.fixture
def workers(settings: Settings) -> Iterator[Workers]:
    started = Workers(settings)
    yield started
    started.stop_all()


def job_row(db: Database, job_id: str) -> Job:
    with db.read_session() as session:
        job = session.get(Job, job_id)
        assert job is not None
        session.expunge(job)
        return job


def wait_until_status(db: Database, job_id: str, status: str, timeout: float) -> Job:
    deadline = time.monotonic() + timeout
    while (job := job_row(db, job_id)).status != status:
        assert time.monotonic() < deadline, f"job {job_id} is {job.status}, not {status}"
        time.sleep(0.05)
    return job


def captures_of(db: Database, job_id: str) -> list[int]:
    from sqlalchemy import select

    from soundstage.models import CreditTransaction

    with db.read_session() as session:
        return list(
            session.scalars(
                select(CreditTransaction.amount).where(
                    CreditTransaction.reference == job_id, CreditTransaction.type == "capture"
                )
            )
        )


def sleep_job(
    db: Database,
    settings: Settings,
    customer: Customer,
    seconds: float,
    credits: int,
    marker: Path | None = None,
) -> str:
    """An asynchronous `test.sleep` job of `seconds` charging `credits` (each run appends its
    pid to `marker`); its id."""
    payload: dict[str, object] = {"seconds": seconds, "credits": credits}
    if marker is not None:
        payload["marker"] = str(marker)
    return submit(
        db, settings, principal_of(customer), "test.sleep", payload, credits=credits, is_async=True
    )


def test_sigterm_lets_a_short_job_finish_then_exits_0(
    settings: Settings, db: Database, workers: Workers, tmp_path: Path
) -> None:
    customer = create_customer(db, credits_each=1000)
    worker = workers.start(shutdown_timeout_seconds=30)
    marker = tmp_path / "runs"
    job_id = sleep_job(db, settings, customer, 2, 40, marker)
    wait_until_status(db, job_id, "processing", timeout=60)
    worker.send_signal(signal.SIGTERM)
    # Inside the grace period: the job ends on this worker, which then exits cleanly.
    assert worker.wait(30) == 0
    job = job_row(db, job_id)
    assert (job.status, job.attempts, job.credits_used) == ("completed", 1, 40)
    assert len(marker.read_text().split()) == 1  # run once
    assert captures_of(db, job_id) == [40]
    sums = wallet_sums(db, customer.account_id, "sandbox")
    assert (sum(sums.values()), sums.get("reserved", 0), sums["consumed"]) == (0, 0, 40)


def test_sigterm_requeues_a_job_past_the_timeout_and_another_worker_runs_it_once(
    settings: Settings, db: Database, workers: Workers, tmp_path: Path
) -> None:
    customer = create_customer(db, credits_each=1000)
    first = workers.start(shutdown_timeout_seconds=0.5)
    marker = tmp_path / "runs"
    job_id = sleep_job(db, settings, customer, 4, 70, marker)
    wait_until_status(db, job_id, "processing", timeout=60)
    stopped_at = time.monotonic()
    first.send_signal(signal.SIGTERM)
    # Past the grace period the job is interrupted, handed back, and the worker exits 0
    # well before the job would have ended.
    assert first.wait(30) == 0
    assert time.monotonic() - stopped_at < 4
    job = job_row(db, job_id)
    assert (job.status, job.lease_owner, job.attempts) == ("queued", None, 0)
    assert job.credits_used is None
    assert captures_of(db, job_id) == []

    # Another worker takes it from the queue at once (its lease would run for 120 s).
    workers.start(shutdown_timeout_seconds=30)
    job = wait_until_status(db, job_id, "completed", timeout=60)
    assert time.monotonic() - stopped_at < 60
    assert (job.attempts, job.credits_used) == (1, 70)
    first_pid, second_pid = marker.read_text().split()
    assert first_pid != second_pid  # two runs, on two workers
    assert captures_of(db, job_id) == [70]
    sums = wallet_sums(db, customer.account_id, "sandbox")
    assert (sum(sums.values()), sums.get("reserved", 0), sums["consumed"]) == (0, 0, 70)


def test_sigterm_to_serve_lets_its_embedded_worker_finish_the_job(
    settings: Settings, db: Database
) -> None:
    customer = create_customer(db, credits_each=1000)
    port = free_port()
    env = settings_env(settings)
    env["SOUNDSTAGE_JOBS"] = settings.jobs.model_copy(update=LONG_LEASES).model_dump_json()
    server = subprocess.Popen(
        [sys.executable, "-m", "soundstage.cli", "serve", "--port", str(port)],
        env=env,
        cwd=REPO_ROOT,
    )
    try:
        wait_for_port(port, timeout=60)
        job_id = sleep_job(db, settings, customer, 2, 30)
        wait_until_status(db, job_id, "processing", timeout=60)
        embedded = children_of(server.pid)
        server.send_signal(signal.SIGTERM)  # what a process manager sends
        server.wait(60)
    finally:
        if server.poll() is None:
            server.kill()
    job = wait_until_status(db, job_id, "completed", timeout=30)
    assert (job.attempts, job.credits_used) == (1, 30)
    assert captures_of(db, job_id) == [30]
    wait_until_gone(embedded, what="the embedded worker")


def test_a_client_waiting_on_serve_does_not_keep_it_from_stopping(
    settings: Settings, db: Database, demo_catalog: object
) -> None:
    """A synchronous request that would wait 900 s for a job nobody runs (no worker) is cut
    once the shutdown timeout has passed: serve exits rather than wait for the client."""
    import httpx

    customer = create_customer(db, credits_each=1000)
    port = free_port()
    env = settings_env(settings)
    env["SOUNDSTAGE_JOBS"] = settings.jobs.model_copy(
        update={"shutdown_timeout_seconds": 1.0}
    ).model_dump_json()
    server = subprocess.Popen(
        [sys.executable, "-m", "soundstage.cli", "serve", "--no-worker", "--port", str(port)],
        env=env,
        cwd=REPO_ROOT,
    )
    try:
        wait_for_port(port, timeout=60)
        with ThreadPoolExecutor(1) as pool:
            waiting = pool.submit(
                httpx.post,
                f"http://127.0.0.1:{port}/api/v1/speech/tts",
                json={"text": "Nobody will read this.", "voice_id": "voice_joe"},
                headers=customer.auth(),
                timeout=60,
            )
            time.sleep(1.0)
            assert not waiting.done(), waiting.result()  # the request waits on its job
            stopped_at = time.monotonic()
            server.send_signal(signal.SIGTERM)
            assert server.wait(30) == 0
            assert time.monotonic() - stopped_at < 10
            with contextlib.suppress(httpx.HTTPError):
                waiting.result()
    finally:
        if server.poll() is None:
            server.kill()
