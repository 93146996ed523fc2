"""Prometheus metrics at /metrics: requests by route template and status with latency
histograms, queue depth read from the database, job durations by kind and credits captured,
summed over a machine's processes (prometheus-client's multiprocess mode) when served by
`soundstage serve` and its embedded worker."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from soundstage.app import create_app
from soundstage.config import MetricsSettings, Settings
from soundstage.core import metrics
from soundstage.core.db import Database
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer, principal_of
from tests.support.jobs import submit
from tests.support.processes import REPO_ROOT, free_port, settings_env, wait_for_port

pytestmark = pytest.mark.services

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def samples(text: str) -> Samples:
    """Every sample of an exposition: (name, labels) -> value."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(found: Samples, name: str, **labels: str) -> float:
    return found.get((name, frozenset(labels.items())), 0.0)


def scrape(client: TestClient) -> Samples:
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return samples(response.text)


def test_requests_are_counted_by_route_template_and_status(
    client: TestClient, customer: Customer
) -> None:
    before = scrape(client)
    assert client.get("/api/v1/jobs/job_nope1", headers=customer.auth()).status_code == 404
    assert client.get("/api/v1/jobs/job_nope2", headers=customer.auth()).status_code == 404
    assert client.get("/api/v1/jobs/job_nope3").status_code == 401  # refused before routing
    assert client.get("/api/v1/credits", headers=customer.auth()).status_code == 200
    assert client.get("/no/such/path").status_code == 404
    after = scrape(client)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    jobs_route = {"route": "/api/v1/jobs/{job_id}", "method": "GET"}
    assert moved("soundstage_http_requests_total", **jobs_route, status="404") == 2
    assert moved("soundstage_http_requests_total", **jobs_route, status="401") == 1
    credits_route = {"route": "/api/v1/credits", "method": "GET"}
    assert moved("soundstage_http_requests_total", **credits_route, status="200") == 1
    assert moved("soundstage_http_requests_total", route="unmatched", method="GET", status="404")
    # One series per template: no raw path (with its id) became a label.
    assert not [key for key in after if any("job_nope" in v for _, v in key[1])]
    # Latency histograms, by route.
    assert moved("soundstage_http_request_duration_seconds_count", **jobs_route) == 3
    assert moved("soundstage_http_request_duration_seconds_bucket", **jobs_route, le="+Inf") == 3
    assert moved("soundstage_http_request_duration_seconds_sum", **jobs_route) > 0


