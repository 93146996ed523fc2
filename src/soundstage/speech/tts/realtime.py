"""Realtime text-to-speech on the API side: the opening message read and its voice resolved,
then the session driven: each client message through the slot's handler
(speech.tts.realtime_session), each spoken piece sent as soon as it is ready (credits covered
first, counted once sent), and the totals at the end.

Server messages, in the order a piece gives them:
- `output_mode: "binary"`: the piece's audio in a binary frame, then
  `{"type": "alignment", "chunk", "text", "start_ms", "duration_ms", "words", "alignment"}`;
- `output_mode: "base64"`: one `{"type": "audio", "audio": <base64>, "isFinal": false, ...}`
  with the same fields (ElevenLabs' shape: `audio`, `isFinal`, `alignment`).
`words` are `{word, start_ms, end_ms}` and `alignment` ElevenLabs' character arrays (`chars`,
`charStartTimesMs`, `charsDurationsMs`), all in ms from the start of the session's audio.
At the end: the encoder's last bytes (MP3) as audio without alignment, then
`{"type": "final", "isFinal": true, "job_id", "characters", "duration_ms", "chunks"}` and a
normal close (1000).
"""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator
from typing import Any, Final

from fastapi import WebSocket
from pydantic import ValidationError

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import InvalidField
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.realtime import live
from soundstage.speech.tts import service
from soundstage.speech.tts.realtime_session import (
    AudioTail,
    SessionParams,
    SessionTotals,
    SpokenChunk,
    TextInput,
)
from soundstage.speech.tts.schemas import RealtimeTtsInput, RealtimeTtsOpening
from soundstage.speech.tts.segments import DEFAULT_CHUNK_LENGTH_SCHEDULE

# Credits reserved when the session opens, and again each time its use outgrows them: one
# block covers the longest piece (280 characters) at least.
BLOCK_CREDITS: Final = 300


async def read_opening(websocket: WebSocket, settings: Settings) -> RealtimeTtsOpening:
    """The opening message (close 4400 naming the field when it is not a valid one)."""
    return await live.read_opening(websocket, RealtimeTtsOpening)


async def session_params(
    db: Database, settings: Settings, opening: RealtimeTtsOpening
) -> dict[str, Any]:
    """The handler's SessionParams: the voice resolved to its engine's (404 when unknown)."""

    schedule = (
        opening.generation_config.chunk_length_schedule
        if opening.generation_config is not None
        else DEFAULT_CHUNK_LENGTH_SCHEDULE
    )
    params = SessionParams(
        **await service.engine_voice(db, opening.voice_id),
        format=opening.format,
        speed=opening.reading_speed,
        pitch=opening.pitch,
        chunk_length_schedule=tuple(schedule),
        max_buffered_characters=settings.tts.realtime_max_buffered_characters,
    )
    return params.model_dump(mode="json")


def _input(body: dict[str, Any]) -> RealtimeTtsInput:
    try:
        return RealtimeTtsInput.model_validate(body)
    except ValidationError as exc:
        param, text = live.validation_error(exc, "message")
        raise InvalidField(text, param=param) from None


class Conversation:
    """One session's protocol: messages in, pieces out, the totals at the end."""

    def __init__(
        self, websocket: WebSocket, session: live.LiveSession, opening: RealtimeTtsOpening
    ) -> None:
        self._websocket = websocket
        self._session = session
        self._base64 = opening.output_mode == "base64"
        self._opening = opening
        self._delivered_ms = 0
        self._chunks = 0
        self._characters = 0

    async def run(self) -> None:
        """Until the client ends the session: then what is buffered is spoken, and the
        totals sent."""
        first = self._opening
        if first.text.strip() or first.flush:
            await self._deliver(self._session.stream(TextInput(first.text, flush=first.flush)))
        while True:
            message = _input(live.read_json(await self._session.receive()))
            if message.text or message.flush:
                text = TextInput(message.text or "", flush=message.flush)
                await self._deliver(self._session.stream(text))
            if message.ends:
                break
        await self._deliver(self._session.finish())

    async def _deliver(self, outputs: AsyncIterator[Any]) -> None:
        async for output in outputs:
            if isinstance(output, SpokenChunk):
                await self._send_chunk(output)
            elif isinstance(output, AudioTail):
                await self._send_audio(output.audio, {})
            elif isinstance(output, SessionTotals):
                await self._websocket.send_json(
                    {
                        "type": "final",
                        "isFinal": True,
                        "job_id": self._session.job_id,
                        "characters": self._characters,
                        "duration_ms": self._delivered_ms,
                        "chunks": self._chunks,
                    }
                )

    async def _send_chunk(self, chunk: SpokenChunk) -> None:
        session = self._session
        charged = session.used + rates.for_characters(Operation.TTS, chunk.characters)
        await session.cover(charged)
        alignment = _alignment(chunk)
        if self._base64:
            await self._send_audio(chunk.audio, alignment)
            self._delivered(chunk, charged)
            return
        if chunk.audio:
            await self._websocket.send_bytes(chunk.audio)
        # The audio is the client's: charged, whatever happens to the alignment after it.
        self._delivered(chunk, charged)
        await self._websocket.send_json({"type": "alignment", **alignment})

    def _delivered(self, chunk: SpokenChunk, charged: int) -> None:
        session = self._session
        session.used = charged
        self._chunks += 1
        self._characters += chunk.characters
        self._delivered_ms = chunk.start_ms + chunk.duration_ms
        session.result = {
            "characters": self._characters,
            "duration_ms": self._delivered_ms,
            "chunks": self._chunks,
            "format": self._opening.format,
            "voice_id": self._opening.voice_id,
        }

    async def _send_audio(self, audio: bytes, alignment: dict[str, Any]) -> None:
        if self._base64:
            body = {
                "type": "audio",
                "audio": base64.b64encode(audio).decode("ascii"),
                "isFinal": False,
            }
            await self._websocket.send_json({**body, **alignment})
            return
        if audio:
            await self._websocket.send_bytes(audio)
        if alignment:
            await self._websocket.send_json({"type": "alignment", **alignment})


def _alignment(chunk: SpokenChunk) -> dict[str, Any]:
    """Where the piece and its words fall, as words and as ElevenLabs' character arrays
    (each word's characters share its time; the spaces between words the gaps)."""
    chars: list[str] = []
    starts: list[int] = []
    durations: list[int] = []
    cursor = chunk.words[0].start_ms if chunk.words else chunk.start_ms
    for index, word in enumerate(chunk.words):
        if index:
            chars.append(" ")
            starts.append(cursor)
            durations.append(word.start_ms - cursor)
        span = word.end_ms - word.start_ms
        for position, character in enumerate(word.word):
            start = word.start_ms + span * position // len(word.word)
            chars.append(character)
            starts.append(start)
            durations.append(word.start_ms + span * (position + 1) // len(word.word) - start)
        cursor = word.end_ms
    return {
        "chunk": chunk.index,
        "text": chunk.text,
        "start_ms": chunk.start_ms,
        "duration_ms": chunk.duration_ms,
        "words": [
            {"word": word.word, "start_ms": word.start_ms, "end_ms": word.end_ms}
            for word in chunk.words
        ],
        "alignment": {"chars": chars, "charStartTimesMs": starts, "charsDurationsMs": durations},
    }


def opening_request(opening: RealtimeTtsOpening) -> dict[str, Any]:
    """What the session's job records as its request."""
    return opening.model_dump(mode="json", exclude={"text"}, exclude_defaults=True) | {
        "voice_id": opening.voice_id,
        "format": opening.format,
    }
