"""HTTP endpoints of speech-to-text: POST /api/v1/speech/stt, and the finished transcript as
subtitles at GET /api/v1/jobs/{job_id}/transcript.srt and .vtt."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Header, Request
from fastapi.responses import JSONResponse, PlainTextResponse
from starlette.concurrency import run_in_threadpool

from soundstage.core.deps import PrincipalDep, SessionDep
from soundstage.core.openapi import errors
from soundstage.jobs.schemas import JobOut
from soundstage.speech.stt import service
from soundstage.speech.stt.schemas import SttRequest, SttResponse

router = APIRouter(tags=["Speech"])


@router.post(
    "/speech/stt",
    response_model=SttResponse,
    response_model_exclude_none=True,
    responses={
        202: {
            "model": JobOut,
            "description": "With `Prefer: respond-async`: the job, still processing.",
        },
        **errors(402, 409, 504),
    },
)
async def speech_to_text(
    body: SttRequest,
    request: Request,
    principal: PrincipalDep,
    prefer: Annotated[
        str | None,
        Header(
            description="Beyond the spec, `respond-async` (RFC 7240): answer 202 with the job "
            "at once instead of waiting (for long recordings); its end is announced by the "
            "`job.completed` / `job.failed` webhook."
        ),
    ] = None,
) -> SttResponse | JSONResponse:
    """Transcribe audio with punctuation; optionally word timestamps and speakers. Charged
    250 credits per minute of audio (per started second), only when the transcript is ready."""
    state = request.app.state
    if prefer is not None and "respond-async" in prefer.lower():

        def submit() -> JobOut:
            with state.db.session() as session:
                return service.submit_async(session, state.settings, principal, body)

        job = await run_in_threadpool(submit)
        return JSONResponse(
            job.model_dump(mode="json"),
            status_code=202,
            headers={"Preference-Applied": "respond-async"},
        )
    return await service.transcribe(state.db, state.settings, principal, body)


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
