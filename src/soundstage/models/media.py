"""Media objects: uploads and job outputs kept by the storage backend, and each account's
storage usage."""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum

from sqlalchemy import BigInteger, CheckConstraint, ForeignKey, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class MediaPurpose(StrEnum):
    """Why a media object was kept: a caller's upload, a job's output, or an input fetched for
    a job; stored as its string value."""

    UPLOAD = "upload"
    OUTPUT = "output"
    INPUT = "input"


class MediaObject(CustomerOwned, Timestamped, Base):
    __tablename__ = "media_object"
    __table_args__ = (
        Index("ix_media_object_owner_created", "account_id", "environment", "created_at"),
        # The sweeper's query: live objects past their expiry, oldest first.
        Index("ix_media_object_live_expiry", "deleted_at", "expires_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(16))  # a MediaPurpose value
    filename: Mapped[str] = mapped_column(String(200))
    content_type: Mapped[str] = mapped_column(String(100))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    duration_ms: Mapped[int | None] = mapped_column(BigInteger, default=None)
    storage_key: Mapped[str] = mapped_column(String(300))
    job_id: Mapped[str | None] = mapped_column(String(40), default=None, index=True)
    # created_at + storage.retention_seconds; the media answer 410 from then on.
    expires_at: Mapped[datetime]
    # When the sweeper deleted the bytes (the row stays, so its URLs answer 410, not 404).
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)


class StorageUsage(Base):
    """Bytes of live media of an account in an environment, the quota's counter: taken and
    freed by single conditional UPDATEs, never read-then-written."""

    __tablename__ = "storage_usage"
    __table_args__ = (CheckConstraint("used_bytes >= 0", name="used_not_negative"),)

    account_id: Mapped[str] = mapped_column(ForeignKey("account.id"), primary_key=True)
    environment: Mapped[str] = mapped_column(String(16), primary_key=True)
    used_bytes: Mapped[int] = mapped_column(BigInteger, default=0)
