"""Response bodies of media objects."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field


class MediaOut(BaseModel):
    object: Literal["media"] = "media"
    id: str
    purpose: Literal["upload", "output"]
    filename: str
    content_type: str
    size_bytes: int
    duration_ms: int | None
    url: str = Field(
        description="Signed URL; usable as audio_url / media_url; expires 24 h after issue."
    )
    url_expires_at: datetime
    created_at: datetime
