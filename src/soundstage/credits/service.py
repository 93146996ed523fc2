"""Credit balances and the double-entry ledger.

Wallets per account and environment: `available` and `reserved` are the customer's;
`issued` (the source of grants) and `consumed` (credits spent on work) are the platform's
side. Every transaction's entries sum to zero; `credit_balance` caches the customer's two
wallets and its CHECK constraints make an overdraft impossible.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta

from sqlalchemy.orm import Session

from soundstage.core import metrics
from soundstage.core.db import after_commit
from soundstage.core.errors import InsufficientCredits
from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.tenancy import Owner, owner_key
from soundstage.core.timeutil import utcnow
from soundstage.credits import repository
from soundstage.credits.errors import (
    CreditTransactionNotFound,
    ReservationNotFound,
    SandboxBalanceLimit,
)
from soundstage.credits.schemas import CreditUsageDayOut, CreditUsageOut, OperationUsageOut
from soundstage.models import CreditBalance, CreditEntry, CreditReservation, CreditTransaction
from soundstage.models.credits import CreditReservationStatus, CreditTransactionType, CreditWallet


def open_balance(session: Session, owner: Owner) -> CreditBalance:
    balance = repository.get_balance(session, owner)
    if balance is None:
        account_id, environment = owner_key(owner)
        balance = CreditBalance(
            account_id=account_id,
            environment=environment,
            available=0,
            reserved=0,
            updated_at=utcnow(),
        )
        repository.add(session, balance)
    return balance


def get_balance(session: Session, owner: Owner) -> CreditBalance:
    balance = repository.get_balance(session, owner)
    if balance is None:
        return open_balance(session, owner)
    return balance


def _record(
    session: Session,
    owner: Owner,
    type_: CreditTransactionType,
    amount: int,
    legs: list[tuple[CreditWallet, int]],
    *,
    reservation: CreditReservation | None = None,
    description: str | None = None,
) -> CreditTransaction:
    if sum(delta for _, delta in legs) != 0:
        raise ValueError(f"unbalanced credit transaction: {legs}")
    account_id, environment = owner_key(owner)
    transaction = {
        "id": new_id("ctx"),
        "account_id": account_id,
        "environment": environment,
        "type": type_,
        "amount": amount,
        "reservation_id": reservation.id if reservation else None,
        "operation": reservation.operation if reservation else None,
        "reference": reservation.reference if reservation else None,
        "description": description,
        "created_at": utcnow(),
    }
    entries = [
        {
            "transaction_id": transaction["id"],
            "account_id": account_id,
            "environment": environment,
            "wallet": wallet,
            "amount": delta,
        }
        for wallet, delta in legs
        if delta
    ]
    repository.record_transaction(session, transaction, entries)
    # The ledger is written without the unit of work (bench/job_overhead.py): what the caller
    # gets is the row as written, not one the session tracks.
    return CreditTransaction(**transaction)


def grant(
    session: Session, owner: Owner, amount: int, description: str = "grant"
) -> CreditTransaction:
    if amount <= 0:
        raise ValueError("a grant must be positive")
    open_balance(session, owner)
    repository.move(session, owner, available=amount, reserved=0, at=utcnow())
    return _record_grant(session, owner, amount, description)


def _record_grant(
    session: Session, owner: Owner, amount: int, description: str
) -> CreditTransaction:
    legs = [(CreditWallet.ISSUED, -amount), (CreditWallet.AVAILABLE, amount)]
    return _record(
        session,
        owner,
        CreditTransactionType.GRANT,
        amount,
        legs,
        description=description,
    )


def top_up_sandbox(
    session: Session, principal: Principal, amount: int, max_balance: int
) -> CreditTransaction:
    """Add test credits to a sandbox balance, which may not pass `max_balance` (available
    plus reserved) afterwards: 422 `sandbox_balance_limit` naming `amount` if it would. One
    conditional UPDATE, so concurrent top-ups cannot pass it either."""
    open_balance(session, principal)
    if not repository.add_below(session, principal, amount, max_balance, utcnow()):
        balance = get_balance(session, principal)
        held = balance.available + balance.reserved
        raise SandboxBalanceLimit(
            f"amount: a sandbox balance holds at most {max_balance:,} credits (available plus "
            f"reserved); it holds {held:,}, so at most {max(max_balance - held, 0):,} more "
            "can be added.",
            param="amount",
        )
    return _record_grant(session, principal, amount, "sandbox top-up")


def reserve(
    session: Session,
    principal: Principal,
    amount: int,
    operation: str,
    reference: str | None = None,
) -> CreditReservation:
    """Hold `amount` credits for work about to start; 402 when the balance cannot cover it."""
    if amount < 0:
        raise ValueError("a reservation cannot be negative")
    _hold(session, principal, amount, "")
    reservation = CreditReservation(
        id=new_id("crsv"),
        account_id=principal.account_id,
        environment=principal.environment,
        amount=amount,
        captured_amount=None,
        status=CreditReservationStatus.HELD,
        operation=operation,
        reference=reference,
        created_at=utcnow(),
        settled_at=None,
    )
    # Written without the unit of work, as the ledger is (_record): the caller gets the row
    # as written; what reads it again (capture, release, extend) loads it.
    repository.add_reservation(session, reservation)
    _record_hold(session, reservation, amount)
    return reservation


def _hold(session: Session, owner: Owner, amount: int, more: str) -> None:
    """Move `amount` from available to reserved; 402 when available cannot cover it."""
    if not repository.move(session, owner, available=-amount, reserved=amount, at=utcnow()):
        balance = get_balance(session, owner)
        raise InsufficientCredits(
            f"This operation needs {amount}{more} credits; the balance is {balance.available}."
        )


def _record_hold(session: Session, reservation: CreditReservation, amount: int) -> None:
    _record(
        session,
        reservation,
        CreditTransactionType.RESERVE,
        amount,
        [(CreditWallet.AVAILABLE, -amount), (CreditWallet.RESERVED, amount)],
        reservation=reservation,
    )


def extend(session: Session, reservation_id: str, amount: int) -> CreditReservation:
    """Hold `amount` more credits on a reservation still held (work whose size grows as it
    runs: a realtime session); 402 when the balance cannot cover it."""
    if amount <= 0:
        raise ValueError("an extension must be positive")
    reservation = _reservation(session, reservation_id)
    if not repository.grow_reservation(session, reservation_id, amount):
        raise ValueError(f"reservation {reservation_id} is no longer held")
    _hold(session, reservation, amount, " more")
    _record_hold(session, reservation, amount)
    return _reservation(session, reservation_id)


def capture(session: Session, reservation_id: str, amount: int) -> None:
    """Charge `amount` (at most what was held) and return the rest. Captures once: a second
    call, e.g. from a redelivered job, changes nothing."""
    reservation = _reservation(session, reservation_id)
    if not 0 <= amount <= reservation.amount:
        raise ValueError(f"capture of {amount} outside 0..{reservation.amount}")
    _settle(session, reservation, CreditReservationStatus.CAPTURED, amount)


def release(session: Session, reservation_id: str) -> None:
    """Return held credits untouched (failed or cancelled work). Idempotent."""
    _settle(session, _reservation(session, reservation_id), CreditReservationStatus.RELEASED, 0)


def _settle(
    session: Session,
    reservation: CreditReservation,
    status: CreditReservationStatus,
    charged: int,
) -> None:
    """End a held reservation once: `charged` credits are consumed, the rest returned."""
    now = utcnow()
    if not repository.settle_reservation(
        session, reservation.id, status=status, captured=charged, at=now
    ):
        return  # already settled: nothing moves
    held, rest = reservation.amount, reservation.amount - charged
    owner = reservation
    repository.move(session, owner, available=rest, reserved=-held, at=now)
    type_, amount = (
        (CreditTransactionType.CAPTURE, charged)
        if status == CreditReservationStatus.CAPTURED
        else (CreditTransactionType.RELEASE, held)
    )
    legs = [
        (CreditWallet.RESERVED, -held),
        (CreditWallet.CONSUMED, charged),
        (CreditWallet.AVAILABLE, rest),
    ]
    _record(session, owner, type_, amount, legs, reservation=reservation)
    if status == CreditReservationStatus.CAPTURED:
        operation = reservation.operation
        # Counted once the capture is committed (a unit that rolls back charged nothing).
        after_commit(session, lambda: metrics.count_credits_captured(operation, charged))


def _reservation(session: Session, reservation_id: str) -> CreditReservation:
    reservation = repository.get_reservation(session, reservation_id)
    if reservation is None:
        raise ReservationNotFound(f"No such reservation: {reservation_id}", param="reservation_id")
    return reservation


def get_transaction(
    session: Session, principal: Principal, transaction_id: str
) -> tuple[CreditTransaction, list[CreditEntry]]:
    transaction = repository.get_transaction(session, principal, transaction_id)
    if transaction is None:
        raise CreditTransactionNotFound(
            f"No such credit transaction: {transaction_id}", param="transaction_id"
        )
    return transaction, repository.entries_of(session, [transaction.id])


def list_ledger(
    session: Session, principal: Principal, params: PageParams
) -> tuple[list[tuple[CreditTransaction, list[CreditEntry]]], bool]:
    query = repository.transactions_query(principal)
    transactions, has_more = paginate(
        session, query, CreditTransaction, params, CreditTransactionNotFound
    )
    entries = repository.entries_of(session, [t.id for t in transactions])
    by_tx: dict[str, list[CreditEntry]] = {t.id: [] for t in transactions}
    for entry in entries:
        by_tx[entry.transaction_id].append(entry)
    return [(t, by_tx[t.id]) for t in transactions], has_more


def usage(session: Session, principal: Principal, days: int) -> CreditUsageOut:
    """Credits captured per UTC day and operation over the last `days` days (today
    included), for the principal's account in its environment. Summed by the database, so
    the answer's size follows `days` and the operations, never the number of charges."""
    end = utcnow().date()
    start = end - timedelta(days=days - 1)
    since = datetime.combine(start, time.min, tzinfo=UTC)
    per_day: dict[str, dict[str, int]] = defaultdict(dict)
    for day, operation, credits in repository.captured_per_day(session, principal, since):
        per_day[day][operation] = per_day[day].get(operation, 0) + credits
    window = [start + timedelta(days=n) for n in range(days)]
    days_out = [_usage_day(on, per_day.get(on.isoformat(), {})) for on in window]
    return CreditUsageOut(
        environment=principal.environment,
        start_date=start,
        end_date=end,
        credits=sum(day.credits for day in days_out),
        days=days_out,
    )