def test_queue_depth_is_read_from_the_database_at_scrape_time(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    before = value(scrape(client), "soundstage_jobs_queued", kind="test.sleep")
    # No worker runs in this module: the job waits in the queue.
    job_id = submit(db, settings, principal_of(customer), "test.sleep", {"seconds": 1})
    assert value(scrape(client), "soundstage_jobs_queued", kind="test.sleep") == before + 1
    cancelled = client.post(f"/api/v1/jobs/{job_id}/cancel", headers=customer.auth())
    assert cancelled.status_code == 200, cancelled.text
    assert value(scrape(client), "soundstage_jobs_queued", kind="test.sleep") == before


@pytest.fixture
def restore_recording() -> Iterator[None]:
    yield
    metrics.set_enabled(True)  # create_app with metrics disabled turned it off


def test_metrics_token_and_switch(settings: Settings, restore_recording: None) -> None:
    guarded = settings.model_copy(update={"metrics": MetricsSettings(bearer_token="s3cret")})
    with TestClient(create_app(guarded)) as client:
        assert_error(client.get("/metrics"), 401, "missing_api_key")
        wrong = client.get("/metrics", headers={"Authorization": "Bearer nope"})
        assert_error(wrong, 401, "invalid_api_key")
        right = client.get("/metrics", headers={"Authorization": "Bearer s3cret"})
        assert right.status_code == 200
        assert "soundstage_http_requests_total" in right.text
    off = settings.model_copy(update={"metrics": MetricsSettings(enabled=False)})
    with TestClient(create_app(off)) as client:
        assert_error(client.get("/metrics"), 404, "route_not_found")


@pytest.fixture
def served(settings: Settings, tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """`soundstage serve` with its embedded worker, both writing to one (operator-given)
    PROMETHEUS_MULTIPROC_DIR: (base URL, that directory)."""
    directory = tmp_path / "prometheus"
    directory.mkdir()
    port = free_port()
    env = {**settings_env(settings), "PROMETHEUS_MULTIPROC_DIR": str(directory)}
    server = subprocess.Popen(
        [sys.executable, "-m", "soundstage.cli", "serve", "--port", str(port)],
        env=env,
        cwd=REPO_ROOT,
    )
    try:
        wait_for_port(port, timeout=60)
        yield f"http://127.0.0.1:{port}", directory
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(60)


def test_job_durations_and_credits_captured_come_from_the_worker(
    served: tuple[str, Path], db: Database, settings: Settings
) -> None:
    url, directory = served
    customer = create_customer(db, credits_each=1000)

    def scrape_http() -> Samples:
        response = httpx.get(url + "/metrics", timeout=30)
        assert response.status_code == 200
        return samples(response.text)

    before = scrape_http()
    job_id = submit(
        db,
        settings,
        principal_of(customer),
        "test.sleep",
        {"seconds": 1.0, "credits": 25},
        credits=25,
        is_async=True,
    )
    # Polled once a second: within the sandbox rate limit (100 a minute) however long a loaded
    # machine takes to run it.
    deadline = time.monotonic() + 60
    while True:
        answer = httpx.get(f"{url}/api/v1/jobs/{job_id}", headers=customer.auth())
        assert answer.status_code == 200, answer.text
        if answer.json()["status"] == "completed":
            break
        assert time.monotonic() < deadline, answer.text
        time.sleep(1.0)
    after = scrape_http()

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    done = {"kind": "test.sleep", "outcome": "completed"}
    assert moved("soundstage_job_duration_seconds_count", **done) == 1
    assert moved("soundstage_job_duration_seconds_sum", **done) >= 1.0  # it slept 1 s
    assert moved("soundstage_job_duration_seconds_bucket", **done, le="0.5") == 0
    assert moved("soundstage_job_duration_seconds_bucket", **done, le="5.0") == 1
    assert moved("soundstage_credits_captured_total", operation="test.sleep") == 25
    # The API process's requests are in the same exposition.
    job_route = {"route": "/api/v1/jobs/{job_id}", "method": "GET", "status": "200"}
    assert moved("soundstage_http_requests_total", **job_route) >= 1
    # Written by several processes (API server, job process), summed by the scrape.
    assert len({path.name.rsplit("_", 1)[-1] for path in directory.glob("*.db")}) >= 2


def test_a_worker_machine_serves_its_own_metrics(db: Database, settings: Settings) -> None:
    """A machine that runs only `soundstage worker` (no API): `metrics.worker_port`."""
    customer = create_customer(db, credits_each=100)
    port = free_port()
    env = {
        **settings_env(settings),
        "SOUNDSTAGE_METRICS__WORKER_PORT": str(port),
        "SOUNDSTAGE_METRICS__BEARER_TOKEN": "scrape-me",
    }
    worker = subprocess.Popen(
        [sys.executable, "-m", "soundstage.cli", "worker", "--processes", "1"],
        env=env,
        cwd=REPO_ROOT,
    )
    try:
        wait_for_port(port, timeout=60)
        url = f"http://127.0.0.1:{port}/metrics"
        assert httpx.get(url).status_code == 401
        auth = {"Authorization": "Bearer scrape-me"}
        before = samples(httpx.get(url, headers=auth).text)
        job_id = submit(
            db, settings, principal_of(customer), "test.echo", {"value": 1, "credits": 7}, 7
        )
        done = {"kind": "test.echo", "outcome": "completed"}
        deadline = time.monotonic() + 60
        while True:
            after = samples(httpx.get(url, headers=auth).text)
            count = "soundstage_job_duration_seconds_count"
            if value(after, count, **done) > value(before, count, **done):
                break
            assert time.monotonic() < deadline, f"job {job_id} was not observed"
            time.sleep(0.2)
        captured = value(after, "soundstage_credits_captured_total", operation="test.echo")
        assert (
            captured - value(before, "soundstage_credits_captured_total", operation="test.echo")
            == 7
        )
    finally:
        worker.send_signal(signal.SIGTERM)
        assert worker.wait(60) == 0
