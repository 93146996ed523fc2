"""The history as the API sees it: the caller's completed generations (jobs of the kinds in
HistoryKind) read from the job system, their audio from the media store; deleting one
deletes its stored audio at once and takes it out of the history, its job and its charge
untouched."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from pydantic import ValidationError
from sqlalchemy.orm import Session
from starlette.responses import Response

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import InvalidField
from soundstage.core.pagination import PageParams
from soundstage.core.principal import Principal
from soundstage.history.errors import HistoryItemNotFound
from soundstage.history.schemas import HistoryItemOut, HistoryKind, HistoryTurn
from soundstage.jobs import service as jobs
from soundstage.jobs.errors import JobNotFound
from soundstage.jobs.payloads import MediaRef
from soundstage.models import Job, MediaObject
from soundstage.models.jobs import JobStatus
from soundstage.storage import service as storage

KINDS: Final = tuple(HistoryKind)
PARAM: Final = "history_item_id"
# Where each kind's stored request names its voices and holds its words: text-to-speech and
# the voice changer at the top, a song's singer, every dialogue turn.
VOICE_PATHS: Final = ("voice_id", "singer.voice_id", "inputs.*.voice_id")
TEXT_PATHS: Final = ("text", "prompt", "inputs.*.text")


@dataclass(frozen=True)
class HistoryFilter:
    """Which generations to list: of `kinds`, spoken by `voice_id` (any dialogue turn's), whose
    text or prompt contains `search` (case-insensitive), created in [`created_from`,
    `created_before`); newest first unless `oldest_first`."""

    kinds: Collection[HistoryKind] = KINDS
    voice_id: str | None = None
    search: str | None = None
    created_from: datetime | None = None
    created_before: datetime | None = None
    oldest_first: bool = False


def list_items(
    session: Session,
    settings: Settings,
    principal: Principal,
    page: PageParams,
    filters: HistoryFilter,
    *,
    range_params: tuple[str, str] = ("created_after", "created_before"),
) -> tuple[list[HistoryItemOut], bool]:
    """A page of the caller's generations; an empty date range is 422 naming its end
    (`range_params`: the caller's names of its start and end)."""
    start, end = filters.created_from, filters.created_before
    if start is not None and end is not None and start >= end:
        raise InvalidField(
            f"{range_params[1]}: must be later than {range_params[0]}.", param=range_params[1]
        )
    matches = []
    if filters.voice_id is not None:
        matches.append(jobs.RequestMatch(VOICE_PATHS, filters.voice_id))
    if filters.search is not None:
        matches.append(jobs.RequestMatch(TEXT_PATHS, filters.search, contains=True))
    found, has_more = jobs.find_jobs(
        session,
        principal,
        page,
        HistoryItemNotFound,
        kinds=[str(kind) for kind in filters.kinds],
        status=JobStatus.COMPLETED,
        created_from=start,
        created_before=end,
        outputs_deleted=False,
        matches=matches,
        oldest_first=filters.oldest_first,
    )
    return items_of(session, settings, principal, found), has_more


def get_item(
    session: Session,
    settings: Settings,
    principal: Principal,
    item_id: str,
    kinds: Collection[HistoryKind] = KINDS,
) -> HistoryItemOut:
    job = _owned_job(session, principal, item_id, kinds)
    return items_of(session, settings, principal, [job])[0]


def audio_response(
    db: Database,
    settings: Settings,
    principal: Principal,
    item_id: str,
    range_header: str | None,
    if_range: str | None,
    kinds: Collection[HistoryKind] = KINDS,
) -> Response:
    """The item's audio, Range requests honoured; 410 `media_expired` once its audio passed
    the storage retention. Blocking: call it from a thread."""
    with db.read_session() as session:
        job = _owned_job(session, principal, item_id, kinds)
        ref = _audio_ref(job)
        if ref is None:  # a generation's result always has its audio
            raise HistoryItemNotFound(f"No audio for history item {item_id}", param=PARAM)
        media = storage.get_owned(session, principal, ref.media_id)
    return storage.media_response(settings, media, range_header, if_range)


def delete_item(
    session: Session,
    settings: Settings,
    principal: Principal,
    item_id: str,
    kinds: Collection[HistoryKind] = KINDS,
) -> str:
    """Delete a generation's stored audio at once (its URLs answer 410 `media_expired` from
    the commit on) and take it out of the history; its job stays (its result's URLs answer
    410 too) and the ledger is untouched. A second delete is 404."""
    job = _owned_job(session, principal, item_id, kinds)
    if not jobs.delete_outputs(session, settings, principal, job):
        raise _not_found(item_id)
    return job.id


def _not_found(item_id: str) -> HistoryItemNotFound:
    return HistoryItemNotFound(f"No such history item: {item_id}", param=PARAM)


def _owned_job(
    session: Session, principal: Principal, item_id: str, kinds: Collection[HistoryKind]
) -> Job:
    """The caller's completed generation `item_id` of `kinds`, not deleted; else 404."""
    try:
        job = jobs.get(session, principal, item_id)
    except JobNotFound:
        raise _not_found(item_id) from None
    if (
        job.kind not in {str(kind) for kind in kinds}
        or job.status != JobStatus.COMPLETED
        or job.outputs_deleted_at is not None
    ):
        raise _not_found(item_id)
    return job


def _audio_ref(job: Job) -> MediaRef | None:
    """The stored audio a generation's result points at (its `output_url`)."""
    try:
        return MediaRef.model_validate((job.result or {}).get("output_url"))
    except ValidationError:
        return None


def items_of(
    session: Session, settings: Settings, principal: Principal, found: list[Job]
) -> list[HistoryItemOut]:
    """The items of generations read together: their audio looked up at once."""
    refs = {job.id: _audio_ref(job) for job in found}
    media = storage.owned_media(
        session, principal, [ref.media_id for ref in refs.values() if ref is not None]
    )
    items = []
    for job in found:
        ref = refs[job.id]
        items.append(_item(settings, job, media.get(ref.media_id) if ref is not None else None))
    return items


def _item(settings: Settings, job: Job, media: MediaObject | None) -> HistoryItemOut:
    kind = HistoryKind(job.kind)
    request: dict[str, Any] = job.request or {}
    result: dict[str, Any] = job.result or {}
    turns = _turns(request) if kind == HistoryKind.DIALOGUE else None
    text: str | None = None
    if turns is not None:
        text = "\n".join(turn.text for turn in turns)
    elif kind == HistoryKind.TTS:
        text = _string(request.get("text"))
    prompt = (
        _string(request.get("prompt")) if kind in (HistoryKind.SOUND, HistoryKind.MUSIC) else None
    )
    duration_ms = _integer(result.get("duration_ms"))
    if duration_ms is None and media is not None:
        duration_ms = media.duration_ms
    return HistoryItemOut(
        id=job.id,
        kind=kind,
        status="completed",
        created_at=job.created_at,
        voice_ids=_voice_ids(kind, request, turns),
        text=text,
        prompt=prompt,
        turns=turns,
        characters=_integer(result.get("characters_processed")),
        credits_used=job.credits_used or 0,
        duration_ms=duration_ms,
        content_type=media.content_type if media is not None else None,
        audio_url=_url(settings, media),
        audio_expires_at=media.expires_at if media is not None else None,
    )


def _url(settings: Settings, media: MediaObject | None) -> str | None:
    """A freshly signed URL of live audio; None once it expired."""
    if media is None or not storage.is_live(media):
        return None
    return storage.url_of(settings, media)[0]


def _turns(request: dict[str, Any]) -> list[HistoryTurn]:
    inputs = request.get("inputs")
    if not isinstance(inputs, list):
        return []
    return [
        HistoryTurn(
            voice_id=_string(turn.get("voice_id")) or "", text=_string(turn.get("text")) or ""
        )
        for turn in inputs
        if isinstance(turn, dict)
    ]


def _voice_ids(
    kind: HistoryKind, request: dict[str, Any], turns: list[HistoryTurn] | None
) -> list[str]:
    if turns is not None:
        return list(dict.fromkeys(turn.voice_id for turn in turns if turn.voice_id))
    if kind == HistoryKind.MUSIC:
        singer = request.get("singer")
        found = singer.get("voice_id") if isinstance(singer, dict) else None
    else:
        found = request.get("voice_id")
    voice_id = _string(found)
    return [voice_id] if voice_id else []


def _string(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _integer(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None
