"""HTTP endpoints of credits: balance, ledger, usage per day, sandbox top-up."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query

from soundstage.core.deps import PrincipalDep, SandboxPrincipalDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.params import QueryInt
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.credits import service
from soundstage.credits.schemas import (
    CreditBalanceOut,
    CreditTransactionOut,
    CreditUsageOut,
    LedgerEntryOut,
    SandboxTopUp,
)
from soundstage.models import CreditBalance, CreditEntry, CreditTransaction

router = APIRouter(prefix=API_V1, tags=["Credits"], route_class=UnitOfWorkRoute)


def _balance_out(balance: CreditBalance) -> CreditBalanceOut:
    """The balance row in the API's names (`available` is shown as `balance`)."""
    return CreditBalanceOut(
        environment=balance.environment,
        balance=balance.available,
        reserved=balance.reserved,
        updated_at=balance.updated_at,
    )


@router.get("/credits", response_model=CreditBalanceOut)
def get_credits(session: SessionDep, principal: PrincipalDep) -> CreditBalanceOut:
    """The caller's credit balance in the key's environment."""
    return _balance_out(service.get_balance(session, principal))


@router.get("/credits/ledger", response_model=ListResponse[CreditTransactionOut])
def list_ledger(
    session: SessionDep,
    principal: PrincipalDep,
    page: Annotated[PageParams, Depends(page_params)],
) -> ListResponse[CreditTransactionOut]:
    """Ledger transactions, newest first, each with its balanced entries."""
    rows, has_more = service.list_ledger(session, principal, page)
    data = [_transaction_out(t, entries) for t, entries in rows]
    return ListResponse[CreditTransactionOut](data=data, has_more=has_more)


@router.get("/credits/usage", response_model=CreditUsageOut, responses=errors(422))
def get_credit_usage(
    session: SessionDep,
    principal: PrincipalDep,
    days: Annotated[
        QueryInt,
        Query(ge=1, le=90, description="How many UTC days, today included: 1 to 90."),
    ] = 30,
) -> CreditUsageOut:
    """Credits captured (charged) per UTC day and per operation over the last `days` days,
    for the caller's account in the key's environment: what the ledger's `capture`
    transactions add up to, without paging through them. Reservations still held and
    released ones count nothing. `days` outside 1..90 is 422."""
    return service.usage(session, principal, days)


@router.get("/credits/ledger/{transaction_id}", response_model=CreditTransactionOut)
def get_ledger_transaction(
    transaction_id: str, session: SessionDep, principal: PrincipalDep
) -> CreditTransactionOut:
    """One ledger transaction of the caller's (404 for any other)."""
    return _transaction_out(*service.get_transaction(session, principal, transaction_id))


def _transaction_out(t: CreditTransaction, entries: list[CreditEntry]) -> CreditTransactionOut:
    """A transaction with its ledger entries, which are read beside it."""
    return CreditTransactionOut(
        id=t.id,
        type=t.type,
        amount=t.amount,
        operation=t.operation,
        reference=t.reference,
        reservation_id=t.reservation_id,
        description=t.description,
        created_at=t.created_at,
        entries=[LedgerEntryOut(wallet=e.wallet, amount=e.amount) for e in entries],
    )


@router.post(
    "/sandbox/credits",
    response_model=CreditBalanceOut,
    responses=errors(403, 422),
    tags=["Sandbox"],
)
def top_up_sandbox(
    body: SandboxTopUp, session: SessionDep, principal: SandboxPrincipalDep, settings: SettingsDep
) -> CreditBalanceOut:
    """Sandbox only: add test credits (a `grant` in the ledger). The sandbox balance
    (available plus reserved) holds at most `credits.sandbox_max_balance` credits, 10,000,000
    by default: a top-up past it is 422 `sandbox_balance_limit` naming `amount`."""
    max_balance = settings.credits.sandbox_max_balance
    service.top_up_sandbox(session, principal, body.amount, max_balance)
    return _balance_out(service.get_balance(session, principal))
