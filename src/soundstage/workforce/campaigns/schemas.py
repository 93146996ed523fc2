"""Request and response bodies of campaigns."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from soundstage.core.schemas import CalendarDate, RequestModel
from soundstage.core.timeutil import Timestamp
from soundstage.workforce.vocabulary import Genre, LanguageTag, Role, UsageType

CampaignStatus = Literal["open", "closed"]
MAX_BUDGET_CENTS = 1_000_000_000


def _unique(values: list[str]) -> list[str]:
    if len(set(values)) != len(values):
        raise ValueError("must not repeat a value")
    return values


class CampaignCreate(RequestModel):
    title: str = Field(min_length=1, max_length=200)
    description: str = Field(min_length=1, max_length=5000, description="What the job is.")
    roles: list[Role] = Field(default_factory=list, max_length=4, description="Wanted roles.")
    genres: list[Genre] = Field(default_factory=list, max_length=6)
    languages: list[LanguageTag] = Field(
        min_length=1,
        max_length=10,
        description="Languages the talent must speak (one of them); a base tag takes in its "
        "regional variants.",
    )
    script_excerpt: str = Field(default="", max_length=5000, description="A sample of the read.")
    usage_type: UsageType = Field(description="How the recordings will be used (as licensing).")
    budget_cents: int = Field(
        ge=100, le=MAX_BUDGET_CENTS, description="Budget in US cents, $1 to $10,000,000."
    )
    deadline: CalendarDate = Field(
        description="Last day for the work, YYYY-MM-DD, after today (UTC)."
    )

    _unique_lists = field_validator("roles", "genres", "languages")(_unique)


class CampaignMatchOut(BaseModel):
    creator_id: str
    display_name: str
    verified: bool
    rating: float | None
    base_fee_cents: int = Field(description="The creator's rate-card fee for the usage type.")
    score: int = Field(description="3 per shared role, 2 per shared genre, 1 if verified.")


class CampaignOut(BaseModel):
    object: Literal["campaign"] = "campaign"
    id: str
    status: CampaignStatus = Field(description="`open` when posted; `closed` by the buyer.")
    title: str
    description: str
    roles: list[Role]
    genres: list[Genre]
    languages: list[str]
    script_excerpt: str
    usage_type: UsageType
    budget_cents: int
    currency: Literal["USD"] = "USD"
    deadline: date
    matches: list[CampaignMatchOut] = Field(
        description="Up to 10 creators who speak one of the languages and offer the usage type "
        "within the budget, best first (then by rating), as matched when the brief was posted; "
        "empty while `matches_withheld`."
    )
    matches_withheld: bool = Field(
        description="True when the caller is not a verified buyer: talent is shown to verified "
        "buyers only, so `matches` is empty; they appear once verification passes."
    )
    created_at: Timestamp
    closed_at: Timestamp | None
