"""Request and response bodies of the credits feature."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from soundstage.core.schemas import RequestModel
from soundstage.core.timeutil import Timestamp


class CreditBalanceOut(BaseModel):
    object: Literal["credit_balance"] = "credit_balance"
    environment: Literal["sandbox", "production"]
    balance: int = Field(description="Credits available to spend now.")
    reserved: int = Field(
        description="Credits held by running jobs; captured or returned when they end."
    )
    updated_at: Timestamp


class LedgerEntryOut(BaseModel):
    wallet: Literal["available", "reserved", "issued", "consumed"]
    amount: int = Field(
        description="Signed change of the wallet; a transaction's entries sum to 0."
    )


class CreditTransactionOut(BaseModel):
    object: Literal["credit_transaction"] = "credit_transaction"
    id: str
    type: Literal["grant", "reserve", "capture", "release"]
    amount: int
    operation: str | None
    reference: str | None
    reservation_id: str | None
    description: str | None
    entries: list[LedgerEntryOut]
    created_at: Timestamp


class SandboxTopUp(RequestModel):
    amount: int = Field(
        ge=1, le=10_000_000, description="Test credits to add to the sandbox balance."
    )
