"""Response bodies of jobs."""

from __future__ import annotations

import re
from functools import cache
from typing import Annotated, Any, Literal, Self, Union

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    GetCoreSchemaHandler,
    GetJsonSchemaHandler,
    TypeAdapter,
    create_model,
)
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema, core_schema

from soundstage.core.timeutil import Timestamp
from soundstage.jobs import handlers
from soundstage.jobs.payloads import JobResult
from soundstage.models.jobs import JobStatus

__all__ = ["JobAccepted", "JobError", "JobOut", "JobStatus", "KindsJobOut"]


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
        "30 days by default), or when they were deleted at the owner's request if that came "
        "first: from then on its URLs answer 410 `media_expired`. Null when the result holds "
        "no media.",
    )
    error: JobError | None
    credits_reserved: int
    credits_used: int | None = Field(
        description="Charged on completion; otherwise 0, except a stream that ended early: "
        "the audio it had sent."
    )
    estimated_completion_ms: int | None
    attempts: int
    created_at: Timestamp
    started_at: Timestamp | None
    completed_at: Timestamp | None


class KindsJobOut:
    """GET /api/v1/jobs/{job_id}'s answer as documented: a JobOut per declared kind (its
    `kind`, its `result` the kind's result model), a union discriminated by `kind`. Built
    when the OpenAPI document is, once startup has declared every kind
    (jobs.handlers.declare); the answer itself is a JobOut."""

    @classmethod
    def __get_pydantic_core_schema__(cls, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.any_schema()

    @classmethod
    def __get_pydantic_json_schema__(
        cls, schema: CoreSchema, handler: GetJsonSchemaHandler
    ) -> JsonSchemaValue:
        kinds = tuple((kind.name, kind.result_model) for kind in handlers.kinds())
        return handler(_kinds_union(kinds).core_schema)


@cache
def _kinds_union(kinds: tuple[tuple[str, type[JobResult]], ...]) -> TypeAdapter[Any]:
    variants = tuple(_kind_job_out(name, result) for name, result in kinds)
    if not variants:
        return TypeAdapter(JobOut)
    union: Any = Annotated[Union[variants], Field(discriminator="kind")]  # noqa: UP007
    return TypeAdapter(union)


def _kind_job_out(name: str, result: type[JobResult]) -> type[JobOut]:
    """JobOut for jobs of the kind `name`, whose result is `result` (a kind whose result
    model declares no field, a live session's, is shown as any object)."""
    shown: Any = result if result.model_fields else dict[str, Any]
    kind: Any = Literal[name]
    title = "".join(part.title() for part in re.split(r"[^A-Za-z0-9]+", name) if part)
    return create_model(
        f"{title}JobOut",
        __base__=JobOut,
        kind=(kind, Field(description="The job's kind.")),
        result=(
            shown | None,
            Field(description=JobOut.model_fields["result"].description),
        ),
    )


class JobAccepted(BaseModel):
    """What every asynchronous submission answers (200, never 202): dubbing, DAW export,
    speech-to-text with `Prefer: respond-async`. Its inputs were fetched and measured and its
    credits reserved before this answer; the end is announced by webhook, and
    `GET /api/v1/jobs/{job_id}` shows the job (the same fields and more) at any time."""

    object: Literal["job"] = "job"
    job_id: str
    kind: str = Field(description="`dubbing`, `daw`, `stt`: the filter of GET /api/v1/jobs.")
    environment: Literal["sandbox", "production"]
    status: Literal["processing"] = Field(
        description="Always `processing`: the job record tells queued from running."
    )
    estimated_completion_ms: int = Field(
        description="Expected time to completion from now, from the inputs' duration."
    )
    duration_ms: int = Field(
        description="What the reservation is priced from, as the inputs' headers tell it: "
        "the media's duration (dubbing, speech-to-text) or the session's (DAW export: the end "
        "of its last clip)."
    )
    credits_reserved: int = Field(
        description="Credits held from now until the job ends (shown in the balance's "
        "`reserved`): captured on completion (the charge, at most this), released on failure "
        "or cancellation."
    )
    created_at: Timestamp


class CompletedJob(BaseModel):
    """What every synchronous operation answers once its job has completed: the job, its
    status and its charge. Each feature's answer extends its kind's result model too
    (`class TtsResponse(TtsResult, CompletedJob)`: `output_url`, `duration_ms`, …), which
    GET /api/v1/jobs/{job_id} shows as `result`."""

    # Listed after the result model, so this wins: a field a stored result has and the
    # answer does not is left out (not refused), as before the models were one.
    model_config = ConfigDict(extra="ignore")

    object: Literal["job"] = "job"
    job_id: str
    status: Literal["completed"]
    credits_used: int

    @classmethod
    def of(cls, job: JobOut, **fields: Any) -> Self:
        """The answer for a completed job (see jobs.service.run): its id and charge, and its
        result's fields, `fields` replacing or adding some (a result stored before a field
        existed, answered from the others)."""
        return cls.model_validate(
            {
                **(job.result or {}),
                **fields,
                "job_id": job.job_id,
                "status": "completed",
                "credits_used": job.credits_used or 0,
            }
        )
