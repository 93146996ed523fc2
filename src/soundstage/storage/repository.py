"""All SQL of media objects and of storage usage. Usage changes are single conditional
UPDATEs (as credits/repository.py): concurrent saves can never pass the quota."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.orm import Session

from soundstage.core.tenancy import Owned, owner_key, select_owned, update_owned
from soundstage.models import MediaObject, StorageUsage
from soundstage.models.media import MediaPurpose


def add(session: Session, media: MediaObject) -> None:
    session.add(media)
    session.flush()


def get(session: Session, media_id: str) -> MediaObject | None:
    return session.get(MediaObject, media_id)


def get_owned(session: Session, owner: Owned, media_id: str) -> MediaObject | None:
    stmt = select_owned(MediaObject, owner).where(MediaObject.id == media_id)
    return session.scalars(stmt).first()


def owned_by_id(session: Session, owner: Owned, media_ids: list[str]) -> list[MediaObject]:
    if not media_ids:
        return []
    stmt = select_owned(MediaObject, owner).where(MediaObject.id.in_(media_ids))
    return list(session.scalars(stmt))


def _open_usage(session: Session, owner: Owned) -> None:
    """The account's usage row, created at 0 if missing (a concurrent creation is no error)."""
    values: dict[str, Any] = {
        "account_id": owner.account_id,
        "environment": owner.environment,
        "used_bytes": 0,
    }
    if session.get_bind().dialect.name == "postgresql":
        session.execute(pg_insert(StorageUsage).values(**values).on_conflict_do_nothing())
    else:
        session.execute(sqlite_insert(StorageUsage).values(**values).on_conflict_do_nothing())


def take(session: Session, owner: Owned, size: int, quota: int) -> bool:
    """Count `size` more bytes unless the usage would pass `quota`. True when counted."""
    _open_usage(session, owner)
    stmt = (
        update_owned(StorageUsage, owner)
        .where(StorageUsage.used_bytes + size <= quota)
        .values(used_bytes=StorageUsage.used_bytes + size)
        .execution_options(synchronize_session=False)
    )
    return bool(session.execute(stmt).rowcount == 1)  # type: ignore[attr-defined]


def free(session: Session, owner: Owned, size: int) -> None:
    stmt = (
        update_owned(StorageUsage, owner)
        .where(StorageUsage.used_bytes >= size)
        .values(used_bytes=StorageUsage.used_bytes - size)
        .execution_options(synchronize_session=False)
    )
    session.execute(stmt)


def used(session: Session, owner: Owned) -> int:
    usage = session.get(StorageUsage, owner_key(owner), populate_existing=True)
    return usage.used_bytes if usage is not None else 0


def expired(session: Session, now: datetime, limit: int) -> list[MediaObject]:
    """Live objects past their expiry, oldest first."""
    stmt = (
        select(MediaObject)
        .where(MediaObject.deleted_at.is_(None), MediaObject.expires_at <= now)
        .order_by(MediaObject.expires_at, MediaObject.id)
        .limit(limit)
    )
    return list(session.scalars(stmt))


def live_outputs_of_job(session: Session, job_id: str) -> list[MediaObject]:
    stmt = select(MediaObject).where(
        MediaObject.job_id == job_id,
        MediaObject.purpose == MediaPurpose.OUTPUT,
        MediaObject.deleted_at.is_(None),
    )
    return list(session.scalars(stmt))


def mark_deleted(session: Session, media_id: str, now: datetime) -> bool:
    """Mark the object deleted once: False when another sweeper (or a rollback) did."""
    stmt = (
        update(MediaObject)
        .where(MediaObject.id == media_id, MediaObject.deleted_at.is_(None))
        .values(deleted_at=now)
        .execution_options(synchronize_session=False)
    )
    return bool(session.execute(stmt).rowcount == 1)  # type: ignore[attr-defined]
