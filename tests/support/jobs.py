"""Jobs submitted through the service and followed over HTTP."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from pydantic import ConfigDict

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.jobs import service as jobs
from soundstage.jobs.handlers import JobContext
from soundstage.jobs.payloads import JobRequest
from tests.support.factories import Customer


class StoredRequest(JobRequest):
    """A request stored exactly as a test writes it (a payload its kind's model may refuse)."""

    model_config = ConfigDict(extra="allow", frozen=True)


def stored(request: dict[str, Any]) -> JobRequest:
    """`request` as the JSON a job stores, key for key."""
    return StoredRequest.model_validate(request)


def submit(
    db: Database,
    settings: Settings,
    who: Principal,
    kind: str,
    request: dict[str, Any],
    credits: int = 0,
    *,
    is_async: bool = False,
) -> str:
    """A job of `kind` submitted through the jobs service; its id."""
    with db.session() as session:
        job = jobs.submit(
            session, settings, who, kind, stored(request), credits_needed=credits, is_async=is_async
        )
        return job.id


def wait_for(
    client: TestClient, customer: Customer, job_id: str, *statuses: str, timeout: float = 30
) -> dict[str, Any]:
    """The job as `GET /api/v1/jobs/{id}` shows it once its status is one of `statuses`."""
    deadline = time.monotonic() + timeout
    while True:
        body = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth()).json()
        if body["status"] in statuses:
            return body  # type: ignore[no-any-return]
        assert time.monotonic() < deadline, body
        time.sleep(0.05)


def wait_for_job(
    client: TestClient, customer: Customer, job_id: str, timeout: float = 120
) -> dict[str, Any]:
    """The job once it has finished (completed, failed or cancelled)."""
    deadline = time.monotonic() + timeout
    while True:
        job: dict[str, Any] = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth()).json()
        if job["status"] in ("completed", "failed", "cancelled"):
            return job
        assert time.monotonic() < deadline, job
        time.sleep(0.1)


def progress_context(
    reports: list[tuple[float, str | None]], tmp_path: Path
) -> JobContext[JobRequest]:
    """A job context with no database whose progress reports land in `reports`."""
    return JobContext(
        job_id="job_progress",
        kind="test",
        request=JobRequest(),
        principal=Principal("acct_test", "sandbox", ""),
        settings=Settings(data_dir=tmp_path),
        db=None,  # type: ignore[arg-type]  # progress never touches the database
        workdir=tmp_path,
        report=lambda fraction, stage: reports.append((fraction, stage)),
    )
