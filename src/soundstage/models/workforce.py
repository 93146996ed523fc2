"""Voice talent (creators with rate cards, demos and search rows) and what buyers do with it:
campaign briefs, licenses and the licensed media they grant.

Creators, their rates, tags, search rows and demos are platform data, not customer rows: they
carry no `account_id` or `environment`, so every account sees the same talent in sandbox and
production. Campaigns, licenses and licensed media belong to a buyer and carry both.
"""

from __future__ import annotations

from datetime import date, datetime
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    Date,
    Float,
    ForeignKey,
    Index,
    Integer,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from soundstage.models.base import UNMANAGED_NAMES, Base, CustomerOwned, Timestamped

# The full-text objects the migration creates for the database at hand (see CreatorSearch).
FTS_TABLE = "creator_fts"
UNMANAGED_NAMES.update(
    {
        FTS_TABLE,
        *(f"{FTS_TABLE}_{shadow}" for shadow in ("config", "data", "docsize", "idx")),
        "creator_search.document",
        "ix_creator_search_document",
        # Search's order without text (verified, rating, id), NULLS LAST on PostgreSQL only.
        "ix_creator_rank",
    }
)


class Creator(Timestamped, Base):
    __tablename__ = "creator"
    # Discovery lists creators newest first, by (created_at, id): the index walks that order,
    # so a page reads only its rows instead of sorting every match.
    __table_args__ = (Index("ix_creator_created", "created_at", "id"),)

    # `cr_…`: readable and stable (`cr_joe`, `cr_amelia_hart`); imports choose their own.
    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    display_name: Mapped[str] = mapped_column(String(200))
    bio: Mapped[str] = mapped_column(Text, default="")
    # female | male | non_binary; None when the creator does not say.
    gender: Mapped[str | None] = mapped_column(String(16), default=None)
    # BCP-47 tags of the languages the creator performs in.
    languages: Mapped[list[str]] = mapped_column(JSON)
    verified: Mapped[bool] = mapped_column(Boolean, default=False)
    # voice_actor | narrator | host | announcer
    roles: Mapped[list[str]] = mapped_column(JSON, default=list)
    # animation | commercial | audiobook | gaming | corporate | promo
    genres: Mapped[list[str]] = mapped_column(JSON, default=list)
    # How the creator sounds to a listener: "Scottish", "General American", …
    accents: Mapped[list[str]] = mapped_column(JSON, default=list)
    # "warm", "authoritative", "conversational", …
    vocal_styles: Mapped[list[str]] = mapped_column(JSON, default=list)
    # child | teen | young_adult | middle_aged | senior
    age_range: Mapped[str | None] = mapped_column(String(16), default=None)
    # Mean of buyers' ratings, 1.0 to 5.0; None before the first.
    rating: Mapped[float | None] = mapped_column(Float, default=None)
    ratings_count: Mapped[int] = mapped_column(Integer, default=0)
    # The account that speaks for the creator (answers license requests); set by an operator.
    account_id: Mapped[str | None] = mapped_column(String(40), default=None, index=True)


class CreatorRate(Base):
    """One line of a creator's rate card: the base fee of a usage type (12 months, one
    country); the quote multiplies it by the territory and term."""

    __tablename__ = "creator_rate"

    creator_id: Mapped[str] = mapped_column(
        ForeignKey("creator.id", ondelete="CASCADE"), primary_key=True
    )
    usage_type: Mapped[str] = mapped_column(String(16), primary_key=True)
    base_fee_cents: Mapped[int] = mapped_column(BigInteger)


class CreatorTag(Base):
    """The creator's filterable attributes as `kind:value` tags (`genre:audiobook`,
    `language:en`, `language:en-gb`, `accent:scottish`), derived from the profile; a filter is
    an equality on the primary key's prefix, the same on both databases."""

    __tablename__ = "creator_tag"

    tag: Mapped[str] = mapped_column(String(160), primary_key=True)
    creator_id: Mapped[str] = mapped_column(
        ForeignKey("creator.id", ondelete="CASCADE"), primary_key=True, index=True
    )


class CreatorSearch(Base):
    """The creator's searchable text, normalized (case- and accent-folded tokens), derived
    from the profile (kept in step by workforce/talent/indexing.py). Full-text indexes sit on
    top of it, created by the migration for the database at hand: on SQLite the FTS5 table
    `creator_fts` (external content, kept in sync by triggers on this table), on PostgreSQL the
    generated tsvector column `document` with a GIN index. The integer key is the FTS5 rowid: it
    never changes, unlike an implicit rowid."""

    __tablename__ = "creator_search"

    id: Mapped[int] = mapped_column(Integer, primary_key=True, autoincrement=True)
    creator_id: Mapped[str] = mapped_column(
        ForeignKey("creator.id", ondelete="CASCADE"), unique=True
    )
    name_text: Mapped[str] = mapped_column(Text)
    # Roles, genres, languages, accents, vocal styles, gender and age range.
    attributes_text: Mapped[str] = mapped_column(Text)
    bio_text: Mapped[str] = mapped_column(Text)
    # The filter tags as opaque words (text.tag_token): the index answers filters too, and
    # they weigh nothing in the ranking.
    tags_text: Mapped[str] = mapped_column(Text)


