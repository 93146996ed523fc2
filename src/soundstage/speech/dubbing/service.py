"""Dubbing as the endpoints see it: check the language pair, fetch and measure the media,
reserve the credits and queue the job; list the supported pairs."""

from __future__ import annotations

import tempfile
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.audio import InvalidMedia, MediaInfo, probe
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.jobs import service as jobs
from soundstage.models import MediaObject
from soundstage.speech.dubbing import media
from soundstage.speech.dubbing.limits import PARAM, check_header
from soundstage.speech.dubbing.schemas import (
    DubbingRequest,
    DubbingResponse,
    LanguagePairOut,
)
from soundstage.speech.dubbing.tasks import KIND
from soundstage.speech.dubbing.tiers import TIERS, estimated_completion_ms
from soundstage.speech.transcribers.base import (
    UnsupportedLanguage,
    bcp47_language,
    whisper_language,
    whisper_languages,
)
from soundstage.speech.translators.base import UnsupportedLanguagePair, language_code
from soundstage.speech.translators.registry import available_pairs, route
from soundstage.storage import service as storage
from soundstage.voices import service as voices


async def submit(
    db: Database, settings: Settings, principal: Principal, body: DubbingRequest
) -> DubbingResponse:
    source, target = await run_in_threadpool(_checked_pair, db, body)
    with tempfile.TemporaryDirectory(prefix="dubbing-") as tmp:
        path = Path(tmp) / "input"
        info = await run_in_threadpool(_fetched, db, settings, body.media_url, path)

        def queue() -> DubbingResponse:
            tier = TIERS[body.tier]
            credits = rates.for_duration(tier.operation, info.duration_ms)
            estimate = estimated_completion_ms(body.tier, info.duration_ms)
            with db.session() as session:
                stored = _keep_input(session, settings, principal, path, info, body.media_url)
                request: dict[str, Any] = {
                    "media_url": body.media_url,
                    "input_media_id": stored.id,
                    "source_language": source,
                    "target_language": target,
                    "tier": body.tier,
                    "preserve_voice": body.preserve_voice,
                    "credits": credits,
                }
                job = jobs.submit(
                    session,
                    settings,
                    principal,
                    KIND,
                    request,
                    credits_needed=credits,
                    is_async=True,
                    estimated_completion_ms=estimate,
                )
                return DubbingResponse(
                    job_id=job.id,
                    status="processing",
                    estimated_completion_ms=estimate,
                    duration_ms=info.duration_ms,
                    credits_reserved=credits,
                )

        return await run_in_threadpool(queue)


def _checked_pair(db: Database, body: DubbingRequest) -> tuple[str, str]:
    """The pair's primary subtags; 422 unsupported_language_pair naming the field at fault."""
    target = language_code(body.target_language, param="target_language")
    try:
        source = bcp47_language(whisper_language(body.source_language))
    except UnsupportedLanguage as exc:
        raise UnsupportedLanguagePair(
            f"Speech in {body.source_language!r} cannot be transcribed here.",
            param="source_language",
        ) from exc
    if source == target:
        raise UnsupportedLanguagePair(
            "The target language must differ from the source language.",
            param="target_language",
        )
    with db.read_session() as session:
        if not voices.active_voices(session, target):
            raise UnsupportedLanguagePair(
                f"No voice speaks {body.target_language!r} here.", param="target_language"
            )
    route(source, target)
    return source, target


def _fetched(db: Database, settings: Settings, url: str, path: Path) -> MediaInfo:
    with db.read_session() as session:
        storage.read_input(session, settings, url, path, param=PARAM)
    info = probe(path, param=PARAM)
    if info.duration_ms <= 0:
        # Priced from this: a header that says nothing lasts would reserve nothing.
        raise InvalidMedia("The media's header gives it no duration.", param=PARAM)
    check_header(settings, info)
    media.plan(info, path)  # video the output cannot hold is refused now, not after the work
    return info


def _keep_input(
    session: Session,
    settings: Settings,
    principal: Principal,
    path: Path,
    info: MediaInfo,
    url: str,
) -> MediaObject:
    """The fetched media, stored for the job (the worker reads it from storage)."""
    return storage.save(
        session,
        settings,
        principal,
        path,
        filename=storage.safe_filename(Path(urlsplit(url).path).name, "input"),
        content_type=storage.content_type_of(info.format_name, info.has_video),
        duration_ms=info.duration_ms,
        purpose="input",
    )


def language_pairs(session: Session) -> list[LanguagePairOut]:
    """Every pair a job would take: a transcribable source, a route, and target voices."""
    voice_counts = Counter(language_code(v.language) for v in voices.active_voices(session))
    sources = {bcp47_language(code) for code in whisper_languages()}
    return [
        LanguagePairOut(
            id=f"{pair.source}:{pair.target}",
            source_language=pair.source,
            target_language=pair.target,
            translator=pair.translator,
            via=list(pair.via),
            voices=voice_counts[pair.target],
        )
        for pair in available_pairs()
        if pair.source in sources and voice_counts[pair.target] > 0
    ]
