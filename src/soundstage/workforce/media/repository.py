"""All SQL of licensed media: what a buyer holds under completed licenses still running."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session

from soundstage.core.tenancy import Owned, owned
from soundstage.models import License, LicensedMedia
from soundstage.models.workforce import LicenseStatus


def add_all(session: Session, rows: Sequence[LicensedMedia]) -> None:
    session.add_all(rows)
    session.flush()


def held_query(owner: Owned, now: datetime) -> Select[Any]:
    return (
        select(LicensedMedia)
        .join(License, License.id == LicensedMedia.license_id)
        .where(
            owned(LicensedMedia, owner),
            License.status == LicenseStatus.COMPLETED,
            License.ends_at > now,
        )
    )


def licenses_by_id(session: Session, license_ids: Iterable[str]) -> dict[str, License]:
    ids = set(license_ids)
    if not ids:
        return {}
    return {x.id: x for x in session.scalars(select(License).where(License.id.in_(ids)))}
