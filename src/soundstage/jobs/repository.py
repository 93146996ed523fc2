"""All SQL of jobs. State changes are conditional UPDATEs: a redelivered or late worker
can never move a job that another worker owns or that has already ended."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import Select, func, or_, select, update
from sqlalchemy.orm import Session

from soundstage.models import Job

ACTIVE = ("queued", "processing")


def add(session: Session, job: Job) -> None:
    session.add(job)
    session.flush()


def get(session: Session, job_id: str) -> Job | None:
    return session.get(Job, job_id, populate_existing=True)


def get_owned(session: Session, account_id: str, environment: str, job_id: str) -> Job | None:
    stmt = owned_query(account_id, environment).where(Job.id == job_id)
    return session.scalars(stmt.execution_options(populate_existing=True)).first()


def owned_query(account_id: str, environment: str) -> Select[Job]:
    return select(Job).where(Job.account_id == account_id, Job.environment == environment)


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
                Job.status == "queued",
                (Job.status == "processing") & (Job.lease_expires_at < now),
            ),
        )
        .values(
            status="processing",
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
        .where(Job.id == job_id, Job.lease_owner == owner, Job.status == "processing")
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
        .where(Job.id == job_id, Job.lease_owner == owner, Job.status == "processing")
        .values(**values)
    )
    return _changed(session, stmt)


def set_reservation(
    session: Session, job_id: str, owner: str, reservation_id: str, amount: int
) -> bool:
    """Record the credits a running job reserved, if `owner` still holds it."""
    stmt = (
        update(Job)
        .where(Job.id == job_id, Job.lease_owner == owner, Job.status == "processing")
        .values(reservation_id=reservation_id, credits_reserved=amount)
    )
    return _changed(session, stmt)


def finish(
    session: Session, job_id: str, owner: str | None, status: str, now: datetime, **values: Any
) -> bool:
    """End a job held by `owner` (None: any active job, e.g. a cancel from the API)."""
    conditions = [Job.id == job_id]
    if owner is None:
        conditions.append(Job.status.in_(ACTIVE))
    else:
        conditions += [Job.lease_owner == owner, Job.status == "processing"]
    stmt = (
        update(Job)
        .where(*conditions)
        .values(status=status, completed_at=now, updated_at=now, lease_expires_at=None, **values)
    )
    return _changed(session, stmt)


def stale_job_ids(session: Session, now: datetime, requeue_before: datetime) -> list[str]:
    stmt = select(Job.id).where(
        or_(
            (Job.status == "processing") & (Job.lease_expires_at < now),
            (Job.status == "queued") & (Job.updated_at < requeue_before),
        )
    )
    return list(session.scalars(stmt))


def touch(session: Session, job_ids: list[str], now: datetime) -> None:
    if job_ids:
        session.execute(
            update(Job)
            .where(Job.id.in_(job_ids), Job.status == "queued")
            .values(updated_at=now)
            .execution_options(synchronize_session=False)
        )
