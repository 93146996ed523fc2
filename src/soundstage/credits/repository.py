"""All SQL of credits. Balance changes are single conditional UPDATEs, so concurrent
reservations can never overdraw (PostgreSQL re-checks the WHERE on the locked row;
SQLite serializes writers)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import (
    BigInteger,
    ColumnElement,
    Select,
    bindparam,
    cast,
    func,
    insert,
    literal_column,
    select,
    update,
)
from sqlalchemy.orm import Session

from soundstage.core.tenancy import (
    Owner,
    owned,
    owned_by_parameters,
    owner_parameters,
    select_owned,
    select_owned_by_parameters,
    update_owned,
)
from soundstage.models import CreditBalance, CreditEntry, CreditReservation, CreditTransaction
from soundstage.models.credits import CreditReservationStatus, CreditTransactionType


def add(session: Session, obj: object) -> None:
    session.add(obj)
    session.flush()


def add_reservation(session: Session, reservation: CreditReservation) -> None:
    """Insert a new reservation (a transient object) in one INSERT, without tracking it."""
    columns = CreditReservation.__table__.columns
    session.execute(
        insert(CreditReservation), [{c.key: getattr(reservation, c.key) for c in columns}]
    )


def record_transaction(
    session: Session, transaction: dict[str, Any], entries: list[dict[str, Any]]
) -> None:
    """Insert a ledger transaction and its entries (column values): two INSERTs, without the
    unit of work's bookkeeping."""
    session.execute(insert(CreditTransaction), [transaction])
    if entries:
        session.execute(insert(CreditEntry), entries)


def get_balance(session: Session, owner: Owner) -> CreditBalance | None:
    """The balance as the database holds it now (a copy the session had is refreshed: the
    ledger moves balances with conditional UPDATEs), in one SELECT. A query rather than
    `Session.get`, whose identity lookup and per-call statement cost every balance read about
    50 µs more (bench/api_overhead.py reads one per request)."""
    query = select_owned_by_parameters(CreditBalance)
    options = {"populate_existing": True}
    return session.scalars(query, owner_parameters(owner), execution_options=options).one_or_none()


# The statements every job runs twice (reserve at submit, capture or release at its end) are
# built once with bound parameters: building their clauses per call cost about a millisecond
# of Python each on a slow core, inside the write transaction (bench/job_overhead.py).
_DELTA_AVAILABLE = bindparam("delta_available", type_=BigInteger())
_DELTA_RESERVED = bindparam("delta_reserved", type_=BigInteger())
_MOVE = (
    update(CreditBalance)
    .where(
        owned_by_parameters(CreditBalance),
        CreditBalance.available + _DELTA_AVAILABLE >= 0,
        CreditBalance.reserved + _DELTA_RESERVED >= 0,
    )
    .values(
        available=CreditBalance.available + _DELTA_AVAILABLE,
        reserved=CreditBalance.reserved + _DELTA_RESERVED,
        updated_at=bindparam("at"),
    )
    .execution_options(synchronize_session=False)
)


def move(
    session: Session,
    owner: Owner,
    *,
    available: int,
    reserved: int,
    at: datetime,
) -> bool:
    """Add the deltas to the balance unless a side would go negative. True when applied."""
    parameters = {
        **owner_parameters(owner),
        "delta_available": available,
        "delta_reserved": reserved,
        "at": at,
    }
    return bool(session.execute(_MOVE, parameters).rowcount == 1)  # type: ignore[attr-defined]


def add_below(session: Session, owner: Owner, amount: int, ceiling: int, at: datetime) -> bool:
    """Add `amount` to `available` unless available + reserved would pass `ceiling`."""
    stmt = (
        update_owned(CreditBalance, owner)
        .where(CreditBalance.available + CreditBalance.reserved + amount <= ceiling)
        .values(available=CreditBalance.available + amount, updated_at=at)
        .execution_options(synchronize_session=False)
    )
    return bool(session.execute(stmt).rowcount == 1)  # type: ignore[attr-defined]


_SETTLE = (
    update(CreditReservation)
    .where(
        CreditReservation.id == bindparam("reservation_id"),
        CreditReservation.status == CreditReservationStatus.HELD,
    )
    .values(
        status=bindparam("status"),
        captured_amount=bindparam("captured"),
        settled_at=bindparam("at"),
    )
    .execution_options(synchronize_session=False)
)


