"""HTTP endpoints of campaign briefs: open to any account; the talent they match is shown to
verified buyers only (discovery is gated)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Path, Query

from soundstage.core.deps import PrincipalDep, SessionDep
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.workforce.campaigns import service
from soundstage.workforce.campaigns.schemas import CampaignCreate, CampaignOut, CampaignStatus

router = APIRouter(prefix=f"{API_V1}/workforce", tags=["Workforce"], route_class=UnitOfWorkRoute)
CampaignId = Annotated[str, Path(min_length=1, max_length=40, description="The campaign's id.")]


@router.post("/campaign", response_model=CampaignOut)
def create_campaign(body: CampaignCreate, session: SessionDep, buyer: PrincipalDep) -> CampaignOut:
    """Post a casting brief. The answer is the campaign, `open`, with the best-matching
    talent: creators who speak one of `languages` and offer `usage_type` at a base fee within
    `budget_cents`, ranked by shared roles and genres, verification and rating. Open to any
    account; until the caller is a verified buyer, `matches` is empty and `matches_withheld`
    true (the matches are kept, and shown once verification passes)."""
    return service.post_campaign(session, buyer, body)


@router.get("/campaigns", response_model=ListResponse[CampaignOut])
def list_campaigns(
    session: SessionDep,
    buyer: PrincipalDep,
    page: Annotated[PageParams, Depends(page_params)],
    status: Annotated[
        CampaignStatus | None, Query(description="Only campaigns in this state.")
    ] = None,
) -> ListResponse[CampaignOut]:
    """The caller's campaigns, newest first."""
    campaigns, has_more = service.list_campaigns(session, buyer, page, status=status)
    return ListResponse[CampaignOut](data=campaigns, has_more=has_more)


@router.get("/campaigns/{campaign_id}", response_model=CampaignOut)
def get_campaign(campaign_id: CampaignId, session: SessionDep, buyer: PrincipalDep) -> CampaignOut:
    """One of the caller's campaigns (404 `campaign_not_found`)."""
    return service.get_campaign(session, buyer, campaign_id)


@router.post("/campaigns/{campaign_id}/close", response_model=CampaignOut)
def close_campaign(
    campaign_id: CampaignId, session: SessionDep, buyer: PrincipalDep
) -> CampaignOut:
    """Close an open campaign (409 `campaign_state_conflict` if it is closed already)."""
    return service.close_campaign(session, buyer, campaign_id)
