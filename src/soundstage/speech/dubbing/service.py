"""Dubbing as the endpoints see it: check the language pair, fetch and measure the media,
reserve the credits and queue the job (jobs.inputs); list the supported pairs."""

from __future__ import annotations

from collections import Counter
from typing import Final

from sqlalchemy.orm import Session

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.engines.transcribers.base import (
    UnsupportedLanguage,
    bcp47_language,
    whisper_language,
    whisper_languages,
)
from soundstage.engines.translators.base import UnsupportedLanguagePair, language_code
from soundstage.engines.translators.registry import available_pairs, route
from soundstage.jobs import inputs
from soundstage.jobs.schemas import JobAccepted
from soundstage.speech.dubbing import media
from soundstage.speech.dubbing.limits import AUTO, OPERATION, PARAM
from soundstage.speech.dubbing.schemas import DubbingRequest, LanguagePairOut
from soundstage.speech.dubbing.tasks import KIND, DubbingJob
from soundstage.speech.dubbing.tiers import TIERS, estimated_completion_ms
from soundstage.voices import service as voices

# The dubbing job's kind, for the compatible APIs that read a dub back as its job.
DUBBING_KIND: Final = KIND


async def submit(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: DubbingRequest,
    *,
    name: str | None = None,
) -> JobAccepted:
    """`name` is kept with the job's request (a compatible API's name for the dub)."""
    return await inputs.in_fetch_thread(settings, _submit, db, settings, principal, body, name)


def _submit(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: DubbingRequest,
    name: str | None = None,
) -> JobAccepted:
    source, target = _checked_pair(db, body)

    def plan(fetched: list[inputs.Fetched]) -> inputs.Plan:
        [media_in] = fetched
        # Video the output cannot hold is refused now, not after the work.
        media.plan(media_in.info, media_in.path)
        tier = TIERS[body.tier]
        credits = rates.for_duration(tier.operation, media_in.info.duration_ms)
        request = DubbingJob(
            media_url=body.media_url,
            source_language=source,
            target_language=target,
            tier=body.tier,
            preserve_voice=body.preserve_voice,
            name=name,
        )
        return inputs.Plan(
            request=request,
            credits=credits,
            estimated_completion_ms=estimated_completion_ms(body.tier, media_in.info.duration_ms),
            duration_ms=media_in.info.duration_ms,
        )

    wanted = inputs.Wanted(body.media_url, PARAM, settings.dubbing.max_duration_ms, OPERATION)
    return inputs.submit(db, settings, principal, KIND, [wanted], plan)


def _checked_pair(db: Database, body: DubbingRequest) -> tuple[str, str]:
    """The pair's primary subtags (the source `auto` as it is: some pair must reach the
    target); 422 unsupported_language_pair naming the field at fault."""
    target = language_code(body.target_language, param="target_language")
    source = AUTO if body.source_language.lower() == AUTO else _source(body.source_language)
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
    if source != AUTO:
        route(source, target)
    elif not any(pair.target == target for pair in available_pairs()):
        raise UnsupportedLanguagePair(
            f"No language is dubbed into {body.target_language!r} here.",
            param="target_language",
        )
    return source, target


def _source(tag: str) -> str:
    try:
        return bcp47_language(whisper_language(tag))
    except UnsupportedLanguage as exc:
        raise UnsupportedLanguagePair(
            f"Speech in {tag!r} cannot be transcribed here.", param="source_language"
        ) from exc


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
