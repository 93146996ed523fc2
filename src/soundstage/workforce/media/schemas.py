"""Response bodies of licensed media."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from soundstage.core.timeutil import Timestamp
from soundstage.workforce.vocabulary import Genre, UsageType


class LicenseTermsOut(BaseModel):
    license_id: str
    usage_type: UsageType
    territory: str
    duration_months: int
    starts_at: Timestamp
    ends_at: Timestamp = Field(description="After this the asset is no longer listed.")


class LicensedMediaOut(BaseModel):
    object: Literal["licensed_media"] = "licensed_media"
    id: str
    creator_id: str
    demo_id: str
    title: str
    genre: Genre
    language: str
    content_type: Literal["audio/mpeg"] = "audio/mpeg"
    url: str = Field(description="Signed MP3 URL, valid until `url_expires_at` (24 h).")
    url_expires_at: Timestamp
    license: LicenseTermsOut
    created_at: Timestamp = Field(description="When the license granted it.")
