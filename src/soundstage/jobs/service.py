"""Jobs as the features and the API see them: submit (reserving credits, enqueueing after
commit), wait for synchronous ones, read, list, find (by kind, state, date and stored
request), cancel (releasing credits), delete an ended job's outputs."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Collection, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from soundstage import idempotency
from soundstage.config import Settings
from soundstage.core import admission
from soundstage.core.db import Database, after_commit
from soundstage.core.errors import AppError, NotFound
from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.jobs import events, handlers, repository, tasks, wiring
from soundstage.jobs.errors import JobCancelledError, JobNotCancellable, JobNotFound, JobTimeout
from soundstage.jobs.payloads import JobRequest
from soundstage.jobs.queue import get_queue
from soundstage.jobs.repository import RequestMatch as RequestMatch
from soundstage.jobs.schemas import JobAccepted, JobError, JobOut
from soundstage.models import Job
from soundstage.models.jobs import TERMINAL_STATUSES, JobStatus

TERMINAL = TERMINAL_STATUSES
log = logging.getLogger("soundstage.jobs")


def submit(
    session: Session,
    settings: Settings,
    principal: Principal,
    kind: str,
    request: JobRequest,
    *,
    credits_needed: int,
    is_async: bool,
    estimated_completion_ms: int | None = None,
) -> Job:
    """Record a queued job and reserve its credits (402 before any work); the job is
    enqueued once this unit of work commits. `request` (the kind's request model) is
    stored as its JSON. The retry of a request that died after
    submitting (same Idempotency-Key) gets that job back instead: nothing runs or is
    reserved twice."""
    resumed = _resumed_job(session, principal, kind)
    if resumed is not None:
        return resumed
    job = record(
        session,
        settings,
        principal,
        kind,
        request.model_dump(mode="json"),
        credits_needed=credits_needed,
        status=JobStatus.QUEUED,
        is_async=is_async,
        estimated_completion_ms=estimated_completion_ms,
        attempts=0,
    )
    idempotency.bind_job(session, principal, job.id)
    after_commit(session, lambda: _enqueue(settings, job.id))
    return job


def record(
    session: Session,
    settings: Settings,
    principal: Principal,
    kind: str,
    request: dict[str, Any],
    *,
    credits_needed: int,
    **state: Any,
) -> Job:
    """A new job row of the caller's, `request` its stored JSON, in `state` (status,
    attempts, lease...), with its credits reserved (402 before anything is recorded for good)."""
    now = utcnow()
    job = Job(
        id=new_id("job"),
        account_id=principal.account_id,
        environment=principal.environment,
        kind=kind,
        progress=0.0,
        request=request,
        credits_reserved=credits_needed,
        created_at=now,
        updated_at=now,
        **state,
    )
    repository.add(session, job)
    if credits_needed > 0:
        billing = wiring.billing(settings)
        job.reservation_id = billing.reserve(session, principal, credits_needed, kind, job.id)
        session.flush()
    return job


def _enqueue(settings: Settings, job_id: str) -> None:
    """Wake a worker for a committed job (it runs the next in the fair order). The row is
    the truth: if the queue is down, the job stays queued and the sweeper wakes one once
    it is back."""
    try:
        get_queue(settings).wake_worker(job_id)
    except Exception:
        log.warning("could not enqueue job %s; the sweeper will", job_id, exc_info=True)


def resumed(db: Database, principal: Principal, kind: str) -> Job | None:
    """The job a retry under the same Idempotency-Key resumes (see submit), taken before
    the work of submitting (fetching inputs) is done again; None for any other request."""
    with db.read_session() as session:
        job = _resumed_job(session, principal, kind)
        if job is not None:
            session.expunge(job)
        return job


def _resumed_job(session: Session, principal: Principal, kind: str) -> Job | None:
    job_id = idempotency.take_resumed_job(principal)
    if job_id is None:
        return None
    job = repository.get_owned(session, principal, job_id)
    return job if job is not None and job.kind == kind else None


async def run(
    db: Database,
    settings: Settings,
    principal: Principal,
    kind: str,
    request: JobRequest,
    *,
    credits_needed: int,
) -> JobOut:
    """What a synchronous endpoint does with its job: submit it (reserving `credits_needed`,
    402 before any work), wait for its end and answer it completed (for the feature's
    `CompletedJob.of`). A failed job is raised as the error a direct call would have
    answered, a cancelled one is 409, and one past `jobs.sync_timeout_seconds` is cancelled,
    not charged, and 504 `job_timeout`."""
    job = await submit_and_wait(
        db, settings, principal, kind, request, credits_needed=credits_needed
    )
    return await run_in_threadpool(raise_for_failure, db, job)


async def submit_and_wait(
    db: Database,
    settings: Settings,
    principal: Principal,
    kind: str,
    request: JobRequest,
    *,
    credits_needed: int,
) -> JobOut:
    """For synchronous endpoints: submit, then wait for the end. Past the limit the job is
    cancelled, nothing is charged, and the answer is 504 `job_timeout`."""

    def _submit() -> str:
        with db.session() as session:
            return submit(
                session,
                settings,
                principal,
                kind,
                request,
                credits_needed=credits_needed,
                is_async=False,
            ).id

    job_id = await run_in_threadpool(_submit)
    return await wait(db, settings, job_id)


async def wait(db: Database, settings: Settings, job_id: str) -> JobOut:
    """Wait for a submitted job's end, `jobs.sync_timeout_seconds` at most from now; past
    that it is cancelled, nothing is charged, and the answer is 504 `job_timeout`. The
    request only waits from here on: it stops counting against the API process's capacity."""
    admission.step_aside()
    deadline = time.monotonic() + settings.jobs.sync_timeout_seconds
    # Polls come close together at first and ever further apart (1.2 times the wait so far,
    # at most 0.2 s): the job is seen at most about a fifth of its time after it ends. Each
    # poll reads the status alone; the job is read whole once it has ended.
    delay = 0.002
    while True:
        if await run_in_threadpool(_has_ended, db, job_id):
            return await run_in_threadpool(read, db, settings, job_id)
        if time.monotonic() >= deadline:
            break
        await asyncio.sleep(delay)
        delay = min(delay * 1.2, 0.2)
    cancelled = await run_in_threadpool(cancel_if_active, db, settings, job_id)
    if cancelled.status == JobStatus.COMPLETED:  # it finished as we gave up: keep the result
        return cancelled
    raise timeout_error(settings, job_id)


