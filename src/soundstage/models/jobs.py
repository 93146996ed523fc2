"""Jobs: the source of truth for every speech and creative operation."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import JSON, BigInteger, Boolean, Float, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class JobStatus(StrEnum):
    """Where a job is in its life. Stored as its string value (the column is a string):
    a member compares equal to the stored text, so rows written before the enum read alike."""

    QUEUED = "queued"
    PROCESSING = "processing"
    COMPLETED = "completed"
    FAILED = "failed"
    CANCELLED = "cancelled"


# A job in one of these states has ended: nothing moves it again.
TERMINAL_STATUSES: frozenset[JobStatus] = frozenset(
    {JobStatus.COMPLETED, JobStatus.FAILED, JobStatus.CANCELLED}
)
# A job in one of these states may still run (and be cancelled).
ACTIVE_STATUSES: tuple[JobStatus, ...] = (JobStatus.QUEUED, JobStatus.PROCESSING)


class Job(CustomerOwned, Timestamped, Base):
    __tablename__ = "job"
    __table_args__ = (
        Index("ix_job_owner_created", "account_id", "environment", "created_at"),
        Index("ix_job_status_lease", "status", "lease_expires_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    kind: Mapped[str] = mapped_column(String(40))
    # A JobStatus value.
    status: Mapped[str] = mapped_column(String(16))
    is_async: Mapped[bool] = mapped_column(Boolean, default=False)
    progress: Mapped[float] = mapped_column(Float, default=0.0)
    stage: Mapped[str | None] = mapped_column(String(40), default=None)
    request: Mapped[dict[str, Any]] = mapped_column(JSON)
    result: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    error: Mapped[dict[str, Any] | None] = mapped_column(JSON, default=None)
    reservation_id: Mapped[str | None] = mapped_column(String(40), default=None)
    credits_reserved: Mapped[int] = mapped_column(BigInteger, default=0)
    credits_used: Mapped[int | None] = mapped_column(BigInteger, default=None)
    # What the job has already handed over costs (a stream's pieces released to its
    # client): every end of the job, a cancel or a failure too, charges at least this.
    credits_delivered: Mapped[int] = mapped_column(BigInteger, default=0, server_default="0")
    estimated_completion_ms: Mapped[int | None] = mapped_column(BigInteger, default=None)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    lease_owner: Mapped[str | None] = mapped_column(String(80), default=None)
    lease_expires_at: Mapped[datetime | None] = mapped_column(default=None)
    updated_at: Mapped[datetime]
    started_at: Mapped[datetime | None] = mapped_column(default=None)
    completed_at: Mapped[datetime | None] = mapped_column(default=None)
    # When its owner deleted the job's stored outputs (their URLs answer 410 from then on);
    # the job itself, its charge and its ledger entries stay.
    outputs_deleted_at: Mapped[datetime | None] = mapped_column(default=None)


class JobTurn(Base):
    """When a job of an owner (an account in one environment) last started in a worker: of
    the owners with as few jobs running, workers serve the one served longest ago first
    (jobs.repository.claim_next), so that owners with work waiting take turns. Written only
    by the claim, under its lock."""

    __tablename__ = "job_turn"

    account_id: Mapped[str] = mapped_column(String(40), primary_key=True)
    environment: Mapped[str] = mapped_column(String(16), primary_key=True)
    served_at: Mapped[datetime]
