"""HTTP endpoint of voice isolation: POST /api/v1/speech/isolator."""

from __future__ import annotations

from fastapi import APIRouter

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.speech.isolator import service
from soundstage.speech.isolator.schemas import IsolationRequest, IsolationResponse

router = APIRouter(prefix=f"{API_V1}/speech/isolator", tags=["Speech"], route_class=UnitOfWorkRoute)


@router.post(
    "",
    response_model=IsolationResponse,
    response_model_exclude_none=True,
    responses=errors(402, 409, 504),
)
async def isolate_voice(
    body: IsolationRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> IsolationResponse:
    """Separate the voice from background music and noise. Charged 750 credits per minute of
    audio (per started second), only when the stems are ready; their signed URLs expire 24 h
    after issue. The stems keep the input's sample rate in WAV and FLAC, and in MP3 when it
    is an MPEG rate (8 to 48 kHz); otherwise MP3 stems are at 44.1 or 48 kHz: `sample_rate`
    in the answer states it."""
    return await service.isolate(db, settings, principal, body)
