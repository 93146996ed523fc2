"""Response bodies of licensed media."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from soundstage.workforce.vocabulary import Genre, UsageType


class LicenseTermsOut(BaseModel):
    license_id: str
    usage_type: UsageType
    territory: str
    duration_months: int
    starts_at: datetime
    ends_at: datetime = Field(description="After this the asset is no longer listed.")


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
    url_expires_at: datetime
    license: LicenseTermsOut
    created_at: datetime = Field(description="When the license granted it.")
