"""Speech-to-text as the endpoints see it: check the language, run the job (waiting for it, or
not when the caller prefers), and render a finished transcript as subtitles."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import Conflict, InvalidField
from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines.transcribers.base import Task, whisper_language
from soundstage.jobs import inputs
from soundstage.jobs import service as jobs
from soundstage.jobs.schemas import JobAccepted
from soundstage.models.jobs import JobStatus
from soundstage.speech.stt import cues
from soundstage.speech.stt.schemas import ModelSegment, SttRequest, SttResponse
from soundstage.speech.stt.tasks import KIND, OPERATION, PARAM, SttJob

AUTO = "auto"
# A rough estimate of an asynchronous transcription: seconds of work per second of audio on
# two cores (whisper-base, int8), more when words are aligned or speakers found, and the
# fixed cost of a job (a model load in a fresh worker).
_REALTIME_FACTOR = 0.3
_WORDS_OR_SPEAKERS_FACTOR = 0.2
_OVERHEAD_MS = 5_000


class TranscriptNotReady(Conflict):
    """The transcript is asked for before its job has completed."""

    code = "job_not_completed"


def _job_request(body: SttRequest) -> SttJob:
    language = body.language
    if language.lower() == AUTO:
        language = AUTO
    else:
        whisper_language(language)  # 422 unsupported_language, param language
    return SttJob.model_validate({**body.model_dump(), "language": language})


async def transcribe(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: SttRequest,
    *,
    kept_media_id: str | None = None,
) -> SttResponse:
    """`kept_media_id`: the caller's own stored media that `body.audio_url` names, which the
    job then reads from the media store by id, whatever base URL its worker takes for the
    service's own (a process apart from the API's, as `soundstage wyoming`, signs with its
    own settings)."""
    request = _job_request(body)
    if kept_media_id is not None:
        request = request.model_copy(update={"input_media_ids": [kept_media_id]})
    # Priced by the audio's duration, which the job measures and reserves before working.
    job = await jobs.run(db, settings, principal, KIND, request, credits_needed=0)
    return SttResponse.of(job)


@dataclass(frozen=True)
class DetailedTranscript:
    response: SttResponse
    # The model's own segments with their decoding figures, in order.
    model_segments: list[ModelSegment]


async def transcribe_detailed(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: SttRequest,
    *,
    task: Task = "transcribe",
) -> DetailedTranscript:
    """As `transcribe`, with the model's own segments too (the OpenAI-compatible API's
    `verbose_json`); task "translate" writes the speech in English (Whisper's translation),
    the answer's `language` staying the speech's. Same price, charged on completion."""
    request = _job_request(body).model_copy(update={"task": task, "model_segments": True})
    job = await jobs.run(db, settings, principal, KIND, request, credits_needed=0)
    segments = (job.result or {}).get("model_segments") or []
    return DetailedTranscript(
        SttResponse.of(job), [ModelSegment.model_validate(segment) for segment in segments]
    )


def submit_async(
    db: Database, settings: Settings, principal: Principal, body: SttRequest
) -> JobAccepted:
    """`Prefer: respond-async`: the audio fetched and measured now (422 naming `audio_url`),
    its price reserved (402), the job accepted. Blocking: call it from a thread."""
    request = _job_request(body)

    def plan(fetched: list[inputs.Fetched]) -> inputs.Plan:
        duration_ms = fetched[0].info.duration_ms
        factor = _REALTIME_FACTOR
        if body.timestamps or body.diarize:
            factor += _WORDS_OR_SPEAKERS_FACTOR
        return inputs.Plan(
            request=request,
            credits=rates.for_duration(Operation.STT, duration_ms),
            estimated_completion_ms=round(_OVERHEAD_MS + factor * duration_ms),
            duration_ms=duration_ms,
        )

    wanted = inputs.Wanted(body.audio_url, PARAM, settings.stt.max_duration_ms, OPERATION)
    return inputs.submit(db, settings, principal, KIND, [wanted], plan)


def subtitles(
    session: Session, principal: Principal, job_id: str, fmt: Literal["srt", "vtt"]
) -> str:
    job = jobs.get(session, principal, job_id)
    if job.kind != KIND:
        raise InvalidField(f"Job {job_id} is not a speech-to-text job.", param="job_id")
    if job.status != JobStatus.COMPLETED or job.result is None:
        raise TranscriptNotReady(
            f"Job {job_id} is {job.status}; its transcript exists once it has completed.",
            param="job_id",
        )
    phrases = [cues.Phrase(**segment) for segment in job.result.get("segments", [])]
    return cues.to_srt(phrases) if fmt == "srt" else cues.to_vtt(phrases)
