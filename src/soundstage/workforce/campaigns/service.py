"""Campaign briefs: posted `open` with the talent that best matches them, listed, closed."""

from __future__ import annotations

from sqlalchemy.orm import Session

from soundstage.accounts import verification
from soundstage.core.errors import InvalidField
from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.timeutil import utcnow
from soundstage.models import Campaign
from soundstage.models.workforce import CampaignStatus
from soundstage.workforce.campaigns import repository
from soundstage.workforce.campaigns.schemas import CampaignCreate, CampaignMatchOut, CampaignOut
from soundstage.workforce.errors import CampaignNotFound, CampaignStateConflict
from soundstage.workforce.talent import service as talent
from soundstage.workforce.vocabulary import CURRENCY

MATCH_LIMIT = 10


def create(session: Session, buyer: Principal, brief: CampaignCreate) -> Campaign:
    now = utcnow()
    if brief.deadline <= now.date():
        raise InvalidField("deadline: must be after today (UTC).", param="deadline")
    matches = talent.best_matches(
        session,
        languages=brief.languages,
        usage_type=brief.usage_type,
        budget_cents=brief.budget_cents,
        roles=brief.roles,
        genres=brief.genres,
        limit=MATCH_LIMIT,
    )
    campaign = Campaign(
        id=new_id("camp"),
        account_id=buyer.account_id,
        environment=buyer.environment,
        title=brief.title,
        description=brief.description,
        roles=list(brief.roles),
        genres=list(brief.genres),
        languages=list(brief.languages),
        script_excerpt=brief.script_excerpt,
        usage_type=brief.usage_type,
        budget_cents=brief.budget_cents,
        currency=CURRENCY,
        deadline=brief.deadline,
        status=CampaignStatus.OPEN,
        matches=[
            {"creator_id": m.creator_id, "score": m.score, "base_fee_cents": m.base_fee_cents}
            for m in matches
        ],
        created_at=now,
    )
    repository.add(session, campaign)
    return campaign


def get_owned(session: Session, buyer: Principal, campaign_id: str) -> Campaign:
    stmt = repository.owned_query(buyer)
    found = repository.first(session, stmt.where(Campaign.id == campaign_id))
    if found is None:
        raise CampaignNotFound(f"No such campaign: {campaign_id}", param="campaign_id")
    return found


def list_owned(
    session: Session, buyer: Principal, page: PageParams, *, status: str | None
) -> tuple[list[Campaign], bool]:
    stmt = repository.owned_query(buyer)
    if status is not None:
        stmt = stmt.where(Campaign.status == status)
    return paginate(session, stmt, Campaign, page, CampaignNotFound)


def close(session: Session, campaign: Campaign) -> Campaign:
    if not repository.close(
        session, campaign, {"status": CampaignStatus.CLOSED, "closed_at": utcnow()}
    ):
        raise CampaignStateConflict("This campaign is already closed.")
    return campaign


def campaigns_out(
    session: Session, buyer: Principal, campaigns: list[Campaign]
) -> list[CampaignOut]:
    """Campaigns with their matches named (one query for all of them); the matches are
    withheld from a buyer not verified (they name talent, which discovery gates)."""
    withheld = not verification.is_verified(session, buyer)
    ids = [] if withheld else [m["creator_id"] for c in campaigns for m in c.matches]
    creators = talent.creators_by_id(session, ids)
    return [
        CampaignOut(
            id=c.id,
            status=c.status,
            title=c.title,
            description=c.description,
            roles=c.roles,
            genres=c.genres,
            languages=c.languages,
            script_excerpt=c.script_excerpt,
            usage_type=c.usage_type,
            budget_cents=c.budget_cents,
            deadline=c.deadline,
            matches=[
                CampaignMatchOut(
                    creator_id=m["creator_id"],
                    display_name=creators[m["creator_id"]].display_name,
                    verified=creators[m["creator_id"]].verified,
                    rating=creators[m["creator_id"]].rating,
                    base_fee_cents=m["base_fee_cents"],
                    score=m["score"],
                )
                for m in c.matches
                if m["creator_id"] in creators
            ],
            matches_withheld=withheld,
            created_at=c.created_at,
            closed_at=c.closed_at,
        )
        for c in campaigns
    ]


# --- what each endpoint calls: one function, answering the response body ---------------------


def post_campaign(session: Session, buyer: Principal, brief: CampaignCreate) -> CampaignOut:
    return campaigns_out(session, buyer, [create(session, buyer, brief)])[0]


def list_campaigns(
    session: Session, buyer: Principal, page: PageParams, *, status: str | None
) -> tuple[list[CampaignOut], bool]:
    campaigns, has_more = list_owned(session, buyer, page, status=status)
    return campaigns_out(session, buyer, campaigns), has_more


def get_campaign(session: Session, buyer: Principal, campaign_id: str) -> CampaignOut:
    return campaigns_out(session, buyer, [get_owned(session, buyer, campaign_id)])[0]


def close_campaign(session: Session, buyer: Principal, campaign_id: str) -> CampaignOut:
    campaign = close(session, get_owned(session, buyer, campaign_id))
    return campaigns_out(session, buyer, [campaign])[0]