def _has_ended(db: Database, job_id: str) -> bool:
    with db.read_session() as session:
        return repository.status_of(session, job_id) in TERMINAL


def timeout_error(settings: Settings, job_id: str) -> JobTimeout:
    return JobTimeout(
        f"Job {job_id} did not finish within {settings.jobs.sync_timeout_seconds:g} s; it was "
        f"cancelled and not charged. GET /api/v1/jobs/{job_id} shows it.",
        param="job_id",
    )


def raise_for_failure(db: Database, job: JobOut) -> JobOut:
    """For synchronous endpoints: a completed job as is; a failed one raised as the error a
    direct call would have answered (same status, code and param); a cancelled one 409."""
    if job.status == JobStatus.COMPLETED:
        return job
    if job.status == JobStatus.CANCELLED:
        raise JobCancelledError(
            f"Job {job.job_id} was cancelled; it was charged {job.credits_used or 0} credits "
            "(for the audio it had streamed, if any)."
        )
    with db.read_session() as session:
        stored = repository.get(session, job.job_id)
        status = int((stored.error or {}).get("status", 500)) if stored else 500
    assert job.error is not None
    failure = AppError(job.error.message, param=job.error.param, code=job.error.code, status=status)
    failure.type = job.error.type
    raise failure


def read(db: Database, settings: Settings, job_id: str) -> JobOut:
    with db.read_session() as session:
        job = repository.get(session, job_id)
        assert job is not None
        return job_out(job, settings)