def settle_reservation(
    session: Session,
    reservation_id: str,
    *,
    status: CreditReservationStatus,
    captured: int | None,
    at: datetime,
) -> bool:
    """Move a held reservation to captured/released; False when it was already settled."""
    parameters = {
        "reservation_id": reservation_id,
        "status": status,
        "captured": captured,
        "at": at,
    }
    return bool(session.execute(_SETTLE, parameters).rowcount == 1)  # type: ignore[attr-defined]


def grow_reservation(session: Session, reservation_id: str, amount: int) -> bool:
    """Add `amount` to a held reservation; False when it is no longer held."""
    stmt = (
        update(CreditReservation)
        .where(
            CreditReservation.id == reservation_id,
            CreditReservation.status == CreditReservationStatus.HELD,
        )
        .values(amount=CreditReservation.amount + amount)
        .execution_options(synchronize_session=False)
    )
    return bool(session.execute(stmt).rowcount == 1)  # type: ignore[attr-defined]


def get_reservation(session: Session, reservation_id: str) -> CreditReservation | None:
    return session.get(CreditReservation, reservation_id, populate_existing=True)


def transactions_query(owner: Owner) -> Select[CreditTransaction]:
    return select_owned(CreditTransaction, owner)


def get_transaction(
    session: Session, owner: Owner, transaction_id: str
) -> CreditTransaction | None:
    query = transactions_query(owner).where(CreditTransaction.id == transaction_id)
    return session.scalars(query).first()


def entries_of(session: Session, transaction_ids: list[str]) -> list[CreditEntry]:
    if not transaction_ids:
        return []
    stmt = (
        select(CreditEntry)
        .where(CreditEntry.transaction_id.in_(transaction_ids))
        .order_by(CreditEntry.id)
    )
    return list(session.scalars(stmt))


def _transaction_day(session: Session) -> ColumnElement[object]:
    """The UTC calendar day of a transaction's `created_at`. SQLite keeps the UTC wall clock as text
    (`date()` reads its day); PostgreSQL's `timestamptz` is converted to UTC first, whatever
    the session's time zone."""
    moment = CreditTransaction.created_at
    if session.get_bind().dialect.name == "postgresql":
        return func.date(moment.op("AT TIME ZONE")(literal_column("'UTC'")))
    return func.date(moment)


def captured_per_day(session: Session, owner: Owner, since: datetime) -> list[tuple[str, str, int]]:
    """(UTC day as YYYY-MM-DD, operation, credits) of the owner's captures from `since` on,
    summed in the database (one row per day and operation, however many charges)."""
    day = _transaction_day(session)
    stmt = (
        select(day, CreditTransaction.operation, func.sum(CreditTransaction.amount))
        .where(
            owned(CreditTransaction, owner),
            CreditTransaction.created_at >= since,
            CreditTransaction.type == CreditTransactionType.CAPTURE,
            CreditTransaction.amount > 0,
        )
        .group_by(day, CreditTransaction.operation)
    )
    return [
        (str(on)[:10], operation or "other", int(total))
        for on, operation, total in session.execute(stmt)
    ]


def _epoch_second(session: Session) -> ColumnElement[int]:
    """The Unix second of a transaction's `created_at` (its fraction dropped). SQLite reads
    the UTC wall clock it keeps as text; PostgreSQL's `timestamptz` is an instant already."""
    moment = CreditTransaction.created_at
    if session.get_bind().dialect.name == "postgresql":
        return cast(func.floor(func.extract("epoch", moment)), BigInteger)
    return cast(func.strftime("%s", moment), BigInteger)


def captured_per_bucket(
    session: Session, owner: Owner, since: datetime, until: datetime, origin: int, seconds: int
) -> list[tuple[int, str, int, int]]:
    """(bucket, operation, credits, captures) of the owner's captures from `since` to `until`
    (both included), bucket n holding the `seconds` from Unix second `origin + n * seconds`
    (`origin` at or before `since`), summed in the database (one row per bucket and operation,
    however many charges)."""
    bucket = (_epoch_second(session) - origin) // seconds
    stmt = (
        select(
            bucket,
            CreditTransaction.operation,
            func.sum(CreditTransaction.amount),
            func.count(CreditTransaction.id),
        )
        .where(
            owned(CreditTransaction, owner),
            CreditTransaction.created_at >= since,
            CreditTransaction.created_at <= until,
            CreditTransaction.type == CreditTransactionType.CAPTURE,
            CreditTransaction.amount > 0,
        )
        .group_by(bucket, CreditTransaction.operation)
    )
    return [
        (int(index), operation or "other", int(total), int(count))
        for index, operation, total, count in session.execute(stmt)
    ]
