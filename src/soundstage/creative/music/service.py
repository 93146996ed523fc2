"""Music generation as the endpoint sees it: check the request, price it, run the job, answer."""

from __future__ import annotations

import secrets

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import InvalidField
from soundstage.core.principal import Principal
from soundstage.creative.music.errors import VoiceNotSupported
from soundstage.creative.music.schemas import (
    DEFAULT_SINGER,
    MAX_SEED,
    MusicRequest,
    MusicResponse,
)
from soundstage.creative.music.tasks import KIND, MusicJob, SingerChoice
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines.music.prompt import read_prompt
from soundstage.jobs import service as jobs
from soundstage.voices import service as voices


def price(duration_seconds: int) -> int:
    """750 credits a minute of output, per started second."""
    return rates.for_duration(Operation.MUSIC, duration_seconds * 1000)


async def generate(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: MusicRequest,
    *,
    encoding: str | None = None,
) -> MusicResponse:
    """`encoding` (a name of media.encodings) makes the music in that encoding, at its exact
    rate and bit rate, rather than `body.format` (for the compatible APIs)."""
    if body.voice_id is not None and body.instrumental:
        raise InvalidField("voice_id: only used with `instrumental: false`.", param="voice_id")
    # The prompt's own bounds (an explicit tempo) are checked before anything is reserved.
    read_prompt(body.prompt)
    request = MusicJob(
        prompt=body.prompt,
        duration_seconds=body.duration_seconds,
        format=body.format,
        seed=body.seed if body.seed is not None else secrets.randbelow(MAX_SEED + 1),
        singer=None if body.instrumental else await run_in_threadpool(_singer, db, body),
        soundfont=body.soundfont,
        encoding=encoding,
    )
    job = await jobs.run(
        db, settings, principal, KIND, request, credits_needed=price(body.duration_seconds)
    )
    return MusicResponse.of(job)


def _singer(db: Database, body: MusicRequest) -> SingerChoice:
    """The voice that sings: 404 `voice_not_found` if unknown, 422 if it is not English (the
    lyrics are)."""
    voice_id = body.voice_id or DEFAULT_SINGER
    with db.read_session() as session:
        voice = voices.get_active_voice(session, voice_id)
        if not voice.language.lower().startswith("en"):
            raise VoiceNotSupported(
                f"voice_id: {voice_id} speaks {voice.language}; the lyrics are English, so "
                "choose an English voice (GET /api/v1/voices?language=en).",
                param="voice_id",
            )
        return SingerChoice.model_validate(
            {
                "voice_id": voice.id,
                "engine": voice.engine,
                "engine_voice": voice.engine_voice,
                "gender": voice.gender,
            }
        )
