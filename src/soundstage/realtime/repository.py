"""All SQL of realtime sessions: their single-use tokens."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import delete, update
from sqlalchemy.orm import Session

from soundstage.models import RealtimeToken


def add_token(session: Session, token: RealtimeToken) -> None:
    session.add(token)
    session.flush()


def use_token(session: Session, token_hash: str, purpose: str, now: datetime) -> str | None:
    """Mark the token used if it is unused, unexpired and for `purpose`, in one statement
    (two sessions racing with one token: one wins); the id of the key that minted it."""
    stmt = (
        update(RealtimeToken)
        .where(
            RealtimeToken.id == token_hash,
            RealtimeToken.purpose == purpose,
            RealtimeToken.used_at.is_(None),
            RealtimeToken.expires_at > now,
        )
        .values(used_at=now)
        .returning(RealtimeToken.api_key_id)
        .execution_options(synchronize_session=False)
    )
    row = session.execute(stmt).first()
    return str(row[0]) if row is not None else None


def delete_expired(session: Session, before: datetime) -> int:
    stmt = delete(RealtimeToken).where(RealtimeToken.expires_at < before)
    return int(session.execute(stmt).rowcount)  # type: ignore[attr-defined]
