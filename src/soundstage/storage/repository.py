"""All SQL of media objects."""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from soundstage.models import MediaObject


def add(session: Session, media: MediaObject) -> None:
    session.add(media)
    session.flush()


def get(session: Session, media_id: str) -> MediaObject | None:
    return session.get(MediaObject, media_id)


def get_owned(
    session: Session, account_id: str, environment: str, media_id: str
) -> MediaObject | None:
    stmt = select(MediaObject).where(
        MediaObject.id == media_id,
        MediaObject.account_id == account_id,
        MediaObject.environment == environment,
    )
    return session.scalars(stmt).first()
