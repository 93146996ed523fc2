"""Response bodies of talent: creator profiles with rate cards and demos, and search results."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from soundstage.core.timeutil import Timestamp
from soundstage.workforce.vocabulary import AgeRange, Gender, Genre, Role, UsageType


class RateOut(BaseModel):
    usage_type: UsageType
    base_fee_cents: int = Field(
        description="Fee for this usage over 12 months in one country, in cents; a license "
        "quote multiplies it by the territory and term (see POST /workforce/licensing)."
    )


class DemoOut(BaseModel):
    object: Literal["demo"] = "demo"
    demo_id: str
    title: str
    genre: Genre
    language: str = Field(description="BCP-47 tag of the script.")
    voice_id: str = Field(description="The catalog voice that reads the demo.")
    content_type: Literal["audio/mpeg"] = "audio/mpeg"
    url: str = Field(
        description="Signed MP3 URL, valid until `url_expires_at` (24 h); rendered on first "
        "request, which may take a few seconds (503 with Retry-After if it takes longer)."
    )
    url_expires_at: Timestamp


class CreatorOut(BaseModel):
    object: Literal["creator"] = "creator"
    creator_id: str
    display_name: str
    bio: str
    roles: list[Role]
    genres: list[Genre]
    languages: list[str] = Field(description="BCP-47 tags the creator performs in.")
    accents: list[str] = Field(description='How the creator sounds, e.g. "Scottish".')
    vocal_styles: list[str] = Field(description='e.g. "warm", "authoritative".')
    gender: Gender | None
    age_range: AgeRange | None = Field(description="The age the voice sounds.")
    verified: bool = Field(description="Identity and rights checked by the platform.")
    rating: float | None = Field(description="Mean buyer rating, 1.0 to 5.0.")
    ratings_count: int
    currency: Literal["USD"] = "USD"
    rate_card: list[RateOut] = Field(description="Usage types the creator offers, with fees.")
    voice_ids: list[str] = Field(
        description="Catalog voices the creator performs: pass one to POST /api/v1/speech/tts."
    )
    demos: list[DemoOut]
    created_at: Timestamp


class CreatorSearchHit(CreatorOut):
    """A creator found by search: the profile, and how well it matched the text."""

    relevance: float | None = Field(
        description="How well the creator matches `q` (higher is better; comparable within one "
        "search only, the scale is the database's): null without `q`."
    )
