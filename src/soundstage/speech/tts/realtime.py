"""A realtime text-to-speech session (GET /api/v1/speech/tts/realtime), both sides of its slot.

On the API side (`speak`, `Conversation`): the voice resolved, then each client message
(speech.tts.realtime_messages) handed to the slot, each spoken piece sent as soon as it is
ready (credits covered first, counted once sent), the totals at the end.

In the slot process (`open_session`, `RealtimeSpeech`): the text streamed in is buffered and
cut into sentences and clauses (speech.tts.segments), each piece is normalized by the text
front end (as plain text: SSML is not read in a session) and spoken by the voice's engine,
encoded in the session's format and given back with where its words fall.

Word timings are estimated, not recognized: each piece's words share its voiced span (the
audio between the first and last 10 ms above 3% of its loudest) in proportion to their length
plus one. Against whisper-base's word timings on the 1,000-character benchmark text (Piper, Joe)
the starts were 125 ms off on average, 267 ms at the 90th percentile and 434 ms at worst;
aligning each piece with tiny.en (engines.transcribers.align) was no closer (145 ms mean, 620 ms
worst) and cost 430 to 630 ms a piece on this machine, time the next piece would wait for. So
the timings come with the audio, at no cost.
"""

from __future__ import annotations

import base64
import io
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from fastapi import WebSocket
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError, InvalidField
from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines import dsp
from soundstage.engines.tts.frontend import reading as frontend
from soundstage.engines.tts.registry import get_engine
from soundstage.media import encodings
from soundstage.media.audio import Audio, StreamEncoder
from soundstage.realtime import live
from soundstage.realtime.messages import read_json, send, validation_error
from soundstage.speech.tts import service
from soundstage.speech.tts.realtime_messages import (
    AlignmentMessage,
    AudioMessage,
    CharacterAlignment,
    FinalMessage,
    RealtimeFormat,
    RealtimeTtsInput,
    RealtimeTtsOpening,
    WordTiming,
)
from soundstage.speech.tts.segments import DEFAULT_CHUNK_LENGTH_SCHEDULE, Cut, Segmenter
from soundstage.speech.tts.tasks import REALTIME_KIND, Reading

# Credits reserved when the session opens, and again each time its use outgrows them: one
# block covers the longest piece (280 characters) at least.
BLOCK_CREDITS: Final = 300
# Each format's encoding (media.encodings): the ElevenLabs output_format names, and for "mp3"
# ElevenLabs' default one.
ENCODINGS: Final[dict[str, str]] = {
    "pcm_16000": "pcm_16000",
    "pcm_22050": "pcm_22050",
    "pcm_24000": "pcm_24000",
    "mp3": "mp3_44100_128",
    "ulaw_8000": "ulaw_8000",
}
# A 10 ms frame of a piece is voiced above this share of the piece's loudest frame.
_VOICED_SHARE: Final = 0.03
_FRAME_MS: Final = 10
# Engines and voices already spoken with in this process: the first piece of a session must
# not wait for a model to load.
_WARMED: set[tuple[str, str]] = set()


class TextBufferFull(AppError):
    """A realtime session was sent more text than it holds unspoken
    (`tts.realtime_max_buffered_characters`): send smaller pieces, or flush."""

    status = 422
    code = "text_buffer_full"


class SessionParams(BaseModel):
    """What a session is opened with: the opening message, with the voice resolved to its
    engine's voice."""

    model_config = ConfigDict(frozen=True)

    engine: str
    engine_voice: str
    language: str | None = None
    format: RealtimeFormat = "pcm_24000"
    speed: float = 1.0
    pitch: int = 0
    chunk_length_schedule: tuple[int, ...] = DEFAULT_CHUNK_LENGTH_SCHEDULE
    max_buffered_characters: int = Field(default=5000, ge=1)


@dataclass(frozen=True)
class TextInput:
    """One text message of the client: its text, and whether to speak everything buffered."""

    text: str
    flush: bool = False


@dataclass(frozen=True)
class SpokenChunk:
    """One piece spoken: its encoded audio (what the encoder gave out for it: MP3 keeps a frame
    back for the next chunk) and where it and its words fall in the session's audio."""

    index: int
    audio: bytes
    text: str
    # Characters of the text as sent that the piece used up: what it is charged.
    characters: int
    start_ms: int
    # The piece's audio with the pause after it.
    duration_ms: int
    words: tuple[WordTiming, ...]


@dataclass(frozen=True)
class AudioTail:
    """The encoder's last bytes, at the end of the session (MP3's last frame)."""

    audio: bytes


@dataclass(frozen=True)
class SessionTotals:
    characters: int
    duration_ms: int
    chunks: int


Output = SpokenChunk | AudioTail | SessionTotals


class _Drain:
    """What StreamEncoder writes to: the bytes since the last take()."""

    def __init__(self) -> None:
        self._buffer = io.BytesIO()

    def write(self, data: bytes, /) -> int:
        return self._buffer.write(data)

    def flush(self) -> None:
        pass

    def take(self) -> bytes:
        data = self._buffer.getvalue()
        self._buffer = io.BytesIO()
        return data


