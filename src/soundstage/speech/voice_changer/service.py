"""The voice changer as the endpoint sees it: check the voice and language, run the job."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.engines.transcribers.base import whisper_language
from soundstage.jobs import service as jobs
from soundstage.speech.voice_changer.schemas import VoiceChangerRequest, VoiceChangerResponse
from soundstage.speech.voice_changer.tasks import KIND, VoiceChangerJob
from soundstage.voices import service as voices


async def change_voice(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: VoiceChangerRequest,
    *,
    encoding: str | None = None,
) -> VoiceChangerResponse:
    """`encoding` (a name of media.encodings) makes the output in that encoding, at its exact
    rate and bit rate, rather than `body.format` (for the compatible APIs)."""

    def job_request() -> VoiceChangerJob:
        with db.read_session() as session:
            voice = voices.get_active_voice(session, body.voice_id)
            language = body.language or voice.language
        whisper_language(language)  # 422 unsupported_language, param language
        return VoiceChangerJob(
            audio_url=body.audio_url,
            format=body.format,
            remove_background_noise=body.remove_background_noise,
            language=language,
            voice_id=voice.id,
            engine=voice.engine,
            engine_voice=voice.engine_voice,
            encoding=encoding,
        )

    request = await run_in_threadpool(job_request)
    # Priced by the input's duration, which the job measures and reserves before working.
    job = await jobs.run(db, settings, principal, KIND, request, credits_needed=0)
    return VoiceChangerResponse.of(job)
