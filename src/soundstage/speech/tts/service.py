"""Text-to-speech as the endpoints see it: check the voice, price the text, run the job, and
either wait for its file or relay its stream."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

from starlette.concurrency import run_in_threadpool

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs import service as jobs
from soundstage.jobs.streams import Relay
from soundstage.media import encodings
from soundstage.media.audio import CONTENT_TYPES
from soundstage.speech.tts.schemas import TtsRequest, TtsResponse
from soundstage.speech.tts.tasks import KIND
from soundstage.voices import service as voices


async def engine_voice(db: Database, voice_id: str) -> dict[str, Any]:
    """The catalog voice `voice_id` as its engine reads it: `engine`, `engine_voice` and
    `language` (404 when there is no such active voice)."""

    def lookup() -> dict[str, Any]:
        with db.read_session() as session:
            voice = voices.get_active_voice(session, voice_id)
            return {
                "engine": voice.engine,
                "engine_voice": voice.engine_voice,
                "language": voice.language,
            }

    return await run_in_threadpool(lookup)


async def _job_request(
    db: Database, body: TtsRequest, *, stream: bool, encoding: str | None = None
) -> dict[str, Any]:
    request = {**body.model_dump(), **await engine_voice(db, body.voice_id), "stream": stream}
    if encoding is not None:
        request["encoding"] = encoding
    return request


async def synthesize(
    db: Database, settings: Settings, principal: Principal, body: TtsRequest
) -> TtsResponse:
    request = await _job_request(db, body, stream=False)
    credits = rates.for_characters(Operation.TTS, len(body.text))
    job = await jobs.run(db, settings, principal, KIND, request, credits_needed=credits)
    return TtsResponse.of(job)


@dataclass(frozen=True)
class SpeechStream:
    job_id: str
    content_type: str
    first_chunk: bytes
    relay: Relay

    async def body(self) -> AsyncIterator[bytes]:
        yield self.first_chunk
        async for chunk in self.relay.rest():
            yield chunk


async def stream(
    db: Database,
    settings: Settings,
    principal: Principal,
    body: TtsRequest,
    *,
    encoding: str | None = None,
    content_type: str | None = None,
) -> SpeechStream:
    """Submit a streamed job and wait for its first audio bytes: errors before them (402, a
    voice or text the engine refuses) are answered as usual, with nothing charged.

    `encoding` (a name of media.encodings; `content_type` defaults to its own) streams the
    audio in that encoding rather than `body.format`, which the stored file keeps (the
    compatible APIs' output formats). Once the stream has ended, `jobs.wait(job_id)` gives
    the job's result (`words` with `timestamps`)."""
    request = await _job_request(db, body, stream=True, encoding=encoding)
    credits = rates.for_characters(Operation.TTS, len(body.text))

    def submit() -> str:
        with db.session() as session:
            job = jobs.submit(
                session, settings, principal, KIND, request, credits_needed=credits, is_async=False
            )
            return job.id

    job_id = await run_in_threadpool(submit)
    relay = Relay(db, settings, job_id)
    first = await relay.first_chunk()
    if content_type is None:
        content_type = (
            encodings.encoding(encoding).content_type if encoding else CONTENT_TYPES[body.format]
        )
    return SpeechStream(job_id, content_type, first, relay)