class RealtimeSpeech:
    """The session handler (realtime.slots' SessionHandler): handle() takes each TextInput
    and yields a SpokenChunk per piece as soon as it is encoded; close() speaks what is left
    and yields the encoder's tail and the totals."""

    def __init__(self, params: SessionParams) -> None:
        self._params = params
        self._reading = Reading(
            engine=get_engine(params.engine),
            voice=params.engine_voice,
            speed=params.speed,
            pitch=params.pitch,
        )
        self._encoding = encodings.encoding(ENCODINGS[params.format])
        self._segments = Segmenter(params.chunk_length_schedule)
        self._drain = _Drain()
        self._encoder: StreamEncoder | None = None
        self._chunks = 0
        self._characters = 0
        self._frames = 0
        self._rate: int | None = None

    def warm(self) -> None:
        """Load the voice's model now (once per process), not on the first piece."""
        key = (self._params.engine, self._params.engine_voice)
        if key not in _WARMED:
            self._reading.engine.synthesize("Hello.", self._reading.voice)
            _WARMED.add(key)

    def handle(self, message: TextInput) -> Iterator[Output]:
        if not isinstance(message, TextInput):
            raise TypeError(f"a realtime speech session takes TextInput, not {message!r}")
        if self._segments.buffered + len(message.text) > self._params.max_buffered_characters:
            raise TextBufferFull(
                f"At most {self._params.max_buffered_characters} characters may wait to be "
                "spoken: send smaller pieces of text.",
                param="text",
            )
        self._segments.add(message.text)
        yield from self._speak(flush=message.flush)

    def close(self) -> Iterator[Output]:
        yield from self._speak(flush=True)
        if self._encoder is not None:
            self._encoder.close()
            tail = self._drain.take()
            if tail:
                yield AudioTail(tail)
        yield SessionTotals(self._characters, self._duration_ms(self._frames), self._chunks)

    def _speak(self, *, flush: bool) -> Iterator[SpokenChunk]:
        while (cut := self._segments.next_cut(flush=flush)) is not None:
            chunk = self._spoken(cut)
            if chunk is not None:
                yield chunk

    def _spoken(self, cut: Cut) -> SpokenChunk | None:
        if not any(character.isalnum() for character in cut.text):
            # Punctuation alone ("...", "--"): nothing to say, nothing charged.
            return None
        reading = self._reading
        spoken_words = frontend.plain_spoken_text(cut.text, self._params.language or "en")
        if not spoken_words:
            return None
        clip = reading.engine.synthesize(spoken_words, reading.voice, rate=reading.native_rate)
        voiced = _voiced_span_ms(clip)
        spoken = dsp.join([clip], [round(cut.pause_after_ms / reading.native_rate)])
        audio = dsp.stretch_and_shift(spoken, time_ratio=reading.stretch, semitones=reading.pitch)
        if self._encoder is None:
            self._rate = audio.sample_rate
            self._encoder = StreamEncoder(self._drain, self._encoding, audio.sample_rate, 1)
        self._encoder.write(audio)
        start_ms = self._duration_ms(self._frames)
        self._frames += audio.frames
        end_ms = self._duration_ms(self._frames)
        stretch = reading.stretch
        words = _spread(
            cut.text.split(),
            start_ms + round(voiced[0] * stretch),
            start_ms + round(voiced[1] * stretch),
        )
        chunk = SpokenChunk(
            index=self._chunks,
            audio=self._drain.take(),
            text=cut.text,
            characters=cut.characters,
            start_ms=start_ms,
            duration_ms=end_ms - start_ms,
            words=words,
        )
        self._chunks += 1
        self._characters += cut.characters
        return chunk

    def _duration_ms(self, frames: int) -> int:
        return 0 if self._rate is None else round(frames * 1000 / self._rate)