def cancel_if_active(db: Database, settings: Settings, job_id: str) -> JobOut:
    with db.session() as session:
        job = repository.get(session, job_id)
        assert job is not None
        _cancel(session, settings, job)
        return job_out(job, settings)


def _cancel(session: Session, settings: Settings, job: Job) -> bool:
    # The reservation to settle is the one the cancelling statement found on the row, not
    # `job.reservation_id` as read before: a worker may have reserved in between. What the
    # job had handed over (a stream's audio sent before the client hung up) is captured.
    was_running = job.status == JobStatus.PROCESSING
    cancelled, reservation_id, delivered = repository.cancel(session, job.id, utcnow())
    if cancelled and reservation_id:
        billing = wiring.billing(settings)
        if delivered:
            billing.capture(session, reservation_id, delivered)
        else:
            billing.release(session, reservation_id)
    session.refresh(job)
    if cancelled and was_running:
        # Its account may start another job now, but its worker claims again only once it
        # notices (at its next heartbeat): wake another.
        after_commit(session, lambda: _enqueue(settings, job.id))
    if cancelled:
        emit_end(session, settings, job, _cancelled_event(settings, job.kind))
    return cancelled


def _cancelled_event(settings: Settings, kind: str) -> str | None:
    """The kind's cancelled event (a plugin's kind once its module is loaded here);
    `job.cancelled` for a kind nothing registers."""
    registered = handlers.get_kind(kind)
    if registered is None:
        tasks.load_plugins(settings)
        registered = handlers.get_kind(kind)
    return registered.cancelled_event if registered is not None else "job.cancelled"


def emit_end(session: Session, settings: Settings, job: Job, event_type: str | None) -> None:
    """Announce the end of an asynchronous job by the event `event_type` to the listeners
    installed at startup (the webhooks feature: the job as GET shows it, read again in the
    transaction that ended it). Synchronous jobs announce nothing: their caller has the
    answer (and nothing is read for them: `job` is the caller's copy, for `is_async`)."""
    if event_type is None or not job.is_async:
        return
    ended = repository.get(session, job.id)
    if ended is None:
        return
    wiring.ensure()  # the listeners are installed with the wiring
    events.job_ended(session, settings, ended, event_type)


def get(session: Session, principal: Principal, job_id: str) -> Job:
    job = repository.get_owned(session, principal, job_id)
    if job is None:
        raise JobNotFound(f"No such job: {job_id}", param="job_id")
    return job


def cancel(session: Session, settings: Settings, principal: Principal, job_id: str) -> Job:
    """Cancel a queued or running job; its credits are released (less what it had handed
    over, a stream's audio sent, which is captured) and, if it is asynchronous,
    its kind's cancelled event (`job.cancelled`, `dubbing.cancelled`, `daw.cancelled`) is
    emitted. Cancelling a cancelled job answers it again (no second event); a finished one
    is 409, and so is a stream whose audio was complete (it has been charged and goes on to
    store its file)."""
    job = get(session, principal, job_id)
    if job.status == JobStatus.CANCELLED or _cancel(session, settings, job):
        return job
    if job.status in repository.ACTIVE:
        raise JobNotCancellable(
            f"Job {job_id} has delivered its audio and been charged; it can no longer be "
            "cancelled.",
            param="job_id",
        )
    raise JobNotCancellable(f"Job {job_id} has already {job.status}.", param="job_id")


def list_jobs(
    session: Session,
    principal: Principal,
    page: PageParams,
    *,
    status: JobStatus | None,
    kind: str | None,
) -> tuple[list[Job], bool]:
    query = repository.owned_query(principal)
    if status is not None:
        query = query.where(Job.status == status)
    if kind is not None:
        query = query.where(Job.kind == kind)
    return paginate(session, query, Job, page, JobNotFound)


