"""HTTP endpoints of the voice catalog: list and read the voices text-to-speech speaks with.

Any key of either environment reads the same catalog: it is a public library, and TTS users
need its voice ids without being verified buyers (the workforce endpoints, which book and
license talent, are the ones that require verification).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import FileResponse, Response

from soundstage.core.deps import DatabaseDep, SessionDep, SettingsDep, current_principal
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageParams, page_params
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.voices import service
from soundstage.voices.schemas import VoiceGender, VoiceOut, VoiceSort

# Authenticated like every route, though no answer depends on who asks.
router = APIRouter(
    prefix=f"{API_V1}/voices",
    tags=["Voices"],
    dependencies=[Depends(current_principal)],
    route_class=UnitOfWorkRoute,
)
# Outside /api/v1, without a key: what a browser's <audio> element plays.
public_router = APIRouter(prefix="/previews", tags=["Voices"], route_class=UnitOfWorkRoute)

# A BCP-47 tag or a prefix of one: letters and digits in subtags of 1 to 8, joined by "-".
LANGUAGE_RANGE = r"^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$"


@router.get("", response_model=ListResponse[VoiceOut])
def list_voices(
    session: SessionDep,
    settings: SettingsDep,
    page: Annotated[PageParams, Depends(page_params)],
    language: Annotated[
        str | None,
        Query(
            max_length=35,
            pattern=LANGUAGE_RANGE,
            description="BCP-47 tag, case-insensitive; a base tag takes in its regional "
            "variants (`en` finds `en-US` and `en-GB`).",
        ),
    ] = None,
    gender: Annotated[VoiceGender | None, Query(description="Only voices of this gender.")] = None,
    sort: Annotated[
        VoiceSort,
        Query(
            description="`quality`: language by language (the tag's alphabetical order), "
            "the best-rated voice first (`quality.mos`; voices not rated last). "
            "`newest`: newest first."
        ),
    ] = "quality",
) -> ListResponse[VoiceOut]:
    """The catalog's voices, language by language, the best-rated first (`sort=newest`:
    newest first). Pass a `voice_id` to POST /api/v1/speech/tts."""
    voices, has_more = service.list_voices(
        session, settings, page, language=language, gender=gender, sort=sort
    )
    return ListResponse[VoiceOut](data=voices, has_more=has_more)


@router.get("/{voice_id}", response_model=VoiceOut)
def get_voice(voice_id: str, session: SessionDep, settings: SettingsDep) -> VoiceOut:
    """One voice of the catalog (404 `voice_not_found` for an unknown or retired one)."""
    return service.get_voice(session, settings, voice_id)


@public_router.get(
    "/{voice_id}.mp3",
    response_class=FileResponse,
    responses={
        200: {"description": "The MP3 sample.", "content": {"audio/mpeg": {}}},
        **errors(404, 503),
    },
)
async def voice_preview(
    voice_id: str, request: Request, db: DatabaseDep, settings: SettingsDep
) -> Response:
    """A short sample of the voice, rendered by a worker on first request and kept."""
    return await service.preview_response(db, settings, voice_id, request.headers.get("range"))
