"""HTTP endpoints of text-to-speech: POST /api/v1/speech/tts and /api/v1/speech/tts/stream."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.media.audio import CONTENT_TYPES
from soundstage.speech.tts import service
from soundstage.speech.tts.schemas import TtsRequest, TtsResponse

router = APIRouter(prefix=f"{API_V1}/speech/tts", tags=["Speech"], route_class=UnitOfWorkRoute)

JOB_ID_HEADER = "Soundstage-Job-Id"


@router.post(
    "",
    response_model=TtsResponse,
    response_model_exclude_none=True,
    responses=errors(402, 409, 504),
)
async def text_to_speech(
    body: TtsRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> TtsResponse:
    """Convert text to speech with a voice of the catalog. Charged 1 credit per character,
    only when the audio is ready; the signed `output_url` expires 24 h after issue."""
    return await service.synthesize(db, settings, principal, body)


@router.post(
    "/stream",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "The audio, sent sentence by sentence as it is synthesized "
            "(chunked transfer). The header `Soundstage-Job-Id` names the job, whose "
            "`result` (GET /api/v1/jobs/{job_id}) holds the stored file's `output_url` and, "
            "with `timestamps: true`, the `words` once the stream has ended.",
            "content": {content_type: {} for content_type in CONTENT_TYPES.values()},
        },
        **errors(402, 409, 504),
    },
)
async def text_to_speech_stream(
    body: TtsRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> StreamingResponse:
    """Beyond the spec: the same request as POST /speech/tts, answered with the audio itself
    while it is being synthesized; the first bytes come after the first sentence. Same
    credits: each sentence is paid for before it is sent, so a stream that fails midway (the
    transfer ends incomplete) or that the client abandons is charged for the audio it sent
    (its share of the price), the rest released. Errors found before
    the first byte (402, an unknown voice, text the engine refuses) are answered as JSON as
    usual. The stream's header carries no length: WAV sizes read 0xFFFFFFFF, FLAC's total is
    unknown."""
    speech = await service.stream(db, settings, principal, body)
    return StreamingResponse(
        speech.body(),
        media_type=speech.content_type,
        headers={JOB_ID_HEADER: speech.job_id, "Cache-Control": "no-store"},
    )
