"""POST /v1/audio/speech, mapped onto the native streamed text-to-speech job: the same
engines, voices, price (1 credit a character as spoken; a stream that ends early is charged
for the audio it sent) and time to the first byte as POST /api/v1/speech/tts/stream. The
bytes are sent as they are synthesized, in OpenAI's `response_format` (media.encodings'
`openai_*`), either as they are (`stream_format: audio`) or base64 in server-sent events
(`sse`).

`speed` takes OpenAI's 0.25 to 4.0 (the native API's 0.5 to 2.0): the engine speaks at most
at its native range and Rubber Band stretches the rest. `instructions` is accepted and
ignored: the catalog's engines take no directions."""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass

from pydantic import Field
from starlette.concurrency import run_in_threadpool

from soundstage.compat.openai import service as catalog
from soundstage.compat.openai.schemas import MAX_SPEED, MIN_SPEED, SpeechRequest
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.principal import Principal
from soundstage.media.encodings import encoding
from soundstage.speech.tts import service as tts
from soundstage.speech.tts.schemas import TtsRequest

SSE_CONTENT_TYPE = "text/event-stream"
# SSE events carry the audio in pieces of at most this many bytes (before base64).
_SSE_PIECE_BYTES = 16 * 1024


class WideSpeedTtsRequest(TtsRequest):
    """The native request with OpenAI's speed range (the native endpoints keep theirs)."""

    speed: float = Field(default=1.0, ge=MIN_SPEED, le=MAX_SPEED)


@dataclass(frozen=True)
class Speech:
    stream: tts.SpeechStream
    characters: int
    sse: bool

    @property
    def job_id(self) -> str:
        return self.stream.job_id

    @property
    def content_type(self) -> str:
        return SSE_CONTENT_TYPE if self.sse else self.stream.content_type

    def body(self) -> AsyncIterator[bytes]:
        return self._events() if self.sse else self.stream.body()

    async def _events(self) -> AsyncIterator[bytes]:
        """`speech.audio.delta` events with the audio in base64, as it comes, then
        `speech.audio.done` with the usage (the characters charged, as input tokens). A
        stream that fails midway ends without `done` (the transfer is cut)."""
        async for chunk in self.stream.body():
            for start in range(0, len(chunk), _SSE_PIECE_BYTES):
                piece = base64.b64encode(chunk[start : start + _SSE_PIECE_BYTES]).decode()
                yield _event({"type": "speech.audio.delta", "audio": piece})
        usage = {
            "input_tokens": self.characters,
            "output_tokens": 0,
            "total_tokens": self.characters,
        }
        yield _event({"type": "speech.audio.done", "usage": usage})


def _event(data: dict[str, object]) -> bytes:
    return f"data: {json.dumps(data)}\n\n".encode()


async def speak(
    db: Database, settings: Settings, principal: Principal, body: SpeechRequest
) -> Speech:
    """Start the job and wait for its first bytes: errors found before them (an unknown
    model or voice, 402) are answered as errors, with nothing charged."""
    catalog.model(body.model, "speech")

    def resolve() -> tuple[str, int]:
        with db.read_session() as session:
            return catalog.voice(session, body.voice_name)

    voice_id, pitch = await run_in_threadpool(resolve)
    request = WideSpeedTtsRequest(text=body.input, voice_id=voice_id, speed=body.speed, pitch=pitch)
    chosen = encoding(f"openai_{body.response_format}")
    stream = await tts.stream(
        db,
        settings,
        principal,
        request,
        encoding=chosen.name,
        content_type=chosen.content_type,
        text_param="input",
    )
    return Speech(stream, stream.characters, body.stream_format == "sse")