@dataclass(frozen=True)
class CapturedBucket:
    """What one operation was charged in one time bucket (see `captured_per_bucket`)."""

    bucket: int
    operation: str
    credits: int
    captures: int


def captured_per_bucket(
    session: Session,
    principal: Principal,
    since: datetime,
    until: datetime,
    *,
    origin: datetime,
    bucket_seconds: int,
) -> list[CapturedBucket]:
    """Credits captured (and how many captures) per operation from `since` to `until` (both
    included), in the buckets of `bucket_seconds` counted from `origin` (at or before
    `since`; bucket n starts n buckets after it), for the principal's account in its
    environment. Summed by the database: the answer's size follows the buckets and the
    operations, never the number of charges."""
    if bucket_seconds <= 0 or origin > since:
        raise ValueError("buckets of a positive length, from an origin at or before `since`")
    rows = repository.captured_per_bucket(
        session, principal, since, until, int(origin.timestamp()), bucket_seconds
    )
    return [CapturedBucket(*row) for row in rows]


def _usage_day(on: date, operations: dict[str, int]) -> CreditUsageDayOut:
    return CreditUsageDayOut(
        date=on,
        credits=sum(operations.values()),
        operations=[
            OperationUsageOut(operation=name, credits=credits)
            for name, credits in sorted(operations.items())
        ],
    )
