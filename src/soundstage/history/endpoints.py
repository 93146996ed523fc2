"""HTTP endpoints of the history: list the caller's generations, read one, fetch its audio,
delete it."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request
from fastapi.responses import FileResponse, Response

from soundstage.core.deps import DatabaseDep, PrincipalDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageDep
from soundstage.core.params import QueryTimestamp
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.history import service
from soundstage.history.schemas import HistoryItemDeleted, HistoryItemOut, HistoryKind

router = APIRouter(prefix=f"{API_V1}/history", tags=["History"], route_class=UnitOfWorkRoute)

HistoryItemId = Annotated[str, Path(min_length=1, max_length=64)]


@router.get("", response_model=ListResponse[HistoryItemOut], responses=errors(404))
def list_history(
    session: SessionDep,
    principal: PrincipalDep,
    settings: SettingsDep,
    page: PageDep,
    kind: Annotated[HistoryKind | None, Query(description="Only generations of this kind.")] = None,
    voice_id: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=64,
            description="Only generations spoken by this voice (a dialogue: by any turn's; "
            "music: its singer).",
        ),
    ] = None,
    search: Annotated[
        str | None,
        Query(
            min_length=1,
            max_length=200,
            description="Only generations whose text (a dialogue: any turn's) or prompt "
            "contains this, case-insensitively.",
        ),
    ] = None,
    created_after: Annotated[
        QueryTimestamp | None,
        Query(description="Only those created at or after this instant (inclusive)."),
    ] = None,
    created_before: Annotated[
        QueryTimestamp | None,
        Query(description="Only those created before this instant (exclusive)."),
    ] = None,
) -> ListResponse[HistoryItemOut]:
    """The caller's completed generations (text-to-speech, dialogue, sound, music, voice
    changer) in the key's environment, newest first, each with a freshly signed URL of its
    audio. Failed and cancelled jobs, and deleted items, are not listed."""
    filters = service.HistoryFilter(
        kinds=service.KINDS if kind is None else (kind,),
        voice_id=voice_id,
        search=search,
        created_from=created_after,
        created_before=created_before,
    )
    items, has_more = service.list_items(session, settings, principal, page, filters)
    return ListResponse[HistoryItemOut](data=items, has_more=has_more)


@router.get("/{history_item_id}", response_model=HistoryItemOut, responses=errors(404))
def get_history_item(
    history_item_id: HistoryItemId,
    session: SessionDep,
    principal: PrincipalDep,
    settings: SettingsDep,
) -> HistoryItemOut:
    """One generation of the caller's (404 `history_item_not_found` for any other, and once
    deleted)."""
    return service.get_item(session, settings, principal, history_item_id)


@router.get(
    "/{history_item_id}/audio",
    response_class=FileResponse,
    responses={
        200: {
            "content": {"audio/*": {}},
            "description": "The audio bytes as stored (Range requests are honoured).",
        },
        **errors(404, 410),
    },
)
def get_history_item_audio(
    history_item_id: HistoryItemId,
    request: Request,
    db: DatabaseDep,
    principal: PrincipalDep,
    settings: SettingsDep,
) -> Response:
    """The generation's audio itself (not a redirect: the API key is the credential, and the
    answer is the same wherever the media are stored); 410 `media_expired` once past the
    storage retention."""
    return service.audio_response(
        db,
        settings,
        principal,
        history_item_id,
        request.headers.get("range"),
        request.headers.get("if-range"),
    )


@router.delete("/{history_item_id}", response_model=HistoryItemDeleted, responses=errors(404))
def delete_history_item(
    history_item_id: HistoryItemId,
    session: SessionDep,
    principal: PrincipalDep,
    settings: SettingsDep,
) -> HistoryItemDeleted:
    """Delete the generation's stored audio at once (every URL of it answers 410
    `media_expired` from then on, the job's `output_url` too) and take it out of the
    history. The job and its charge stay: nothing is refunded."""
    return HistoryItemDeleted(id=service.delete_item(session, settings, principal, history_item_id))
