"""HTTP endpoint of music generation: POST /api/v1/creative/music."""

from __future__ import annotations

from fastapi import APIRouter

from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.creative.music import service
from soundstage.creative.music.schemas import MusicRequest, MusicResponse

router = APIRouter(
    prefix=f"{API_V1}/creative/music", tags=["Creative"], route_class=UnitOfWorkRoute
)


@router.post(
    "",
    response_model=MusicResponse,
    response_model_exclude_none=True,
    responses=errors(402, 404, 409, 504),
)
async def generate_music(
    body: MusicRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> MusicResponse:
    """Compose, arrange, render and master a piece from a text prompt, optionally with a sung
    vocal line. Charged 750 credits per minute of output (per started second), only when the
    audio is ready. Generated music is licensed for commercial use under the caller's active
    API plan terms."""
    return await service.generate(db, settings, principal, body)