def _voiced_span_ms(audio: Audio) -> tuple[int, int]:
    """From the first to the end of the last voiced 10 ms frame of a clip."""
    hop = max(1, audio.sample_rate * _FRAME_MS // 1000)
    count = audio.frames // hop
    if count == 0:
        return 0, audio.duration_ms
    frames = audio.samples[: count * hop, 0].reshape(count, hop)
    loudness = np.sqrt(np.mean(np.square(frames, dtype=np.float64), axis=1))
    voiced = np.nonzero(loudness > loudness.max() * _VOICED_SHARE)[0]
    if voiced.size == 0:
        return 0, audio.duration_ms
    return int(voiced[0]) * _FRAME_MS, (int(voiced[-1]) + 1) * _FRAME_MS


def _spread(words: list[str], start_ms: int, end_ms: int) -> tuple[WordTiming, ...]:
    """The words over [start_ms, end_ms], each in proportion to its length plus one."""
    weights = [len(word) + 1 for word in words]
    total, done = sum(weights), 0
    spread: list[WordTiming] = []
    for word, weight in zip(words, weights, strict=True):
        word_start = start_ms + (end_ms - start_ms) * done // total
        done += weight
        word_end = start_ms + (end_ms - start_ms) * done // total
        spread.append(WordTiming(word=word, start_ms=word_start, end_ms=word_end))
    return tuple(spread)


def open_session(settings: Settings, params: SessionParams) -> RealtimeSpeech:
    """The slot's factory (realtime.slots): a session for these parameters, as the API side
    made them, its voice loaded."""
    del settings  # the engines read their own settings
    session = RealtimeSpeech(params)
    session.warm()
    return session


# The API side.


async def speak(
    websocket: WebSocket,
    principal: Principal,
    opening: RealtimeTtsOpening,
    db: Database,
    settings: Settings,
) -> None:
    """The session, once its opening message is read: until the client ends it, then a
    normal close (1000)."""
    params = await session_params(db, settings, opening)
    async with live.session(
        websocket,
        principal,
        kind=REALTIME_KIND,
        factory=open_session,
        params=params,
        request=opening_request(opening),
        block_credits=BLOCK_CREDITS,
    ) as session:
        await Conversation(websocket, session, opening).run()
    await websocket.close()


async def session_params(
    db: Database, settings: Settings, opening: RealtimeTtsOpening
) -> SessionParams:
    """The handler's parameters: the voice resolved to its engine's (404 when unknown)."""
    schedule = (
        opening.generation_config.chunk_length_schedule
        if opening.generation_config is not None
        else DEFAULT_CHUNK_LENGTH_SCHEDULE
    )
    return SessionParams(
        **await service.engine_voice(db, opening.voice_id),
        format=opening.format,
        speed=opening.reading_speed,
        pitch=opening.pitch,
        chunk_length_schedule=tuple(schedule),
        max_buffered_characters=settings.tts.realtime_max_buffered_characters,
    )


def opening_request(opening: RealtimeTtsOpening) -> dict[str, Any]:
    """What the session's job records as its request."""
    return opening.model_dump(mode="json", exclude={"text"}, exclude_defaults=True) | {
        "voice_id": opening.voice_id,
        "format": opening.format,
    }


def _input(body: dict[str, Any]) -> RealtimeTtsInput:
    try:
        return RealtimeTtsInput.model_validate(body)
    except ValidationError as exc:
        param, text = validation_error(exc, "message")
        raise InvalidField(text, param=param) from None


class Conversation:
    """One session's protocol: messages in, pieces out, the totals at the end."""

    def __init__(
        self,
        websocket: WebSocket,
        session: live.LiveSession[TextInput, Output],
        opening: RealtimeTtsOpening,
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
            message = _input(read_json(await self._session.receive()))
            if message.text or message.flush:
                text = TextInput(message.text or "", flush=message.flush)
                await self._deliver(self._session.stream(text))
            if message.ends:
                break
        await self._deliver(self._session.finish())

    async def _deliver(self, outputs: AsyncIterator[Output]) -> None:
        async for output in outputs:
            if isinstance(output, SpokenChunk):
                await self._send_chunk(output)
            elif isinstance(output, AudioTail):
                await self._send_tail(output.audio)
            else:
                totals = FinalMessage(
                    job_id=self._session.job_id,
                    characters=self._characters,
                    duration_ms=self._delivered_ms,
                    chunks=self._chunks,
                )
                await send(self._websocket, totals)

    async def _send_chunk(self, chunk: SpokenChunk) -> None:
        session = self._session
        charged = session.used + rates.for_characters(Operation.TTS, chunk.characters)
        await session.cover(charged)
        alignment = _alignment(chunk)
        if self._base64:
            await send(self._websocket, _audio_message(chunk.audio, alignment))
            self._delivered(chunk, charged)
            return
        if chunk.audio:
            await self._websocket.send_bytes(chunk.audio)
        # The audio is the client's: charged, whatever happens to the alignment after it.
        self._delivered(chunk, charged)
        await send(self._websocket, alignment)

    async def _send_tail(self, audio: bytes) -> None:
        if self._base64:
            await send(self._websocket, AudioMessage(audio=_base64(audio)))
        elif audio:
            await self._websocket.send_bytes(audio)

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


def _alignment(chunk: SpokenChunk) -> AlignmentMessage:
    """Where the piece and its words fall, as words and as ElevenLabs' character arrays."""
    return AlignmentMessage(
        chunk=chunk.index,
        text=chunk.text,
        start_ms=chunk.start_ms,
        duration_ms=chunk.duration_ms,
        words=list(chunk.words),
        alignment=CharacterAlignment.of_words(chunk.words),
    )


def _audio_message(audio: bytes, alignment: AlignmentMessage) -> AudioMessage:
    """Base64 mode's message for a piece: its audio, with its alignment's fields."""
    return AudioMessage(
        audio=_base64(audio),
        chunk=alignment.chunk,
        text=alignment.text,
        start_ms=alignment.start_ms,
        duration_ms=alignment.duration_ms,
        words=alignment.words,
        alignment=alignment.alignment,
    )


def _base64(audio: bytes) -> str:
    return base64.b64encode(audio).decode("ascii")
