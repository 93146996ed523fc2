"""Credit balances, the double-entry ledger and reservations."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class CreditTransactionType(StrEnum):
    """What a ledger transaction did; stored as its string value."""

    GRANT = "grant"
    RESERVE = "reserve"
    CAPTURE = "capture"
    RELEASE = "release"


class CreditWallet(StrEnum):
    """The wallets a ledger entry moves credits between; stored as its string value.
    `available` and `reserved` are the customer's; `issued` (the source of grants) and
    `consumed` (credits spent on work) are the platform's side."""

    AVAILABLE = "available"
    RESERVED = "reserved"
    ISSUED = "issued"
    CONSUMED = "consumed"


class CreditReservationStatus(StrEnum):
    """A credit reservation is held until settled once, captured or released; stored as its
    string value."""

    HELD = "held"
    CAPTURED = "captured"
    RELEASED = "released"


class CreditBalance(Base):
    """Cached sums of the ledger's `available` and `reserved` wallets, guarded by CHECKs."""

    __tablename__ = "credit_balance"
    __table_args__ = (
        CheckConstraint("available >= 0", name="available_not_negative"),
        CheckConstraint("reserved >= 0", name="reserved_not_negative"),
    )

    account_id: Mapped[str] = mapped_column(ForeignKey("account.id"), primary_key=True)
    environment: Mapped[str] = mapped_column(String(16), primary_key=True)
    available: Mapped[int] = mapped_column(BigInteger, default=0)
    reserved: Mapped[int] = mapped_column(BigInteger, default=0)
    updated_at: Mapped[datetime]


class CreditTransaction(CustomerOwned, Timestamped, Base):
    """One balanced movement of credits: its entries sum to zero."""

    __tablename__ = "credit_transaction"
    __table_args__ = (
        Index("ix_credit_transaction_owner_created", "account_id", "environment", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    type: Mapped[str] = mapped_column(String(16))  # a CreditTransactionType value
    amount: Mapped[int] = mapped_column(BigInteger)
    reservation_id: Mapped[str | None] = mapped_column(String(40), default=None)
    operation: Mapped[str | None] = mapped_column(String(40), default=None)
    reference: Mapped[str | None] = mapped_column(String(80), default=None)
    description: Mapped[str | None] = mapped_column(String(200), default=None)


class CreditEntry(CustomerOwned, Base):
    """One leg of a transaction on one wallet. Append-only."""

    __tablename__ = "credit_entry"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    transaction_id: Mapped[str] = mapped_column(ForeignKey("credit_transaction.id"), index=True)
    # A CreditWallet value.
    wallet: Mapped[str] = mapped_column(String(16))
    amount: Mapped[int] = mapped_column(BigInteger)


class CreditReservation(CustomerOwned, Timestamped, Base):
    __tablename__ = "credit_reservation"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    amount: Mapped[int] = mapped_column(BigInteger)
    captured_amount: Mapped[int | None] = mapped_column(BigInteger, default=None)
    status: Mapped[str] = mapped_column(String(16))  # a CreditReservationStatus value
    operation: Mapped[str] = mapped_column(String(40))
    reference: Mapped[str | None] = mapped_column(String(80), default=None)
    settled_at: Mapped[datetime | None] = mapped_column(default=None)
