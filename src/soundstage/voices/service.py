"""The voice catalog as the API and the speech features see it: list, read, resolve a voice
for synthesis, and upsert catalog content (the demo loader, later the talent imports)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta
from typing import Any, Literal, TypeVar

from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool
from starlette.responses import Response

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import ServiceUnavailable
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.timeutil import utcnow
from soundstage.jobs.renders import render_once
from soundstage.models import Creator, Voice
from soundstage.storage import service as storage
from soundstage.voices import previews, repository
from soundstage.voices.errors import VoiceNotFound
from soundstage.voices.quality import measured, quality_of
from soundstage.voices.schemas import CreatorRef, VoiceOut, VoiceQualityOut, VoiceSort

# How long the first request of a preview waits for a worker to render it.
PREVIEW_WAIT_SECONDS = 30.0
Outcome = Literal["created", "updated", "unchanged"]
RowT = TypeVar("RowT", Creator, Voice)


def get_active_voice(session: Session, voice_id: str) -> Voice:
    """The voice text-to-speech should speak with; 404 `voice_not_found` (param `voice_id`)
    when it is unknown or retired."""
    voice = repository.get_active_voice(session, voice_id)
    if voice is None:
        raise VoiceNotFound(f"No such voice: {voice_id}", param="voice_id")
    return voice


def active_voices(session: Session, language: str | None = None) -> list[Voice]:
    """Every active voice (of a language: a base tag takes in its regional variants), in id
    order, for features that choose voices themselves (talent demos, dubbing)."""
    return repository.active_voices(session, language)


def voice_ids_by_creator(session: Session, creator_ids: Iterable[str]) -> dict[str, list[str]]:
    """The active voices each creator performs, by creator id (creators without any absent)."""
    return repository.active_voice_ids_by_creator(session, creator_ids)


def active_voice_ids(session: Session, voice_ids: Iterable[str]) -> set[str]:
    """Those of `voice_ids` that are active catalog voices."""
    return repository.active_voice_ids(session, voice_ids)


def voice_names(session: Session, voice_ids: Iterable[str]) -> dict[str, str]:
    """The name of each of `voice_ids` that the catalog has (retired voices included: a
    past generation names its voice), by id."""
    return {v.id: v.name for v in repository.voices_by_id(session, voice_ids).values()}


def get_voice(session: Session, settings: Settings, voice_id: str) -> VoiceOut:
    voice = get_active_voice(session, voice_id)
    return voice_out(settings, voice, _creators_of(session, [voice])[voice.creator_id])


def list_voices(
    session: Session,
    settings: Settings,
    page: PageParams,
    *,
    language: str | None,
    gender: str | None,
    sort: VoiceSort = "quality",
) -> tuple[list[VoiceOut], bool]:
    """Active voices, optionally of one language (a base tag takes in its regional variants)
    or gender: by language, the best-rated first (`quality`), or newest first (`newest`)."""
    query = repository.active_voices_query(language=language, gender=gender)
    order = None
    if sort == "quality":
        order = repository.quality_order({v: q.mos for v, q in measured().items()})
    voices, has_more = paginate(session, query, Voice, page, VoiceNotFound, order)
    creators = _creators_of(session, voices)
    return [voice_out(settings, v, creators[v.creator_id]) for v in voices], has_more


# A page of the whole catalog read at once by `all_voices` (the API's largest page).
_ALL_VOICES_PAGE = 100


def all_voices(session: Session, settings: Settings, sort: VoiceSort = "quality") -> list[VoiceOut]:
    """Every active voice, page after page as GET /api/v1/voices lists them (the catalog is
    bounded: the engines' voices)."""
    found: list[VoiceOut] = []
    cursor: str | None = None
    while True:
        page, has_more = list_voices(
            session,
            settings,
            PageParams(limit=_ALL_VOICES_PAGE, starting_after=cursor),
            language=None,
            gender=None,
            sort=sort,
        )
        found += page
        if not has_more or not page:
            return found
        cursor = page[-1].voice_id


async def preview_response(
    db: Database, settings: Settings, voice_id: str, range_header: str | None
) -> Response:
    """The voice's preview (from the media store), asking a worker to render it the first
    time and waiting for it (a few seconds at most); 404 for an unknown voice, 503 if no
    worker made it in time."""

    def expected() -> str:
        with db.read_session() as session:
            return previews.preview_key(get_active_voice(session, voice_id))

    key = await run_in_threadpool(expected)
    busy = ServiceUnavailable(
        "The preview is being generated; try again in a few seconds.",
        param="voice_id",
        headers={"Retry-After": "5"},
    )
    await render_once(
        settings,
        lambda: storage.render_exists(settings, key),
        previews.RENDER_TASK,
        voice_id,
        wait_seconds=PREVIEW_WAIT_SECONDS,
        busy=busy,
    )
    response = await run_in_threadpool(
        storage.render_response,
        settings,
        key,
        content_type="audio/mpeg",
        filename=f"{voice_id}{previews.FILE_SUFFIX}",
        range_header=range_header,
        headers={"Cache-Control": "public, max-age=3600"},
    )
    if response is None:  # rendered, then gone: only a store emptied meanwhile does that
        raise busy
    return response


def _creators_of(session: Session, voices: Sequence[Voice]) -> dict[str, Creator]:
    return repository.creators_by_id(session, (v.creator_id for v in voices))


def voice_out(settings: Settings, voice: Voice, creator: Creator) -> VoiceOut:
    """The voice with its creator named and its preview's URL."""
    return VoiceOut(
        voice_id=voice.id,
        name=voice.name,
        description=voice.description,
        language=voice.language,
        gender=voice.gender,
        accent=voice.accent,
        engine=voice.engine,
        creator=CreatorRef(creator_id=creator.id, display_name=creator.display_name),
        preview_url=previews.preview_url(settings, voice.id),
        quality=_quality(voice.id),
        created_at=voice.created_at,
    )


def _quality(voice_id: str) -> VoiceQualityOut | None:
    measured = quality_of(voice_id)
    return None if measured is None else VoiceQualityOut.model_validate(asdict(measured))


@dataclass(frozen=True)
class CatalogCreator:
    """A creator as catalog content (the demo catalog, an import), keyed by its id."""

    id: str
    display_name: str
    bio: str
    gender: str | None
    languages: list[str]
    verified: bool


@dataclass(frozen=True)
class CatalogVoice:
    """A voice as catalog content, keyed by its id."""

    id: str
    creator_id: str
    name: str
    description: str
    language: str
    gender: str
    accent: str
    engine: str
    engine_voice: str
    settings: dict[str, Any]


@dataclass(frozen=True)
class CatalogCounts:
    creators_created: int
    creators_updated: int
    creators_unchanged: int
    voices_created: int
    voices_updated: int
    voices_unchanged: int


def voice_ids_by_engine_voice(session: Session) -> dict[tuple[str, str], str]:
    """The ids already given to engine voices, so that a reload keeps every id."""
    return repository.voice_ids_by_engine_voice(session)


def upsert_catalog(
    session: Session, creators: Sequence[CatalogCreator], voices: Sequence[CatalogVoice]
) -> CatalogCounts:
    """Create or update catalog rows by id; a row already equal to its content is left alone,
    so loading the same content twice changes nothing. `is_active` and `created_at` are not
    catalog content: a retired voice stays retired."""
    now = utcnow()
    # Creators first: the voices' foreign keys point at them.
    existing_creators = repository.creators_by_id(session, (c.id for c in creators))
    by_creator = _upsert(session, Creator, creators, existing_creators, now)
    existing_voices = repository.voices_by_id(session, (v.id for v in voices))
    by_voice = _upsert(session, Voice, voices, existing_voices, now)
    return CatalogCounts(
        creators_created=by_creator["created"],
        creators_updated=by_creator["updated"],
        creators_unchanged=by_creator["unchanged"],
        voices_created=by_voice["created"],
        voices_updated=by_voice["updated"],
        voices_unchanged=by_voice["unchanged"],
    )


def _upsert(
    session: Session,
    model: type[RowT],
    items: Sequence[CatalogCreator | CatalogVoice],
    existing: Mapping[str, RowT],
    now: datetime,
) -> Counter[Outcome]:
    counts: Counter[Outcome] = Counter()
    new_rows: list[RowT] = []
    for position, item in enumerate(items):
        values = asdict(item)
        row_id = values.pop("id")
        row = existing.get(row_id)
        if row is None:
            # Lists are newest first: rows created together are stamped a microsecond apart,
            # the first given newest, so a list shows the content in the order it was written.
            created_at = now - timedelta(microseconds=position)
            new_rows.append(model(id=row_id, created_at=created_at, **values))
            counts["created"] += 1
        else:
            counts[_update(row, values)] += 1
    repository.add_all(session, new_rows)
    return counts


def _update(row: Creator | Voice, values: Mapping[str, Any]) -> Outcome:
    changed = False
    for name, value in values.items():
        if getattr(row, name) != value:
            setattr(row, name, value)
            changed = True
    return "updated" if changed else "unchanged"
