"""Jobs on the real queue with real worker processes: lifecycle, polling, cancel, credits,
a SIGKILLed worker, synchronous waits with their time limit."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi import Request
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.deps import PrincipalDep
from soundstage.jobs import service as jobs
from tests.support.api import assert_error
from tests.support.credits import wallet_sums
from tests.support.factories import Customer, principal_of
from tests.support.jobs import stored, submit, wait_for
from tests.support.servers import Receiver

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker")]


def test_a_job_runs_and_is_charged_on_completion(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    job_id = submit(
        db, settings, principal_of(customer), "test.echo", {"value": "hi", "credits": 40}, 50
    )
    # The worker may finish before the balance is read: a balance read while the job is
    # still unfinished (its status read after it says so) must show the credits reserved.
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    status = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth()).json()["status"]
    if status != "completed":
        assert (balance["balance"], balance["reserved"]) == (950, 50)

    job = wait_for(client, customer, job_id, "completed")
    assert job["result"] == {"echo": "hi"}
    assert (job["progress"], job["credits_reserved"], job["credits_used"]) == (1.0, 50, 40)
    assert job["started_at"] is not None
    assert job["completed_at"] is not None
    assert job["attempts"] == 1
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (960, 0)


def test_failed_jobs_carry_the_error_and_cost_nothing(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    refused = submit(db, settings, principal_of(customer), "test.invalid", {}, 100)
    crashed = submit(db, settings, principal_of(customer), "test.crash", {}, 100)
    refused_job = wait_for(client, customer, refused, "failed")
    assert refused_job["error"] == {
        "type": "invalid_request_error",
        "code": "engine_refused",
        "message": "value: not acceptable to the engine.",
        "param": "value",
    }
    assert wait_for(client, customer, crashed, "failed")["error"]["code"] == "internal_error"
    assert client.get("/api/v1/credits", headers=customer.auth()).json()["balance"] == 1000
    assert wallet_sums(db, customer.account_id, "sandbox").get("consumed", 0) == 0


def test_progress_is_visible_while_running(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    job_id = submit(db, settings, principal_of(customer), "test.sleep", {"seconds": 2})
    running = wait_for(client, customer, job_id, "processing")
    deadline = time.monotonic() + 10
    while running["progress"] == 0 and time.monotonic() < deadline:
        time.sleep(0.1)
        running = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth()).json()
    assert 0 < running["progress"] < 1
    assert running["stage"] == "sleeping"
    assert wait_for(client, customer, job_id, "completed")["progress"] == 1.0


def test_cancel_releases_credits_and_stops_the_job(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    job_id = submit(
        db, settings, principal_of(customer), "test.sleep", {"seconds": 5, "credits": 300}, 300
    )
    wait_for(client, customer, job_id, "processing")
    response = client.post(f"/api/v1/jobs/{job_id}/cancel", headers=customer.auth())
    assert response.status_code == 200
    assert response.json()["status"] == "cancelled"
    assert response.json()["credits_used"] == 0
    time.sleep(1)  # the worker notices on its next heartbeat and stops
    job = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth()).json()
    assert job["status"] == "cancelled"
    assert job["progress"] < 1
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (1000, 0)
    again = client.post(f"/api/v1/jobs/{job_id}/cancel", headers=customer.auth())
    assert again.status_code == 200


def test_a_finished_job_cannot_be_cancelled(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    job_id = submit(db, settings, principal_of(customer), "test.echo", {"value": 1}, 0)
    wait_for(client, customer, job_id, "completed")
    assert_error(
        client.post(f"/api/v1/jobs/{job_id}/cancel", headers=customer.auth()),
        409,
        "job_not_cancellable",
    )


def test_insufficient_credits_is_402_and_no_job(
    db: Database, settings: Settings, customer: Customer, client: TestClient
) -> None:
    from soundstage.core.errors import InsufficientCredits

    with pytest.raises(InsufficientCredits):
        submit(db, settings, principal_of(customer), "test.echo", {"value": 1}, 1001)
    listed = client.get("/api/v1/jobs", headers=customer.auth()).json()
    assert listed["data"] == []


def test_listing_filters_and_isolation(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    other_customer: Customer,
) -> None:
    done = submit(db, settings, principal_of(customer), "test.echo", {"value": 1})
    failed = submit(db, settings, principal_of(customer), "test.invalid", {})
    wait_for(client, customer, done, "completed")
    wait_for(client, customer, failed, "failed")
    every = client.get("/api/v1/jobs", headers=customer.auth()).json()
    assert [j["job_id"] for j in every["data"]] == [failed, done]
    completed = client.get("/api/v1/jobs?status=completed", headers=customer.auth()).json()
    assert [j["job_id"] for j in completed["data"]] == [done]
    by_kind = client.get("/api/v1/jobs?kind=test.invalid", headers=customer.auth()).json()
    assert [j["job_id"] for j in by_kind["data"]] == [failed]
    assert_error(
        client.get("/api/v1/jobs?status=lost", headers=customer.auth()), 422, "parameter_invalid"
    )

    assert_error(
        client.get(f"/api/v1/jobs/{done}", headers=other_customer.auth()), 404, "job_not_found"
    )
    assert_error(
        client.get(f"/api/v1/jobs/{done}", headers=customer.auth("production")),
        404,
        "job_not_found",
    )
    assert_error(
        client.post(f"/api/v1/jobs/{done}/cancel", headers=other_customer.auth()),
        404,
        "job_not_found",
    )
    assert client.get("/api/v1/jobs", headers=other_customer.auth()).json()["data"] == []


def test_media_outputs_are_signed_urls(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    job_id = submit(db, settings, principal_of(customer), "test.tone", {}, 10)
    job = wait_for(client, customer, job_id, "completed")
    url = job["result"]["output_url"]
    assert url.startswith(settings.media_base_url + "/med_")
    assert "?expires=" in url
    assert "&signature=" in url
    audio = client.get(url.removeprefix(settings.public_base_url))
    assert audio.status_code == 200
    assert audio.headers["content-type"] == "audio/wav"
    assert audio.content[:4] == b"RIFF"
    assert len(audio.content) == 44 + 32000


def test_a_sigkilled_worker_job_is_rerun_and_charged_once(
    client: TestClient,
    db: Database,
    settings: Settings,
    customer: Customer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    receiver = Receiver()
    receiver.statuses = [500]  # the first delivery fails and is retried by the worker
    monkeypatch.setattr(settings, "fetch_allow_hosts", ["127.0.0.1"])
    endpoint = client.post(
        "/api/v1/webhooks/endpoints",
        headers=customer.auth(),
        json={"url": receiver.url, "enabled_events": ["job.completed"]},
    ).json()
    receiver.secret = endpoint["secret"]
    marker = tmp_path / "attempts"
    job_id = submit(
        db,
        settings,
        principal_of(customer),
        "test.sleep",
        {"seconds": 1.5, "marker": str(marker), "credits": 200},
        200,
        is_async=True,
    )
    deadline = time.monotonic() + 20
    while not marker.exists() or not marker.read_text().strip():
        assert time.monotonic() < deadline
        time.sleep(0.02)
    first_pid = int(marker.read_text().split()[0])
    os.kill(first_pid, signal.SIGKILL)

    job = wait_for(client, customer, job_id, "completed", timeout=60)
    pids = [int(p) for p in marker.read_text().split()]
    assert len(pids) == 2
    assert pids[1] != first_pid
    assert job["attempts"] == 2
    assert job["credits_used"] == 200
    ledger = client.get("/api/v1/credits/ledger?limit=100", headers=customer.auth()).json()["data"]
    captures = [t for t in ledger if t["type"] == "capture" and t["reference"] == job_id]
    assert len(captures) == 1
    assert client.get("/api/v1/credits", headers=customer.auth()).json()["balance"] == 800

    events = client.get("/api/v1/events?type=job.completed", headers=customer.auth()).json()
    [event] = [e for e in events["data"] if e["data"]["job_id"] == job_id]
    assert event["data"]["status"] == "completed"
    deadline = time.monotonic() + 30
    while len(receiver.requests) < 2:
        assert time.monotonic() < deadline, receiver.requests
        time.sleep(0.05)
    receiver.close()
    assert [r.error for r in receiver.requests] == [None, None]  # signatures verify
    assert {r.headers["webhook-id"] for r in receiver.requests} == {event["id"]}
    payload = receiver.requests[-1].payload
    assert (payload["type"], payload["data"]["job_id"]) == ("job.completed", job_id)


def test_sync_wait_returns_the_completed_job(
    db: Database, settings: Settings, customer: Customer
) -> None:
    job = asyncio.run(
        jobs.submit_and_wait(
            db,
            settings,
            principal_of(customer),
            "test.echo",
            stored({"value": 7, "credits": 5}),
            credits_needed=5,
        )
    )
    assert (job.status, job.result, job.credits_used) == ("completed", {"echo": 7}, 5)


def test_worker_command_stops_cleanly(settings: Settings) -> None:
    from tests.support.processes import settings_env

    env = {**settings_env(settings), "SOUNDSTAGE_LOG_LEVEL": "info"}
    proc = subprocess.Popen(
        [sys.executable, "-m", "soundstage.cli", "worker", "--processes", "1"],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stderr is not None
    for line in proc.stderr:  # wait until the consumer runs, however slow the start
        if "webhook delivery loop started" in line:  # logged once the processes are forked
            break
    time.sleep(1)
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    proc.stderr.read()
    assert proc.wait(20) == 0


def test_a_failed_sync_job_answers_the_jobs_error(settings: Settings, customer: Customer) -> None:
    app = create_app(settings)

    @app.post("/api/v1/probe-invalid")
    async def probe(request: Request, principal: PrincipalDep) -> dict[str, str]:
        db = request.app.state.db
        job = await jobs.submit_and_wait(
            db, settings, principal, "test.invalid", stored({}), credits_needed=9
        )
        jobs.raise_for_failure(db, job)
        return {"status": job.status}

    with TestClient(app) as client:
        response = client.post("/api/v1/probe-invalid", headers=customer.auth())
        balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    error = assert_error(response, 422, "engine_refused")
    assert error["param"] == "value"
    assert (balance["balance"], balance["reserved"]) == (1000, 0)


def test_a_job_priced_by_its_input_reserves_while_running(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    """Jobs priced by what they measure (minutes of audio) reserve once they know the price:
    charged on success, 402 when the balance is short, released when cancelled."""
    who = principal_of(customer)
    done = wait_for(
        client, customer, submit(db, settings, who, "test.priced", {"price": 70}), "completed"
    )
    assert (done["credits_reserved"], done["credits_used"]) == (70, 70)
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (930, 0)

    short = wait_for(
        client, customer, submit(db, settings, who, "test.priced", {"price": 5000}), "failed"
    )
    assert short["error"]["code"] == "insufficient_credits"
    assert short["error"]["type"] == "billing_error"

    running = submit(db, settings, who, "test.priced", {"price": 100, "seconds": 5})
    deadline = time.monotonic() + 10
    while client.get("/api/v1/credits", headers=customer.auth()).json()["reserved"] != 100:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert client.post(f"/api/v1/jobs/{running}/cancel", headers=customer.auth()).status_code == 200
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (930, 0)
    assert wallet_sums(db, customer.account_id, "sandbox")["consumed"] == 70
    assert wallet_sums(db, customer.account_id, "sandbox")["reserved"] == 0
