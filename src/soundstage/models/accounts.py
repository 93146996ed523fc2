"""Accounts, API keys and buyer verification."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import ForeignKey, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class Account(Timestamped, Base):
    __tablename__ = "account"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    name: Mapped[str] = mapped_column(String(200))


class ApiKey(Timestamped, Base):
    __tablename__ = "api_key"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    account_id: Mapped[str] = mapped_column(ForeignKey("account.id"), index=True)
    environment: Mapped[str] = mapped_column(String(16))
    # sha256 of the whole secret; the secret itself is shown once and never stored.
    secret_hash: Mapped[str] = mapped_column(String(64), unique=True)
    # The first characters, to tell keys apart in listings ("sk_sandbox_Ab3d…").
    display_prefix: Mapped[str] = mapped_column(String(32))
    # The holder's label ("CI", "console"), optional.
    name: Mapped[str | None] = mapped_column(String(100), default=None)
    revoked_at: Mapped[datetime | None] = mapped_column(default=None)


class BuyerVerificationStatus(StrEnum):
    """Where a buyer's verification is (accounts.verification): stored as its string value,
    so a member compares equal to the stored text."""

    UNVERIFIED = "unverified"
    PENDING = "pending"
    VERIFIED = "verified"
    REJECTED = "rejected"


class BuyerVerification(CustomerOwned, Timestamped, Base):
    __tablename__ = "buyer_verification"
    __table_args__ = (UniqueConstraint("account_id", "environment"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    # A BuyerVerificationStatus value.
    status: Mapped[str] = mapped_column(String(16))
    legal_name: Mapped[str | None] = mapped_column(String(200))
    country: Mapped[str | None] = mapped_column(String(2))
    contact_email: Mapped[str | None] = mapped_column(String(320))
    tax_id: Mapped[str | None] = mapped_column(String(64))
    submitted_at: Mapped[datetime | None] = mapped_column(default=None)
    verified_at: Mapped[datetime | None] = mapped_column(default=None)
    rejected_at: Mapped[datetime | None] = mapped_column(default=None)
    updated_at: Mapped[datetime]
