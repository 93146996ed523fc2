"""HTTP endpoints of ElevenLabs' history (`client.history.list`, `get`, `get_audio`, `delete`
of the SDK 2.78): every query parameter the SDK sends is declared and honoured."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import FileResponse, Response

from soundstage.compat.elevenlabs.history import service
from soundstage.compat.elevenlabs.history.schemas import (
    ElevenLabsDeleteHistoryItemResponse,
    ElevenLabsHistoryItem,
    ElevenLabsHistoryResponse,
    HistorySource,
    SortDirection,
)
from soundstage.compat.elevenlabs.schemas import MAX_ID
from soundstage.core.deps import DatabaseDep, PrincipalDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.params import QueryInt
from soundstage.core.routing import UnitOfWorkRoute

router = APIRouter(
    prefix="/elevenlabs/v1/history", tags=["ElevenLabs compatible"], route_class=UnitOfWorkRoute
)

HistoryItemId = Annotated[str, Path(min_length=1, max_length=MAX_ID)]
# Unix seconds up to the end of year 9999 (the last instant a datetime holds).
MAX_UNIX = 253_402_300_799


@router.get("", response_model=ElevenLabsHistoryResponse, responses=errors(404, 422))
def list_history(
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    page_size: Annotated[QueryInt, Query(ge=1, le=1000, description="1 to 1,000.")] = 100,
    start_after_history_item_id: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=MAX_ID,
            description="The previous page's `last_history_item_id`.",
        ),
    ] = None,
    voice_id: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=MAX_ID,
            description="A catalog voice, or a premade ElevenLabs id (its catalog voice); a "
            "dialogue matches any turn's voice.",
        ),
    ] = None,
    model_id: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=MAX_ID,
            description="`soundstage_sts`: speech to speech; any other: text to speech.",
        ),
    ] = None,
    date_before_unix: Annotated[
        QueryInt | None,
        Query(ge=0, le=MAX_UNIX, description="Unix seconds: created before it (exclusive)."),
    ] = None,
    date_after_unix: Annotated[
        QueryInt | None,
        Query(ge=0, le=MAX_UNIX, description="Unix seconds: created at or after it (inclusive)."),
    ] = None,
    sort_direction: Annotated[SortDirection, Query(description="By creation date.")] = "desc",
    search: Annotated[
        str | None,
        Query(min_length=1, max_length=200, description="In the text, case-insensitively."),
    ] = None,
    source: Annotated[
        HistorySource | None,
        Query(
            description="`TTS` (text to speech, dialogue), `STS` (speech to speech); "
            "`Flows`: none here."
        ),
    ] = None,
) -> ElevenLabsHistoryResponse:
    """The key's text-to-speech, dialogue and speech-to-speech generations, newest first
    (`sort_direction=asc`: oldest first), `page_size` at a time."""
    return service.list_history(
        session,
        settings,
        principal,
        page_size=page_size,
        start_after=start_after_history_item_id,
        voice_id=voice_id,
        model_id=model_id,
        date_before_unix=date_before_unix,
        date_after_unix=date_after_unix,
        sort_direction=sort_direction,
        search=search,
        source=source,
    )


@router.get("/{history_item_id}", response_model=ElevenLabsHistoryItem, responses=errors(404))
def get_history_item(
    history_item_id: HistoryItemId,
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> ElevenLabsHistoryItem:
    return service.get_item(session, settings, principal, history_item_id)


@router.get(
    "/{history_item_id}/audio",
    response_class=FileResponse,
    responses={
        200: {"content": {"audio/*": {}}, "description": "The audio as stored."},
        **errors(404, 410),
    },
)
def get_history_item_audio(
    history_item_id: HistoryItemId,
    request: Request,
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> Response:
    """The generation's audio file, as the native job stored it (text to speech: MP3 unless
    asked otherwise natively); 410 `media_expired` past the storage retention."""
    return service.audio_response(
        db,
        settings,
        principal,
        history_item_id,
        request.headers.get("range"),
        request.headers.get("if-range"),
    )


@router.delete(
    "/{history_item_id}", response_model=ElevenLabsDeleteHistoryItemResponse, responses=errors(404)
)
def delete_history_item(
    history_item_id: HistoryItemId,
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> ElevenLabsDeleteHistoryItemResponse:
    """Delete the generation's audio at once and take it out of the history (nothing is
    refunded)."""
    service.delete_item(session, settings, principal, history_item_id)
    return ElevenLabsDeleteHistoryItemResponse()
