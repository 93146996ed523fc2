"""Text-to-speech as the endpoint sees it: check the voice, price the text, run the job."""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs import service as jobs
from soundstage.speech.tts.schemas import TtsRequest, TtsResponse
from soundstage.speech.tts.tasks import KIND
from soundstage.voices import service as voices


async def synthesize(
    db: Database, settings: Settings, principal: Principal, body: TtsRequest
) -> TtsResponse:
    def voice_settings() -> tuple[str, str]:
        with db.read_session() as session:
            voice = voices.get_active_voice(session, body.voice_id)
            return voice.engine, voice.engine_voice

    engine, engine_voice = await run_in_threadpool(voice_settings)
    request = {**body.model_dump(), "engine": engine, "engine_voice": engine_voice}
    credits = rates.for_characters(Operation.TTS, len(body.text))
    job = await jobs.submit_and_wait(db, settings, principal, KIND, request, credits_needed=credits)
    await run_in_threadpool(jobs.raise_for_failure, db, job)
    result = job.result or {}
    return TtsResponse(
        job_id=job.job_id,
        status="completed",
        output_url=result["output_url"],
        duration_ms=result["duration_ms"],
        characters_processed=result["characters_processed"],
        credits_used=job.credits_used or 0,
    )
