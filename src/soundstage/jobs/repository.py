"""All SQL of jobs. State changes are conditional UPDATEs: a redelivered or late worker
can never move a job that another worker owns or that has already ended."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import Any

from sqlalchemy import (
    JSON,
    ColumnElement,
    Integer,
    Select,
    String,
    and_,
    bindparam,
    case,
    cast,
    column,
    exists,
    func,
    literal,
    or_,
    select,
    type_coerce,
    update,
)
from sqlalchemy.orm import Session

from soundstage.config import RunningJobCaps
from soundstage.core.tenancy import (
    Owned,
    owned_by_parameters,
    owner_parameters,
    select_owned,
    update_owned,
)
from soundstage.core.timeutil import UTCDateTime
from soundstage.models import Job, JobTurn
from soundstage.models.jobs import ACTIVE_STATUSES, JobStatus

ACTIVE = ACTIVE_STATUSES


def add(session: Session, job: Job) -> None:
    session.add(job)
    session.flush()


def get(session: Session, job_id: str) -> Job | None:
    return session.get(Job, job_id, populate_existing=True)


def status_of(session: Session, job_id: str) -> str | None:
    return session.scalar(select(Job.status).where(Job.id == job_id))


def get_owned(session: Session, owner: Owned, job_id: str) -> Job | None:
    stmt = owned_query(owner).where(Job.id == job_id)
    return session.scalars(stmt.execution_options(populate_existing=True)).first()


def owned_query(owner: Owned) -> Select[Job]:
    return select_owned(Job, owner)


@dataclass(frozen=True)
class RequestMatch:
    """Jobs whose stored request holds `value` at one of `paths`: each a dotted path of keys
    from the request's top (`voice_id`, `singer.voice_id`), `*` standing for every element of
    a list (`inputs.*.voice_id`: any element's). `contains`: the string there contains
    `value`, case-insensitively (ASCII), rather than equals it."""

    paths: tuple[str, ...]
    value: str
    contains: bool = False


def found_query(
    session: Session,
    owner: Owned,
    *,
    kinds: Collection[str] | None = None,
    status: str | None = None,
    created_from: datetime | None = None,
    created_before: datetime | None = None,
    outputs_deleted: bool | None = None,
    matches: Sequence[RequestMatch] = (),
) -> Select[Job]:
    """The owner's jobs of `kinds`, in `status`, created in [`created_from`, `created_before`),
    whose outputs were deleted or not (None: either), matching every one of `matches`."""
    stmt = owned_query(owner)
    if kinds is not None:
        stmt = stmt.where(Job.kind.in_(list(kinds)))
    if status is not None:
        stmt = stmt.where(Job.status == status)
    if created_from is not None:
        stmt = stmt.where(Job.created_at >= created_from)
    if created_before is not None:
        stmt = stmt.where(Job.created_at < created_before)
    if outputs_deleted is not None:
        deleted = Job.outputs_deleted_at.is_not(None)
        stmt = stmt.where(deleted if outputs_deleted else ~deleted)
    postgres = session.get_bind().dialect.name == "postgresql"
    for match in matches:
        stmt = stmt.where(or_(*(_holds(path, match, postgres) for path in match.paths)))
    return stmt


def _holds(path: str, match: RequestMatch, postgres: bool) -> ColumnElement[bool]:
    """The request holds the match's value at `path` (one `*` at most)."""
    keys = tuple(path.split("."))
    if "*" not in keys:
        return _test(Job.request[keys].as_string(), match)
    star = keys.index("*")
    outer, inner = keys[:star], keys[star + 1 :]
    if postgres:
        # json_array_elements fails on anything but an array: an absent key or another value
        # is taken as an empty list; an element that is no object has no keys.
        found = Job.request[outer]
        array = case((func.json_typeof(found) == "array", found), else_=cast(literal("[]"), JSON))
        elements = func.json_array_elements(array).table_valued(column("value", JSON))
        element = elements.alias("element")
        value = case(
            (func.json_typeof(element.c.value) == "object", element.c.value[inner].as_string())
        )
    else:
        elements = func.json_each(Job.request, _sqlite_path(outer)).table_valued("value", "type")
        element = elements.alias("element")
        value = case(
            (element.c.type == "object", func.json_extract(element.c.value, _sqlite_path(inner)))
        )
    return exists(select(1).select_from(element).where(_test(value, match)))


def _sqlite_path(keys: tuple[str, ...]) -> str:
    return "$" + "".join(f'."{key}"' for key in keys)


def _test(value: ColumnElement[Any], match: RequestMatch) -> ColumnElement[bool]:
    text = type_coerce(value, String)
    if match.contains:
        return text.icontains(match.value, autoescape=True)
    return text == match.value


def mark_outputs_deleted(session: Session, owner: Owned, job_id: str, now: datetime) -> bool:
    """Record that the owner deleted the job's outputs, once: False when they already were
    (another request got there first)."""
    stmt = (
        update_owned(Job, owner)
        .where(Job.id == job_id, Job.outputs_deleted_at.is_(None))
        .values(outputs_deleted_at=now)
    )
    return _changed(session, stmt)


def _changed(session: Session, stmt: Any) -> bool:
    result = session.execute(stmt.execution_options(synchronize_session=False))
    return bool(result.rowcount == 1)  # type: ignore[attr-defined]


# Claims take turns under one lock: SQLite's write lock (every unit of work begins IMMEDIATE)
# or, on PostgreSQL, this transaction-scoped advisory lock. So every worker, on any machine,
# sees the running jobs the claim before it started, and an owner's cap holds exactly.
CLAIM_LOCK = 0x50_756E_6453  # any constant: the key of that advisory lock


def _claimable(now: Any) -> ColumnElement[bool]:
    """A job a worker may take: queued, or running in a worker whose lease ran out."""
    return or_(
        Job.status == JobStatus.QUEUED,
        (Job.status == JobStatus.PROCESSING) & (Job.lease_expires_at < now),
    )


def claim_next(
    session: Session,
    owner: str,
    now: datetime,
    lease: timedelta,
    caps: RunningJobCaps,
    uncounted_kinds: Collection[str],
) -> Job | None:
    """Take the next job in the fair order for the worker `owner`, or None if no job may
    start now (none waits, or every owner with work waiting is at its cap). The order:
    of the owners (an account in one environment) with a job waiting and fewer jobs running
    than their cap, the one with the fewest running, then the one whose last job started
    longest ago (`JobTurn`), then the one whose oldest job has waited longest; its oldest
    job. Jobs of `uncounted_kinds` (live jobs, run by their caller) count for no cap."""
    if session.get_bind().dialect.name == "postgresql":
        session.execute(select(func.pg_advisory_xact_lock(CLAIM_LOCK)))
    turn, take = _claim_statements()
    params = {"now": now, "sandbox_cap": caps.sandbox, "production_cap": caps.production}
    while True:
        job_id = session.scalar(turn, {**params, "uncounted": list(uncounted_kinds)})
        if job_id is None:
            return None
        # Conditional: a cancel may have come first (PostgreSQL; SQLite holds it off).
        claimed = {"job_id": job_id, "now": now, "owner": owner, "until": now + lease}
        job: Job | None = session.scalars(take, claimed).first()
        if job is not None:
            _served(session, (job.account_id, job.environment), now)
            return job


@cache
def _claim_statements() -> tuple[Select[tuple[str]], Any]:
    """The statements of claim_next, built once (with parameters): which job is next (one
    statement, so that it reads one state), and taking it."""
    now = bindparam("now", type_=UTCDateTime())
    place = func.row_number().over(
        partition_by=(Job.account_id, Job.environment), order_by=(Job.created_at, Job.id)
    )
    heads = (
        select(Job.id, Job.account_id, Job.environment, Job.created_at, place.label("place"))
        .where(_claimable(now))
        .subquery("heads")
    )
    running = (
        select(Job.account_id, Job.environment, func.count().label("jobs"))
        .where(
            Job.status == JobStatus.PROCESSING,
            Job.lease_expires_at >= now,
            Job.kind.not_in(bindparam("uncounted", expanding=True)),
        )
        .group_by(Job.account_id, Job.environment)
        .subquery("running")
    )
    jobs_running = func.coalesce(running.c.jobs, 0)
    cap = case(
        (heads.c.environment == "sandbox", bindparam("sandbox_cap", type_=Integer())),
        else_=bindparam("production_cap", type_=Integer()),
    )
    turn = (
        select(heads.c.id)
        .select_from(heads)
        .outerjoin(
            running,
            and_(
                running.c.account_id == heads.c.account_id,
                running.c.environment == heads.c.environment,
            ),
        )
        .outerjoin(
            JobTurn,
            and_(
                JobTurn.account_id == heads.c.account_id,
                JobTurn.environment == heads.c.environment,
            ),
        )
        .where(heads.c.place == 1, jobs_running < cap)
        .order_by(
            jobs_running,
            JobTurn.served_at.asc().nulls_first(),
            heads.c.created_at,
            heads.c.id,
        )
        .limit(1)
    )
    take = (
        update(Job)
        .where(Job.id == bindparam("job_id"), _claimable(now))
        .values(
            status=JobStatus.PROCESSING,
            attempts=Job.attempts + 1,
            lease_owner=bindparam("owner"),
            lease_expires_at=bindparam("until", type_=UTCDateTime()),
            updated_at=now,
            started_at=func.coalesce(Job.started_at, now),
        )
        .returning(Job)
        .execution_options(synchronize_session=False)
    )
    return turn, take


_SERVED = (
    update(JobTurn)
    .where(owned_by_parameters(JobTurn))
    .values(served_at=bindparam("now"))
    .execution_options(synchronize_session=False)
)


def _served(session: Session, job_owner: tuple[str, str], now: datetime) -> None:
    """Record that `job_owner` was served now (claims are serialized: no two insert it)."""
    served = session.execute(_SERVED, {**owner_parameters(job_owner), "now": now})
    if served.rowcount != 1:  # type: ignore[attr-defined]
        account_id, environment = job_owner
        session.add(JobTurn(account_id=account_id, environment=environment, served_at=now))
        session.flush()


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


def _running_uncharged(job_id: str, owner: str) -> tuple[Any, ...]:
    """The job, running and held by `owner`, not yet charged in full."""
    return (
        Job.id == job_id,
        Job.lease_owner == owner,
        Job.status == JobStatus.PROCESSING,
        Job.credits_used.is_(None),
    )


def charge(session: Session, job_id: str, owner: str, credits_used: int) -> bool:
    """Record that a running job held by `owner` has been charged (before it ends: a stream
    whose audio is complete). Such a job can no longer be cancelled."""
    stmt = update(Job).where(*_running_uncharged(job_id, owner)).values(credits_used=credits_used)
    return _changed(session, stmt)


def charge_at_least(session: Session, job_id: str, owner: str, amount: int) -> bool:
    """Record the least a running job held by `owner` will be charged however it ends (what
    it has handed over costs), unless it was cancelled or charged in full first."""
    stmt = update(Job).where(*_running_uncharged(job_id, owner)).values(credits_delivered=amount)
    return _changed(session, stmt)


def finish(
    session: Session, job_id: str, owner: str, status: JobStatus, now: datetime, **values: Any
) -> bool:
    """End a job held by `owner`, setting the columns `values` names too."""
    stmt = _finish_statement(frozenset(values))
    parameters = {f"value_{name}": value for name, value in values.items()}
    parameters.update(job_id=job_id, owner=owner, status=status, now=now)
    return bool(session.execute(stmt, parameters).rowcount == 1)  # type: ignore[attr-defined]


@cache
def _finish_statement(names: frozenset[str]) -> Any:
    """finish's statement for the columns `names`, built once for each set (every job ends
    with one of a few; building it per call cost a millisecond of the job's last
    transaction on a slow core, bench/job_overhead.py)."""
    now = bindparam("now", type_=UTCDateTime())
    return (
        update(Job)
        .where(
            Job.id == bindparam("job_id"),
            Job.lease_owner == bindparam("owner"),
            Job.status == JobStatus.PROCESSING,
        )
        .values(
            status=bindparam("status"),
            completed_at=now,
            updated_at=now,
            lease_expires_at=None,
            **{name: bindparam(f"value_{name}") for name in names},
        )
        .execution_options(synchronize_session=False)
    )


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


def stale_job_ids(
    session: Session, now: datetime, requeue_before: datetime, limit: int
) -> list[str]:
    """Up to `limit` jobs that no worker holds and none took lately: running in a worker
    whose lease ran out, or queued and untouched since `requeue_before`; the longest
    untouched first."""
    stmt = (
        select(Job.id)
        .where(
            or_(
                (Job.status == JobStatus.PROCESSING) & (Job.lease_expires_at < now),
                (Job.status == JobStatus.QUEUED) & (Job.updated_at < requeue_before),
            )
        )
        .order_by(Job.updated_at)
        .limit(limit)
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
