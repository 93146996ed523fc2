"""Structured logs (`log_format=json`): every line `soundstage serve` and its embedded worker
write is one JSON object; a request's lines carry its request id (the `Request-Id` header),
a job's lines its job id. Text stays the default, with the same ids appended."""

from __future__ import annotations

import json
import logging
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest

from soundstage.config import Settings
from soundstage.core import logs
from soundstage.core.db import Database
from tests.support.factories import create_customer, principal_of
from tests.support.jobs import submit
from tests.support.processes import REPO_ROOT, free_port, settings_env, wait_for_port

pytestmark = pytest.mark.services


def test_json_logs_carry_the_request_id_and_the_job_id(
    settings: Settings, db: Database, tmp_path: Path
) -> None:
    customer = create_customer(db, credits_each=100)
    port = free_port()
    env = {
        **settings_env(settings),
        "SOUNDSTAGE_LOG_FORMAT": "json",
        "SOUNDSTAGE_LOG_LEVEL": "info",
    }
    log_path = tmp_path / "serve.log"
    with log_path.open("wb") as log_file:
        server = subprocess.Popen(
            [sys.executable, "-m", "soundstage.cli", "serve", "--port", str(port)],
            env=env,
            cwd=REPO_ROOT,
            stdout=log_file,
            stderr=subprocess.STDOUT,
        )
        try:
            wait_for_port(port, timeout=60)
            url = f"http://127.0.0.1:{port}"
            job_id = submit(
                db, settings, principal_of(customer), "test.echo", {"value": "x"}, is_async=True
            )
            deadline = time.monotonic() + 60
            while True:
                response = httpx.get(f"{url}/api/v1/jobs/{job_id}", headers=customer.auth())
                if response.json()["status"] == "completed":
                    break
                assert time.monotonic() < deadline, response.text
                time.sleep(0.1)
            request_id = response.headers["Request-Id"]
        finally:
            server.send_signal(signal.SIGTERM)
            server.wait(60)

    lines = [line for line in log_path.read_text().splitlines() if line.strip()]
    records = [json.loads(line) for line in lines]  # every line is one JSON object
    assert all({"time", "level", "logger", "message", "pid"} <= set(r) for r in records)
    # uvicorn's access line of that request, from the API process.
    by_request = [r for r in records if r.get("request_id") == request_id]
    assert by_request, records
    assert any(f"/api/v1/jobs/{job_id}" in r["message"] for r in by_request)
    # The worker's lines about the job, from another process.
    by_job = [r for r in records if r.get("job_id") == job_id]
    assert by_job, records
    assert any("attempt 1" in r["message"] for r in by_job)
    assert {r["pid"] for r in by_job}.isdisjoint({r["pid"] for r in by_request})


def test_text_lines_name_the_ids_too() -> None:
    record = logging.LogRecord(
        "soundstage.jobs", logging.INFO, __file__, 1, "ran %s", ("it",), None
    )
    with logs.job_context("job_abc"):
        logs.ContextFilter().filter(record)
    text = logging.Formatter(logs.TEXT_FORMAT).format(record)
    assert text.endswith("ran it [job_id=job_abc]")
    assert json.loads(logs.JsonFormatter().format(record))["job_id"] == "job_abc"
    outside = logging.LogRecord("x", logging.INFO, __file__, 1, "plain", (), None)
    logs.ContextFilter().filter(outside)
    entry: dict[str, Any] = json.loads(logs.JsonFormatter().format(outside))
    assert "job_id" not in entry
    assert "request_id" not in entry
