"""All SQL of jobs. State changes are conditional UPDATEs: a redelivered or late worker
can never move a job that another worker owns or that has already ended."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, func, or_, select, update
from sqlalchemy.orm import Session

from soundstage.core.tenancy import select_owned
from soundstage.models import Job
from soundstage.models.jobs import ACTIVE_STATUSES, JobStatus

ACTIVE = ACTIVE_STATUSES


def add(session: Session, job: Job) -> None:
    session.add(job)
    session.flush()


def get(session: Session, job_id: str) -> Job | None:
    return session.get(Job, job_id, populate_existing=True)


def get_owned(session: Session, account_id: str, environment: str, job_id: str) -> Job | None:
    stmt = owned_query(account_id, environment).where(Job.id == job_id)
    return session.scalars(stmt.execution_options(populate_existing=True)).first()


def owned_query(account_id: str, environment: str) -> Select[Job]:
    return select_owned(Job, (account_id, environment))


def _changed(session: Session, stmt: Any) -> bool:
    result = session.execute(stmt.execution_options(synchronize_session=False))
    return bool(result.rowcount == 1)  # type: ignore[attr-defined]


def claim(session: Session, job_id: str, owner: str, now: datetime, lease: timedelta) -> bool:
    """Take a queued job, or one whose worker's lease ran out."""
    stmt = (
        update(Job)
        .where(
            Job.id == job_id,
            or_(
                Job.status == JobStatus.QUEUED,
                (Job.status == JobStatus.PROCESSING) & (Job.lease_expires_at < now),
            ),
        )
        .values(
            status=JobStatus.PROCESSING,
            attempts=Job.attempts + 1,
            lease_owner=owner,
            lease_expires_at=now + lease,
            updated_at=now,
            started_at=func.coalesce(Job.started_at, now),
        )
    )
    return _changed(session, stmt)


def renew_lease(session: Session, job_id: str, owner: str, until: datetime) -> bool:
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_owner == owner, Job.status == JobStatus.PROCESSING)
        .values(lease_expires_at=until)
    )
    return _changed(session, stmt)


def report_progress(
    session: Session, job_id: str, owner: str, progress: float, stage: str | None, now: datetime
) -> bool:
    values: dict[str, Any] = {"progress": progress, "updated_at": now}
    if stage is not None:
        values["stage"] = stage
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_owner == owner, Job.status == JobStatus.PROCESSING)
        .values(**values)
    )
    return _changed(session, stmt)


def set_reservation(
    session: Session, job_id: str, owner: str, reservation_id: str, amount: int
) -> bool:
    """Record the credits a running job reserved, if `owner` still holds it."""
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_owner == owner, Job.status == JobStatus.PROCESSING)
        .values(reservation_id=reservation_id, credits_reserved=amount)
    )
    return _changed(session, stmt)


def charge(session: Session, job_id: str, owner: str, credits_used: int) -> bool:
    """Record that a running job held by `owner` has been charged (before it ends: a stream
    whose audio is complete). Such a job can no longer be cancelled."""
    stmt = (
        update(Job)
        .where(
            Job.id == job_id,
            Job.lease_owner == owner,
            Job.status == JobStatus.PROCESSING,
            Job.credits_used.is_(None),
        )
        .values(credits_used=credits_used)
    )
    return _changed(session, stmt)


def charge_at_least(session: Session, job_id: str, owner: str, amount: int) -> bool:
    """Record the least a running job held by `owner` will be charged however it ends (what
    it has handed over costs), unless it was cancelled or charged in full first."""
    stmt = (
        update(Job)
        .where(
            Job.id == job_id,
            Job.lease_owner == owner,
            Job.status == JobStatus.PROCESSING,
            Job.credits_used.is_(None),
        )
        .values(credits_delivered=amount)
    )
    return _changed(session, stmt)


def finish(
    session: Session, job_id: str, owner: str, status: JobStatus, now: datetime, **values: Any
) -> bool:
    """End a job held by `owner`."""
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_owner == owner, Job.status == JobStatus.PROCESSING)
        .values(status=status, completed_at=now, updated_at=now, lease_expires_at=None, **values)
    )
    return _changed(session, stmt)


def cancel(session: Session, job_id: str, now: datetime) -> tuple[bool, str | None, int]:
    """Cancel an active job that has not been charged in full: (cancelled?, its reservation,
    the credits to capture of it: what the job had handed over, else 0 and the reservation
    is released). One statement that reads the reservation and the credits as it writes: on
    PostgreSQL it waits for a worker's transaction on the same row (reserving, or recording
    what it hands over), so neither is ever missed."""
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.status.in_(ACTIVE), Job.credits_used.is_(None))
        .values(
            status=JobStatus.CANCELLED,
            completed_at=now,
            updated_at=now,
            lease_expires_at=None,
            credits_used=Job.credits_delivered,
        )
        .returning(Job.reservation_id, Job.credits_delivered)
        .execution_options(synchronize_session=False)
    )
    row = session.execute(stmt).first()
    if row is None:
        return False, None, 0
    return True, row[0], int(row[1])


def active_ids(session: Session, job_ids: list[str]) -> set[str]:
    """Which of `job_ids` are queued or running."""
    if not job_ids:
        return set()
    stmt = select(Job.id).where(Job.id.in_(job_ids), Job.status.in_(ACTIVE))
    return set(session.scalars(stmt))


def lease_owners(session: Session, job_ids: list[str]) -> dict[str, str | None]:
    """The lease owner of each of `job_ids` that is running (absent: not running)."""
    if not job_ids:
        return {}
    stmt = select(Job.id, Job.lease_owner).where(
        Job.id.in_(job_ids), Job.status == JobStatus.PROCESSING
    )
    return {job_id: owner for job_id, owner in session.execute(stmt)}


def stale_job_ids(session: Session, now: datetime, requeue_before: datetime) -> list[str]:
    stmt = select(Job.id).where(
        or_(
            (Job.status == JobStatus.PROCESSING) & (Job.lease_expires_at < now),
            (Job.status == JobStatus.QUEUED) & (Job.updated_at < requeue_before),
        )
    )
    return list(session.scalars(stmt))


def touch(session: Session, job_ids: list[str], now: datetime) -> None:
    if job_ids:
        session.execute(
            update(Job)
            .where(Job.id.in_(job_ids), Job.status == JobStatus.QUEUED)
            .values(updated_at=now)
            .execution_options(synchronize_session=False)
        )


def count_active_by_kind(session: Session) -> list[tuple[str, str, int]]:
    """(kind, status, how many) of the queued and running jobs."""
    stmt = (
        select(Job.kind, Job.status, func.count())
        .where(Job.status.in_(ACTIVE))
        .group_by(Job.kind, Job.status)
    )
    return [(kind, status, count) for kind, status, count in session.execute(stmt)]


def release(session: Session, job_id: str, owner: str, now: datetime) -> bool:
    """Put a running job held by `owner` back in the queue (its worker is shutting down): the
    attempt is given back, as the job did not fail; its reservation and any charge stay."""
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_owner == owner, Job.status == JobStatus.PROCESSING)
        .values(
            status=JobStatus.QUEUED,
            attempts=Job.attempts - 1,
            lease_owner=None,
            lease_expires_at=None,
            updated_at=now,
        )
    )
    return _changed(session, stmt)
