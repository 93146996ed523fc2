"""Forced alignment as the endpoints see it: settle the language, run the job (waiting for
it, or not when the caller prefers)."""

from __future__ import annotations

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines.transcribers.base import whisper_language
from soundstage.jobs import inputs
from soundstage.jobs import service as jobs
from soundstage.jobs.schemas import JobAccepted
from soundstage.speech.alignment.schemas import (
    MAX_DURATION_MS,
    AlignmentRequest,
    AlignmentResponse,
)
from soundstage.speech.alignment.tasks import KIND, OPERATION, PARAM, AlignmentJob

AUTO = "auto"
# A rough estimate of an asynchronous alignment: the recognizer's work per second of audio
# on two cores with word times (as speech to text's), and the fixed cost of a job.
_REALTIME_FACTOR = 0.5
_OVERHEAD_MS = 5_000


def _job_request(body: AlignmentRequest) -> AlignmentJob:
    language = body.language
    if language.lower() == AUTO:
        language = AUTO
    else:
        whisper_language(language)  # 422 unsupported_language, param language
    return AlignmentJob.model_validate({**body.model_dump(), "language": language})


async def align(
    db: Database, settings: Settings, principal: Principal, body: AlignmentRequest
) -> AlignmentResponse:
    """The words and characters of the text on the audio. Priced by the audio's duration,
    which the job measures and reserves before working; charged once aligned."""
    job = await jobs.run(db, settings, principal, KIND, _job_request(body), credits_needed=0)
    return AlignmentResponse.of(job)


def submit_async(
    db: Database, settings: Settings, principal: Principal, body: AlignmentRequest
) -> JobAccepted:
    """`Prefer: respond-async`: the audio fetched and measured now (422 naming `audio_url`),
    its price reserved (402), the job accepted. Blocking: call it from a thread."""
    request = _job_request(body)

    def plan(fetched: list[inputs.Fetched]) -> inputs.Plan:
        duration_ms = fetched[0].info.duration_ms
        return inputs.Plan(
            request=request,
            credits=rates.for_duration(Operation.ALIGNMENT, duration_ms),
            estimated_completion_ms=round(_OVERHEAD_MS + _REALTIME_FACTOR * duration_ms),
            duration_ms=duration_ms,
        )

    wanted = inputs.Wanted(body.audio_url, PARAM, MAX_DURATION_MS, OPERATION)
    return inputs.submit(db, settings, principal, KIND, [wanted], plan)
