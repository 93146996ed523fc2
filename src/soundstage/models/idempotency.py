"""Stored answers of POSTs sent with an Idempotency-Key."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import Integer, LargeBinary, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, Timestamped


class IdempotencyRecordStatus(StrEnum):
    """An idempotency record is in flight while its request runs, completed once its answer
    is stored; stored as its string value."""

    IN_FLIGHT = "in_flight"
    COMPLETED = "completed"


class IdempotencyRecord(Timestamped, Base):
    __tablename__ = "idempotency_record"
    __table_args__ = (UniqueConstraint("api_key_id", "key"),)

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    api_key_id: Mapped[str] = mapped_column(String(40))
    key: Mapped[str] = mapped_column(String(255))
    fingerprint: Mapped[str] = mapped_column(String(64))
    status: Mapped[str] = mapped_column(String(16))  # an IdempotencyRecordStatus value
    locked_at: Mapped[datetime]
    # While in flight: the holding request's token and the end of its lease, which the
    # request renews as it runs; a lease that ran out belongs to a request that died.
    owner: Mapped[str | None] = mapped_column(String(32), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)
    # The job the request created (written in the job's own transaction): a retry after the
    # request died resumes this job instead of submitting and paying for another.
    job_id: Mapped[str | None] = mapped_column(String(40), default=None)
    expires_at: Mapped[datetime] = mapped_column(index=True)
    response_status: Mapped[int | None] = mapped_column(Integer, default=None)
    response_content_type: Mapped[str | None] = mapped_column(Text, default=None)
    response_body: Mapped[bytes | None] = mapped_column(LargeBinary, default=None)
