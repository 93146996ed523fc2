"""ElevenLabs' history onto the native one (soundstage.history): text to speech and dialogue
are its `TTS` source, the voice changer its `STS`; sound and music are not in ElevenLabs'
history (its API lists neither), so they are not here either."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Final

from sqlalchemy.orm import Session
from starlette.responses import Response

from soundstage.compat.elevenlabs.catalog import STS_MODEL, TTS_MODEL
from soundstage.compat.elevenlabs.history.schemas import (
    ElevenLabsDialogueInput,
    ElevenLabsHistoryItem,
    ElevenLabsHistoryResponse,
    HistorySource,
)
from soundstage.compat.voice_aliases import ELEVENLABS_VOICES
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.pagination import PageParams
from soundstage.core.principal import Principal
from soundstage.history import service as history
from soundstage.history.schemas import HistoryItemOut, HistoryKind
from soundstage.voices import service as voices

TTS_KINDS: Final = (HistoryKind.TTS, HistoryKind.DIALOGUE)
STS_KINDS: Final = (HistoryKind.VOICE_CHANGER,)
KINDS: Final = TTS_KINDS + STS_KINDS
SOURCES: Final[dict[str, tuple[HistoryKind, ...]]] = {
    "TTS": TTS_KINDS,
    "STS": STS_KINDS,
    "Flows": (),
}
DEFAULT_CONTENT_TYPE: Final = "audio/mpeg"


def _kinds(source: HistorySource | None, model_id: str | None) -> tuple[HistoryKind, ...]:
    """The kinds a `source` and a `model_id` leave: `soundstage_sts` is the voice changer's
    model, any other id text to speech's (as text to speech takes any `model_id`)."""
    kinds = KINDS if source is None else SOURCES[source]
    if model_id is not None:
        of_model = STS_KINDS if model_id == STS_MODEL else TTS_KINDS
        kinds = tuple(kind for kind in kinds if kind in of_model)
    return kinds


def _moment(unix: int | None) -> datetime | None:
    return None if unix is None else datetime.fromtimestamp(unix, UTC)


def list_history(
    session: Session,
    settings: Settings,
    principal: Principal,
    *,
    page_size: int,
    start_after: str | None,
    voice_id: str | None,
    model_id: str | None,
    date_before_unix: int | None,
    date_after_unix: int | None,
    sort_direction: str,
    search: str | None,
    source: HistorySource | None,
) -> ElevenLabsHistoryResponse:
    """A page of the caller's generations; a premade voice id filters by the catalog voice
    that reads it."""
    alias = ELEVENLABS_VOICES.get(voice_id) if voice_id is not None else None
    filters = history.HistoryFilter(
        kinds=_kinds(source, model_id),
        voice_id=alias.voice_id if alias is not None else voice_id,
        search=search,
        created_from=_moment(date_after_unix),
        created_before=_moment(date_before_unix),
        oldest_first=sort_direction == "asc",
    )
    items, has_more = history.list_items(
        session,
        settings,
        principal,
        PageParams(limit=page_size, starting_after=start_after),
        filters,
        range_params=("date_after_unix", "date_before_unix"),
    )
    shown = _items(session, items)
    return ElevenLabsHistoryResponse(
        history=shown,
        last_history_item_id=shown[-1].history_item_id if shown else None,
        has_more=has_more,
        scanned_until=shown[-1].date_unix if shown else None,
    )


def get_item(
    session: Session, settings: Settings, principal: Principal, item_id: str
) -> ElevenLabsHistoryItem:
    return _items(session, [history.get_item(session, settings, principal, item_id, KINDS)])[0]


def audio_response(
    db: Database,
    settings: Settings,
    principal: Principal,
    item_id: str,
    range_header: str | None,
    if_range: str | None,
) -> Response:
    return history.audio_response(db, settings, principal, item_id, range_header, if_range, KINDS)


def delete_item(session: Session, settings: Settings, principal: Principal, item_id: str) -> None:
    history.delete_item(session, settings, principal, item_id, KINDS)


def _items(session: Session, items: list[HistoryItemOut]) -> list[ElevenLabsHistoryItem]:
    """The items in ElevenLabs' shape, their voices' names read at once."""
    names = voices.voice_names(session, {v for item in items for v in item.voice_ids})
    return [_item(item, names) for item in items]


def _item(item: HistoryItemOut, named: dict[str, str]) -> ElevenLabsHistoryItem:
    sts = item.kind == HistoryKind.VOICE_CHANGER
    dialogue = None
    if item.turns is not None:
        dialogue = [
            ElevenLabsDialogueInput(
                text=turn.text, voice_id=turn.voice_id, voice_name=named.get(turn.voice_id, "")
            )
            for turn in item.turns
        ]
    voice_id = item.voice_ids[0] if item.voice_ids and dialogue is None else None
    return ElevenLabsHistoryItem(
        history_item_id=item.id,
        request_id=item.id,
        voice_id=voice_id,
        model_id=STS_MODEL if sts else TTS_MODEL,
        voice_name=named.get(voice_id) if voice_id is not None else None,
        voice_category="premade" if voice_id is not None else None,
        text=None if dialogue is not None or sts else item.text,
        date_unix=int(item.created_at.timestamp()),
        character_count_change_from=0,
        # The subscription's `character_limit` is the credit balance: what was used is the
        # charge (text to speech: its characters as spoken).
        character_count_change_to=item.credits_used,
        content_type=item.content_type or DEFAULT_CONTENT_TYPE,
        state="created",
        settings=None,
        source="STS" if sts else "TTS",
        dialogue=dialogue,
    )
