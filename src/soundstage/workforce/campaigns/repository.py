"""All SQL of campaigns; every query carries the owner's account and environment."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Select, update
from sqlalchemy.orm import Session

from soundstage.core.tenancy import Owned, select_owned
from soundstage.models import Campaign
from soundstage.models.workforce import CampaignStatus


def add(session: Session, campaign: Campaign) -> None:
    session.add(campaign)
    session.flush()


def owned_query(owner: Owned) -> Select[Any]:
    return select_owned(Campaign, owner)


def first(session: Session, stmt: Select[Any]) -> Campaign | None:
    found: Campaign | None = session.scalars(stmt).first()
    return found


def close(session: Session, campaign: Campaign, values: dict[str, Any]) -> bool:
    """Close it if it is still open (one conditional UPDATE); whether it was."""
    result = session.execute(
        update(Campaign)
        .where(Campaign.id == campaign.id, Campaign.status == CampaignStatus.OPEN)
        .values(**values)
        .execution_options(synchronize_session=False)
    )
    session.flush()
    session.refresh(campaign)
    return bool(result.rowcount == 1)  # type: ignore[attr-defined]
