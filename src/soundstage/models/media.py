"""Media objects: uploads and job outputs kept by the storage backend."""

from __future__ import annotations

from sqlalchemy import BigInteger, Index, String
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import Base, CustomerOwned, Timestamped


class MediaObject(CustomerOwned, Timestamped, Base):
    __tablename__ = "media_object"
    __table_args__ = (
        Index("ix_media_object_owner_created", "account_id", "environment", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    purpose: Mapped[str] = mapped_column(String(16))  # upload | output
    filename: Mapped[str] = mapped_column(String(200))
    content_type: Mapped[str] = mapped_column(String(100))
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    duration_ms: Mapped[int | None] = mapped_column(BigInteger, default=None)
    storage_key: Mapped[str] = mapped_column(String(300))
    job_id: Mapped[str | None] = mapped_column(String(40), default=None, index=True)
