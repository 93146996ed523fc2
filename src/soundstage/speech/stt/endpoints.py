"""HTTP endpoints of speech-to-text: POST /api/v1/speech/stt, and the finished transcript as
subtitles at GET /api/v1/jobs/{job_id}/transcript.srt and .vtt."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Response
from fastapi.responses import PlainTextResponse

from soundstage.core.deps import DatabaseDep, PrincipalDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.jobs import inputs
from soundstage.jobs.schemas import JobAccepted
from soundstage.speech.stt import service
from soundstage.speech.stt.schemas import SttRequest, SttResponse

router = APIRouter(prefix=API_V1, tags=["Speech"], route_class=UnitOfWorkRoute)


@router.post(
    "/speech/stt",
    response_model=SttResponse | JobAccepted,
    response_model_exclude_none=True,
    responses={
        200: {
            "description": "The completed transcript (SttResponse); with `Prefer: "
            "respond-async`, the accepted job (JobAccepted, `status: processing`).",
        },
        **errors(402, 409, 504),
    },
)
async def speech_to_text(
    body: SttRequest,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    response: Response,
    prefer: Annotated[
        str | None,
        Header(
            description="Beyond the spec, `respond-async` (RFC 7240): answer at once, as "
            "every asynchronous operation does (200, `status: processing`, "
            "`estimated_completion_ms`, `credits_reserved`), once the audio has been fetched "
            "and measured (422 `audio_url`) and its price reserved (402); for recordings "
            "longer than the synchronous wait. The end is announced by the `job.completed` / "
            "`job.failed` webhook; the reservation is captured only if the transcript is made."
        ),
    ] = None,
) -> SttResponse | JobAccepted:
    """Transcribe audio with punctuation; optionally word timestamps and speakers. Charged
    250 credits per minute of audio (per started second), only when the transcript is ready."""
    if prefer is not None and "respond-async" in prefer.lower():
        response.headers["Preference-Applied"] = "respond-async"
        return await inputs.in_fetch_thread(
            settings, service.submit_async, db, settings, principal, body
        )
    return await service.transcribe(db, settings, principal, body)


@router.get(
    "/jobs/{job_id}/transcript.srt",
    response_class=PlainTextResponse,
    responses={200: {"content": {"application/x-subrip": {}}}, **errors(409)},
    tags=["Speech"],
)
def transcript_srt(job_id: str, session: SessionDep, principal: PrincipalDep) -> PlainTextResponse:
    """Beyond the spec: a completed speech-to-text job's transcript as SubRip subtitles,
    `[speaker_1]` before each cue when diarized."""
    text = service.subtitles(session, principal, job_id, "srt")
    return PlainTextResponse(text, media_type="application/x-subrip")


@router.get(
    "/jobs/{job_id}/transcript.vtt",
    response_class=PlainTextResponse,
    responses={200: {"content": {"text/vtt": {}}}, **errors(409)},
    tags=["Speech"],
)
def transcript_vtt(job_id: str, session: SessionDep, principal: PrincipalDep) -> PlainTextResponse:
    """Beyond the spec: a completed speech-to-text job's transcript as WebVTT subtitles, with
    a `<v speaker_1>` voice span on each cue when diarized."""
    text = service.subtitles(session, principal, job_id, "vtt")
    return PlainTextResponse(text, media_type="text/vtt")
