"""HTTP endpoints of dialogue: POST /api/v1/speech/dialogue and /api/v1/speech/dialogue/stream.
A dialogue is text to speech with a voice per turn: the TTS feature serves it."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import StreamingResponse

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.media.audio import CONTENT_TYPES
from soundstage.speech.tts import service
from soundstage.speech.tts.schemas import DialogueRequest, DialogueResponse

router = APIRouter(prefix=f"{API_V1}/speech/dialogue", tags=["Speech"], route_class=UnitOfWorkRoute)

JOB_ID_HEADER = "Soundstage-Job-Id"


@router.post(
    "",
    response_model=DialogueResponse,
    response_model_exclude_none=True,
    responses=errors(402, 404, 409, 504),
)
async def dialogue(
    body: DialogueRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> DialogueResponse:
    """Beyond the spec: a conversation in one file. Each turn of `inputs` is read by its own
    voice (with its own speed and pitch), the turns joined by `pause_ms` of silence;
    `turns` gives where each voice starts and stops. Charged as text to speech: 1 credit
    per character of every turn, only when the audio is ready."""
    return await service.synthesize_dialogue(db, settings, principal, body)


@router.post(
    "/stream",
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "The audio, sent turn by turn and sentence by sentence as it is "
            "synthesized (chunked transfer). The header `Soundstage-Job-Id` names the job, "
            "whose `result` (GET /api/v1/jobs/{job_id}) holds the stored file's `output_url`, "
            "the `turns` and, with `timestamps: true`, the `words` once the stream has ended.",
            "content": {content_type: {} for content_type in CONTENT_TYPES.values()},
        },
        **errors(402, 404, 409, 504),
    },
)
async def dialogue_stream(
    body: DialogueRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> StreamingResponse:
    """The same request as POST /speech/dialogue, answered with the audio itself while it is
    being synthesized, charged as POST /speech/tts/stream is (each sentence paid for before
    it is sent)."""
    speech = await service.stream_dialogue(db, settings, principal, body)
    return StreamingResponse(
        speech.body(),
        media_type=speech.content_type,
        headers={JOB_ID_HEADER: speech.job_id, "Cache-Control": "no-store"},
    )
