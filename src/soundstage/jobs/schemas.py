"""Response bodies of jobs."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from soundstage.core.timeutil import Timestamp

JobStatus = Literal["queued", "processing", "completed", "failed", "cancelled"]


class JobError(BaseModel):
    """Why a job failed, in the terms of the error envelope."""

    type: str = "api_error"
    code: str
    message: str
    param: str | None = None


class JobOut(BaseModel):
    object: Literal["job"] = "job"
    job_id: str
    kind: str
    environment: Literal["sandbox", "production"]
    status: JobStatus
    progress: float = Field(ge=0, le=1, description="0..1; 1 when completed.")
    stage: str | None = Field(description="What the job is doing now, for multi-stage jobs.")
    result: dict[str, Any] | None = Field(
        description="The operation's fields (e.g. output_url, duration_ms) once completed; "
        "media URLs are signed afresh on every read and expire 24 h later."
    )
    outputs_expire_at: Timestamp | None = Field(
        default=None,
        description="When the first of the media in `result` expires (the storage retention, "
        "30 days by default): from then on its URLs answer 410 `media_expired`. Null when "
        "the result holds no media.",
    )
    error: JobError | None
    credits_reserved: int
    credits_used: int | None = Field(description="Charged on completion only; 0 otherwise.")
    estimated_completion_ms: int | None
    attempts: int
    created_at: Timestamp
    started_at: Timestamp | None
    completed_at: Timestamp | None