class TalentDemo(Timestamped, Base):
    """A demo of a creator: a script read by a catalog voice, rendered once by a worker and
    served by signed URL."""

    __tablename__ = "talent_demo"

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    creator_id: Mapped[str] = mapped_column(
        ForeignKey("creator.id", ondelete="CASCADE"), index=True
    )
    position: Mapped[int] = mapped_column(Integer, default=0)
    title: Mapped[str] = mapped_column(String(200))
    genre: Mapped[str] = mapped_column(String(16))
    language: Mapped[str] = mapped_column(String(35))
    script: Mapped[str] = mapped_column(Text)
    voice_id: Mapped[str] = mapped_column(ForeignKey("voice.id"))


class CampaignStatus(StrEnum):
    """A campaign brief is open when posted until the buyer closes it; stored as its string
    value (the API's Literal of the same name, campaigns.schemas, has the same values)."""

    OPEN = "open"
    CLOSED = "closed"


class Campaign(CustomerOwned, Timestamped, Base):
    """A buyer's casting brief, with the talent that matched it when it was posted."""

    __tablename__ = "campaign"
    __table_args__ = (
        Index("ix_campaign_owner_created", "account_id", "environment", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    title: Mapped[str] = mapped_column(String(200))
    description: Mapped[str] = mapped_column(Text)
    roles: Mapped[list[str]] = mapped_column(JSON)
    genres: Mapped[list[str]] = mapped_column(JSON)
    languages: Mapped[list[str]] = mapped_column(JSON)
    script_excerpt: Mapped[str] = mapped_column(Text)
    usage_type: Mapped[str] = mapped_column(String(16))
    budget_cents: Mapped[int] = mapped_column(BigInteger)
    currency: Mapped[str] = mapped_column(String(3))
    deadline: Mapped[date] = mapped_column(Date)
    status: Mapped[str] = mapped_column(String(16))  # a CampaignStatus value
    # [{"creator_id": …, "score": …}], best first, as matched when the brief was posted.
    matches: Mapped[list[dict[str, Any]]] = mapped_column(JSON)
    closed_at: Mapped[datetime | None] = mapped_column(default=None)


class LicenseStatus(StrEnum):
    """A license's stored state (workforce.licensing.service draws the moves); stored as its
    string value. The API's LicenseStatus (licensing.schemas) adds `expired`, which is not
    stored: a completed license whose `ends_at` has passed reads as expired."""

    REQUESTED = "requested"
    ACCEPTED = "accepted"
    DECLINED = "declined"
    CANCELLED = "cancelled"
    COMPLETED = "completed"


class License(CustomerOwned, Timestamped, Base):
    """A buyer's license of a creator's voice: quoted from the rate card, answered by the
    creator, completed (paid) by the buyer, over at `ends_at`."""

    __tablename__ = "license"
    __table_args__ = (Index("ix_license_owner_created", "account_id", "environment", "created_at"),)

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    creator_id: Mapped[str] = mapped_column(ForeignKey("creator.id"), index=True)
    usage_type: Mapped[str] = mapped_column(String(16))
    # "worldwide" or ISO 3166-1 alpha-2 codes joined by commas, sorted ("CA,US").
    territory: Mapped[str] = mapped_column(String(1000))
    duration_months: Mapped[int] = mapped_column(Integer)
    # A LicenseStatus value (expired is read off ends_at).
    status: Mapped[str] = mapped_column(String(16))
    currency: Mapped[str] = mapped_column(String(3))
    base_fee_cents: Mapped[int] = mapped_column(BigInteger)
    # Decimal multipliers as strings ("1.75"): exact, and shown as quoted.
    territory_multiplier: Mapped[str] = mapped_column(String(16))
    term_multiplier: Mapped[str] = mapped_column(String(16))
    amount_cents: Mapped[int] = mapped_column(BigInteger)
    success_fee_cents: Mapped[int] = mapped_column(BigInteger)
    total_cents: Mapped[int] = mapped_column(BigInteger)
    decline_reason: Mapped[str | None] = mapped_column(Text, default=None)
    accepted_at: Mapped[datetime | None] = mapped_column(default=None)
    declined_at: Mapped[datetime | None] = mapped_column(default=None)
    cancelled_at: Mapped[datetime | None] = mapped_column(default=None)
    completed_at: Mapped[datetime | None] = mapped_column(default=None)
    starts_at: Mapped[datetime | None] = mapped_column(default=None)
    ends_at: Mapped[datetime | None] = mapped_column(default=None)


class LicensedMedia(CustomerOwned, Timestamped, Base):
    """A media asset a completed license grants its buyer (one row per demo of the creator),
    listed while the license runs."""

    __tablename__ = "licensed_media"
    __table_args__ = (
        Index("ix_licensed_media_owner_created", "account_id", "environment", "created_at"),
    )

    id: Mapped[str] = mapped_column(String(40), primary_key=True)
    license_id: Mapped[str] = mapped_column(ForeignKey("license.id"), index=True)
    demo_id: Mapped[str] = mapped_column(ForeignKey("talent_demo.id"))
