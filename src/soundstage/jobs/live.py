"""Live jobs: jobs their caller runs itself instead of the queue (a WebSocket session, say),
recorded as processing under the caller's lease from start to end, credits reserved up front
and extended as the work grows, captured once at the end. If the caller's process dies, its
lease runs out and the sweeper hands the job to a worker, which runs the handler its kind
was declared with (`declare`): it fails the job, and nothing is charged for what no process
can vouch for."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.errors import AppError
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.jobs import handlers, repository, service, wiring
from soundstage.jobs.handlers import Handler
from soundstage.jobs.payloads import JobRequest, JobResult
from soundstage.models import Job
from soundstage.models.jobs import JobStatus


def start(
    session: Session,
    settings: Settings,
    principal: Principal,
    kind: str,
    request: dict[str, Any],
    *,
    credits_needed: int,
    owner: str,
    lease_seconds: float,
) -> Job:
    """Record a job already running under `owner`'s lease and reserve `credits_needed`
    (402 before anything runs)."""
    now = utcnow()
    return service.record(
        session,
        settings,
        principal,
        kind,
        request,
        credits_needed=credits_needed,
        status=JobStatus.PROCESSING,
        is_async=False,
        attempts=1,
        lease_owner=owner,
        lease_expires_at=now + timedelta(seconds=lease_seconds),
        started_at=now,
    )


def renew(session: Session, job_id: str, owner: str, lease_seconds: float) -> bool:
    """Keep the job `owner`'s; False when it no longer is (it ended, or was taken over)."""
    until = utcnow() + timedelta(seconds=lease_seconds)
    return repository.renew_lease(session, job_id, owner, until)


def grow(session: Session, settings: Settings, job: Job, owner: str, more: int) -> None:
    """Hold `more` credits for the job (402 when the balance cannot cover them)."""
    assert job.reservation_id is not None
    wiring.billing(settings).extend(session, job.reservation_id, more)
    repository.set_reservation(
        session, job.id, owner, job.reservation_id, job.credits_reserved + more
    )
    job.credits_reserved += more


def finish(
    session: Session,
    settings: Settings,
    job: Job,
    owner: str,
    *,
    credits_used: int,
    result: dict[str, Any] | None,
    error: AppError | None = None,
) -> bool:
    """End the job: `credits_used` captured (what was delivered, also when it failed), the
    rest returned; completed with `result`, or failed with `error`."""
    values: dict[str, Any] = {"credits_used": credits_used, "progress": 1.0}
    if error is None:
        status, values["result"] = JobStatus.COMPLETED, result
    else:
        status = JobStatus.FAILED
        values["error"] = {
            "type": error.type,
            "code": error.code,
            "message": error.message,
            "param": error.param,
            "status": error.status,
        }
    if not repository.finish(session, job.id, owner, status, utcnow(), **values):
        return False
    if job.reservation_id:
        billing = wiring.billing(settings)
        if credits_used > 0:
            billing.capture(session, job.reservation_id, credits_used)
        else:
            billing.release(session, job.reservation_id)
    return True


_KINDS: set[str] = set()


def kinds() -> frozenset[str]:
    """The live jobs' kinds declared in this process: their jobs are no queued work, so
    they count for no account's cap on running jobs (jobs.repository.claim_next)."""
    return frozenset(_KINDS)


def declare(kind: str, lost: Handler) -> None:
    """Declare `kind` a live job's kind: a worker given one (its caller's process died)
    runs `lost`, which raises the error the job fails with."""
    _KINDS.add(kind)
    handlers.declare(kind, lost, request=JobRequest, result=JobResult)
