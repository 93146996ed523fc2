"""HTTP endpoints of dubbing: POST /api/v1/speech/dubbing and its supported language pairs."""

from __future__ import annotations

from fastapi import APIRouter

from soundstage.core.deps import DatabaseDep, PrincipalDep, SessionDep, SettingsDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import PageDep, paginate_items
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.jobs.schemas import JobAccepted
from soundstage.speech.dubbing import service
from soundstage.speech.dubbing.errors import LanguagePairNotFound
from soundstage.speech.dubbing.schemas import DubbingRequest, LanguagePairList

router = APIRouter(prefix=f"{API_V1}/speech/dubbing", tags=["Speech"], route_class=UnitOfWorkRoute)


@router.post("", response_model=JobAccepted, responses=errors(402))
async def dub(
    body: DubbingRequest, db: DatabaseDep, settings: SettingsDep, principal: PrincipalDep
) -> JobAccepted:
    """Translate and re-voice audio or video into another language, keeping each speaker's
    voice characteristics and the timing. Asynchronous: the answer (200, the accepted job:
    `processing`, `estimated_completion_ms`, `credits_reserved`) comes once the media is
    fetched and measured, so a bad URL or undecodable media is 422 `media_url` here and a
    short balance 402; the `dubbing.completed` webhook carries the output URL (and the
    source and target transcripts as SRT), `dubbing.failed` the error, `dubbing.cancelled`
    a cancellation. Charged 1,500 (standard) or 3,000 (premium) credits per minute of
    media, per started second, only when the dub is ready."""
    return await service.submit(db, settings, principal, body)


@router.get("/languages", response_model=LanguagePairList)
def dubbing_languages(
    session: SessionDep, principal: PrincipalDep, page: PageDep
) -> LanguagePairList:
    """Beyond the spec: every (source, target) pair dubbing supports here, with the engine
    that translates it, any pivot language, and how many target voices there are; paged
    like every list (the cursors take a pair's `id`)."""
    pairs, has_more = paginate_items(
        service.language_pairs(session), page, lambda p: p.id, LanguagePairNotFound
    )
    return LanguagePairList(data=pairs, has_more=has_more)
