"""HTTP endpoint of the voice changer: POST /api/v1/speech/voice-changer."""

from __future__ import annotations

from fastapi import APIRouter

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.speech.voice_changer import service
from soundstage.speech.voice_changer.schemas import VoiceChangerRequest, VoiceChangerResponse

router = APIRouter(
    prefix=f"{API_V1}/speech/voice-changer", tags=["Speech"], route_class=UnitOfWorkRoute
)


@router.post(
    "",
    response_model=VoiceChangerResponse,
    responses=errors(402, 404, 409, 504),
)
async def change_voice(
    body: VoiceChangerRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> VoiceChangerResponse:
    """Say the same words, with the same timing and intonation, in another voice of the
    catalog. The background is kept under the new voice unless `remove_background_noise`.
    Charged 1,000 credits per minute of input (per started second), only when the audio is
    ready; the signed `output_url` expires 24 h after issue."""
    return await service.change_voice(db, settings, principal, body)
