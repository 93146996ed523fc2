"""Request and response bodies of the credits feature."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from soundstage.core.schemas import CalendarDate, RequestModel
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


class OperationUsageOut(BaseModel):
    operation: str = Field(description="The operation charged: `tts`, `stt`, `music`, …")
    credits: int = Field(description="Credits captured for it that day.")


class CreditUsageDayOut(BaseModel):
    date: CalendarDate = Field(description="A UTC day.")
    credits: int = Field(description="Credits captured that day, every operation together.")
    operations: list[OperationUsageOut] = Field(
        description="Credits captured that day per operation, by operation name; operations "
        "with no charge that day are left out."
    )


class CreditUsageOut(BaseModel):
    object: Literal["credit_usage"] = "credit_usage"
    environment: Literal["sandbox", "production"]
    start_date: CalendarDate = Field(description="The first UTC day of the window.")
    end_date: CalendarDate = Field(description="The last UTC day of the window: today.")
    credits: int = Field(description="Credits captured in the whole window.")
    days: list[CreditUsageDayOut] = Field(
        description="Every day of the window, oldest first, days without charges included (with 0)."
    )


class SandboxTopUp(RequestModel):
    amount: int = Field(
        ge=1, le=10_000_000, description="Test credits to add to the sandbox balance."
    )
