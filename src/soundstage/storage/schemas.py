"""Response bodies of media objects."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from soundstage.core.timeutil import Timestamp


class MediaOut(BaseModel):
    object: Literal["media"] = "media"
    id: str
    purpose: Literal["upload", "output", "input"] = Field(
        description="`upload` (POST /api/v1/uploads), `output` (of a job) or `input` (a "
        "job's fetched input, kept while it runs)."
    )
    filename: str
    content_type: str
    size_bytes: int
    duration_ms: int | None
    url: str = Field(
        description="Signed URL; usable as audio_url / media_url; expires 24 h after issue."
    )
    url_expires_at: Timestamp
    created_at: Timestamp
    expires_at: Timestamp = Field(
        description="When the media expire (created_at + the storage retention, 30 days by "
        "default): from then on their URLs answer 410 `media_expired` and their bytes are "
        "deleted, which frees the account's storage quota."
    )