def find_jobs(
    session: Session,
    principal: Principal,
    page: PageParams,
    missing: type[NotFound],
    *,
    kinds: Collection[str],
    status: JobStatus | None = None,
    created_from: datetime | None = None,
    created_before: datetime | None = None,
    outputs_deleted: bool | None = None,
    matches: Sequence[RequestMatch] = (),
    oldest_first: bool = False,
) -> tuple[list[Job], bool]:
    """The caller's jobs of `kinds` that pass every filter given (see
    repository.found_query), newest first (or oldest first), a page of them; a cursor that
    is not among them is 404 `missing` (the listing's own resource)."""
    query = repository.found_query(
        session,
        principal,
        kinds=kinds,
        status=status,
        created_from=created_from,
        created_before=created_before,
        outputs_deleted=outputs_deleted,
        matches=matches,
    )
    order = None
    if oldest_first:
        order = ((Job.created_at, False), (Job.id, False))
    return paginate(session, query, Job, page, missing, order)


def delete_outputs(session: Session, settings: Settings, principal: Principal, job: Job) -> bool:
    """Delete the stored outputs of the caller's ended job at once: their URLs answer 410
    from this unit's commit on (their bytes go once it commits) and their quota is freed;
    the job, its charge and the ledger are untouched. False when they were deleted already
    (by a request that got there first)."""
    if job.status not in TERMINAL:  # a running job would store outputs after this
        raise ValueError(f"job {job.id} has not ended: its outputs cannot be deleted")
    if not repository.mark_outputs_deleted(session, principal, job.id, utcnow()):
        return False
    wiring.media(settings).discard_job_outputs(session, settings, job.id)
    session.refresh(job)
    return True


def accepted(job: Job) -> JobAccepted:
    """The answer to an asynchronous submission (JobAccepted); the job's request holds the
    `duration_ms` it was priced from (see jobs.inputs)."""
    return JobAccepted(
        job_id=job.id,
        kind=job.kind,
        environment=job.environment,
        status="processing",
        estimated_completion_ms=job.estimated_completion_ms or 0,
        duration_ms=int(job.request.get("duration_ms") or 0),
        credits_reserved=job.credits_reserved,
        created_at=job.created_at,
    )


def job_out(job: Job, settings: Settings, *, url_ttl_seconds: int | None = None) -> JobOut:
    """The job as the API shows it; media in its result as URLs signed for url_ttl_seconds
    (default `media.url_ttl_seconds`)."""
    media = wiring.media(settings)
    return JobOut(
        job_id=job.id,
        kind=job.kind,
        environment=job.environment,
        status=job.status,
        progress=job.progress,
        stage=job.stage,
        result=media.render(job.result, settings, ttl_seconds=url_ttl_seconds)
        if job.result is not None
        else None,
        outputs_expire_at=_outputs_expire_at(job, media.earliest_expiry(job.result)),
        error=JobError.model_validate(
            {k: v for k, v in job.error.items() if k in JobError.model_fields}
        )
        if job.error
        else None,
        credits_reserved=job.credits_reserved,
        credits_used=job.credits_used,
        estimated_completion_ms=job.estimated_completion_ms,
        attempts=job.attempts,
        created_at=job.created_at,
        started_at=job.started_at,
        completed_at=job.completed_at,
    )


def _outputs_expire_at(job: Job, expiry: datetime | None) -> datetime | None:
    """When the first output expires, or when they were deleted (if that came first)."""
    if expiry is None or job.outputs_deleted_at is None:
        return expiry
    return min(expiry, job.outputs_deleted_at)


def queue_depth(db: Database) -> list[tuple[str, str, int]]:
    """(kind, status, how many) of the jobs queued and running now (/metrics)."""
    with db.read_session() as session:
        return repository.count_active_by_kind(session)
