"""Request and response bodies of licensing."""

from __future__ import annotations

import re
from typing import Literal

import pycountry
from pydantic import BaseModel, Field, field_validator

from soundstage.core.schemas import RequestModel
from soundstage.core.timeutil import Timestamp
from soundstage.workforce.licensing.pricing import MAX_MONTHS, MIN_MONTHS, WORLDWIDE
from soundstage.workforce.vocabulary import UsageType

LicenseStatus = Literal["requested", "accepted", "declined", "cancelled", "completed", "expired"]
MAX_COUNTRIES = 50
_ALPHA_2 = re.compile(r"[A-Z]{2}", re.ASCII)


class LicenseRequest(RequestModel):
    creator_id: str = Field(min_length=1, max_length=40, description="The talent to license.")
    usage_type: UsageType = Field(
        description="How the recordings will be used: `broadcast` (TV, radio), `internet` "
        "(web, social, streaming ads), `non_broadcast` (corporate, e-learning, events, phone "
        "systems), `audiobook`, `games`, `ai_voice` (training or cloning a synthetic voice). "
        "The creator's rate card must offer it (422 `usage_not_offered`)."
    )
    territory: str = Field(
        min_length=2,
        max_length=400,
        description="`worldwide`, or ISO 3166-1 alpha-2 country codes separated by commas "
        '("US" or "US,CA,GB"; case-insensitive, at most 50).',
    )
    duration_months: int = Field(
        ge=MIN_MONTHS, le=MAX_MONTHS, description="License term in months, 1 to 120."
    )

    @field_validator("territory")
    @classmethod
    def _territory(cls, value: str) -> str:
        if value.lower() == WORLDWIDE:
            return WORLDWIDE
        # ASCII before upper(): 'ß'.upper() is 'SS' (South Sudan).
        if not value.isascii():
            raise ValueError(
                "must be `worldwide` or ISO 3166-1 alpha-2 country codes separated by commas"
            )
        codes = sorted({code.strip().upper() for code in value.split(",")})
        if len(codes) > MAX_COUNTRIES:
            raise ValueError(f"at most {MAX_COUNTRIES} countries; use `worldwide`")
        for code in codes:
            if not _ALPHA_2.fullmatch(code) or pycountry.countries.get(alpha_2=code) is None:
                raise ValueError(
                    "must be `worldwide` or ISO 3166-1 alpha-2 country codes separated by commas"
                )
        return ",".join(codes)


class DeclineRequest(RequestModel):
    reason: str | None = Field(
        default=None, max_length=1000, description="Shown to the buyer (optional)."
    )


class PricingOut(BaseModel):
    base_fee_cents: int = Field(description="The rate card's fee for the usage type.")
    territory_multiplier: str = Field(
        description="1.00 for one country, +0.50 per further country, 3.00 at most and for "
        "`worldwide`."
    )
    term_multiplier: str = Field(
        description="By term: up to 3 months 0.40, 6: 0.60, 12: 1.00, 24: 1.75, 36: 2.40, "
        "60: 3.50, 120: 5.00."
    )


class LicenseOut(BaseModel):
    object: Literal["license"] = "license"
    id: str
    creator_id: str
    usage_type: UsageType
    territory: str = Field(description="`worldwide` or sorted country codes (`CA,US`).")
    duration_months: int
    status: LicenseStatus = Field(
        description="requested -> accepted | declined (the creator) | cancelled (the buyer); "
        "accepted -> completed (the buyer) | cancelled; completed -> expired at `ends_at`."
    )
    currency: Literal["USD"] = "USD"
    amount_cents: int = Field(description="The creator's fee: base fee x multipliers, half-up.")
    success_fee_cents: int = Field(description="1% of amount_cents, rounded half-up once.")
    total_cents: int = Field(description="amount_cents + success_fee_cents: what the buyer pays.")
    pricing: PricingOut
    decline_reason: str | None
    created_at: Timestamp = Field(description="When the license was requested.")
    accepted_at: Timestamp | None
    declined_at: Timestamp | None
    cancelled_at: Timestamp | None
    completed_at: Timestamp | None
    starts_at: Timestamp | None = Field(description="Start of the term: completion.")
    ends_at: Timestamp | None = Field(description="End of the term; the license expires then.")
