"""All SQL of licenses. A buyer sees its own (account and environment); a creator's account
sees the requests addressed to its creators in the environment of its key."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, select, update
from sqlalchemy.orm import Session

from soundstage.core.tenancy import Owned, select_owned
from soundstage.models import Creator, License
from soundstage.models.workforce import LicenseStatus


def add(session: Session, license_: License) -> None:
    session.add(license_)
    session.flush()


def owned_query(owner: Owned) -> Select[Any]:
    return select_owned(License, owner)


def addressed_query(talent: Owned) -> Select[Any]:
    """Licenses of the creators the account speaks for, requested in its environment."""
    return (
        select(License)
        .join(Creator, Creator.id == License.creator_id)
        .where(Creator.account_id == talent.account_id, License.environment == talent.environment)
    )


def status_is(status: str, now: datetime) -> ColumnElement[bool]:
    """Stored states, and `expired`: a completed license whose term has ended."""
    if status == "expired":
        return and_(License.status == LicenseStatus.COMPLETED, License.ends_at <= now)
    if status == LicenseStatus.COMPLETED:
        return and_(License.status == LicenseStatus.COMPLETED, License.ends_at > now)
    return License.status == status


def first(session: Session, stmt: Select[Any]) -> License | None:
    found: License | None = session.scalars(stmt).first()
    return found


def transition(
    session: Session, license_id: str, from_states: Sequence[LicenseStatus], values: dict[str, Any]
) -> bool:
    """Move the license on if it is still in one of `from_states` (one conditional UPDATE,
    so two concurrent answers cannot both win); whether it moved."""
    result = session.execute(
        update(License)
        .where(License.id == license_id, License.status.in_(from_states))
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    moved = bool(result.rowcount == 1)  # type: ignore[attr-defined]
    session.flush()
    return moved


def refresh(session: Session, license_: License) -> License:
    session.refresh(license_)
    return license_
