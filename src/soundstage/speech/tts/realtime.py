"""A realtime text-to-speech session (GET /api/v1/speech/tts/realtime), both sides of its slot.

On the API side (`speak`, `Conversation`): the voice resolved, then each client message read
by the session's Dialect (the native protocol's, speech.tts.realtime_dialect, or another
API's: compat's ElevenLabs stream-input) and handed to the slot, each spoken piece sent as
soon as it is ready (credits covered first, counted once sent), the totals at the end.

A session holds one or more contexts (ElevenLabs' multi-stream contexts; the native protocol
has one): each its own text buffer and encoded audio stream, spoken by the one voice.

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

import io
from collections.abc import AsyncIterator, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

import numpy as np
from fastapi import WebSocket
from pydantic import BaseModel, ConfigDict, Field

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.errors import AppError
from soundstage.core.principal import Principal
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.engines import dsp
from soundstage.engines.tts.frontend import reading as frontend
from soundstage.engines.tts.registry import get_engine
from soundstage.media import encodings
from soundstage.media.audio import Audio, StreamEncoder
from soundstage.realtime import live
from soundstage.realtime.messages import ServerMessage, send
from soundstage.realtime.slots import SlotShare
from soundstage.speech.tts import service
from soundstage.speech.tts.realtime_messages import (
    FinalMessage,
    RealtimeFormat,
    RealtimeTtsOpening,
    WordTiming,
)
from soundstage.speech.tts.segments import DEFAULT_CHUNK_LENGTH_SCHEDULE, Cut, Segmenter
from soundstage.speech.tts.speaking import Reading
from soundstage.speech.tts.tasks import REALTIME_KIND

# What a session's single-use tokens are minted for (realtime.gate), whatever its dialect.
PURPOSE: Final = "tts"

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
    # A media.encodings name in place of `format`'s (another API's output_format).
    encoding: encodings.EncodingName | None = None
    speed: float = 1.0
    pitch: int = 0
    chunk_length_schedule: tuple[int, ...] = DEFAULT_CHUNK_LENGTH_SCHEDULE
    max_buffered_characters: int = Field(default=5000, ge=1)


@dataclass(frozen=True)
class TextInput:
    """One text message of the client: its text, and whether to speak everything buffered;
    `context`: the stream of the session it goes to (ElevenLabs' multi-stream contexts; the
    native protocol has one, "")."""

    text: str
    flush: bool = False
    context: str = ""


@dataclass(frozen=True)
class CloseContext:
    """A context ends: its text not yet spoken is dropped (not charged), its encoder's last
    bytes given back."""

    context: str


HandlerInput = TextInput | CloseContext


@dataclass(frozen=True)
class SpokenChunk:
    """One piece spoken: its encoded audio (what the encoder gave out for it: MP3 keeps a frame
    back for the next chunk) and where it and its words fall in the session's audio."""

    index: int
    audio: bytes
    text: str
    context: str
    # Characters of the text as sent that the piece used up: what it is charged.
    characters: int
    start_ms: int
    # The piece's audio with the pause after it.
    duration_ms: int
    # Where the piece's words fall, from the start of its context's audio.
    words: tuple[WordTiming, ...]


@dataclass(frozen=True)
class AudioTail:
    """A context's encoder's last bytes, as it ends (MP3's last frame)."""

    audio: bytes
    context: str = ""


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


class _Stream:
    """One context's text not yet spoken and its audio so far (its own encoder: each
    context's audio is a stream of its own)."""

    def __init__(self, schedule: tuple[int, ...]) -> None:
        self.segments = Segmenter(schedule)
        self.drain = _Drain()
        self.encoder: StreamEncoder | None = None
        self.frames = 0
        self.rate: int | None = None

    def duration_ms(self) -> int:
        return 0 if self.rate is None else round(self.frames * 1000 / self.rate)

    def tail(self) -> bytes:
        if self.encoder is None:
            return b""
        self.encoder.close()
        self.encoder = None
        return self.drain.take()


class RealtimeSpeech:
    """The session handler (realtime.slots' SessionHandler): handle() takes each TextInput
    and yields a SpokenChunk per piece as soon as it is encoded, or a CloseContext and yields
    that context's tail; close() speaks what is left and yields each context's tail and the
    totals."""

    def __init__(self, params: SessionParams) -> None:
        self._params = params
        self._reading = Reading(
            engine=get_engine(params.engine),
            voice=params.engine_voice,
            speed=params.speed,
            pitch=params.pitch,
        )
        self._encoding = encodings.encoding(params.encoding or ENCODINGS[params.format])
        self._streams: dict[str, _Stream] = {}
        self._chunks = 0
        self._characters = 0
        # The audio of the contexts closed so far.
        self._closed_ms = 0

    def warm(self) -> None:
        """Load the voice's model now (once per process), not on the first piece."""
        key = (self._params.engine, self._params.engine_voice)
        if key not in _WARMED:
            self._reading.engine.synthesize("Hello.", self._reading.voice)
            _WARMED.add(key)

    def handle(self, message: HandlerInput) -> Iterator[Output]:
        if isinstance(message, CloseContext):
            stream = self._streams.pop(message.context, None)
            if stream is not None:
                self._closed_ms += stream.duration_ms()
                if tail := stream.tail():
                    yield AudioTail(tail, message.context)
            return
        if not isinstance(message, TextInput):
            raise TypeError(f"a realtime speech session takes TextInput, not {message!r}")
        buffered = sum(stream.segments.buffered for stream in self._streams.values())
        if buffered + len(message.text) > self._params.max_buffered_characters:
            raise TextBufferFull(
                f"At most {self._params.max_buffered_characters} characters may wait to be "
                "spoken: send smaller pieces of text.",
                param="text",
            )
        stream = self._streams.get(message.context)
        if stream is None:
            stream = self._streams[message.context] = _Stream(self._params.chunk_length_schedule)
        stream.segments.add(message.text)
        yield from self._speak(message.context, stream, flush=message.flush)

    def close(self) -> Iterator[Output]:
        for context, stream in self._streams.items():
            yield from self._speak(context, stream, flush=True)
            if tail := stream.tail():
                yield AudioTail(tail, context)
        duration_ms = self._closed_ms + sum(s.duration_ms() for s in self._streams.values())
        yield SessionTotals(self._characters, duration_ms, self._chunks)

    def _speak(self, context: str, stream: _Stream, *, flush: bool) -> Iterator[SpokenChunk]:
        while (cut := stream.segments.next_cut(flush=flush)) is not None:
            chunk = self._spoken(context, stream, cut)
            if chunk is not None:
                yield chunk

    def _spoken(self, context: str, stream: _Stream, cut: Cut) -> SpokenChunk | None:
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
        if stream.encoder is None:
            stream.rate = audio.sample_rate
            stream.encoder = StreamEncoder(stream.drain, self._encoding, audio.sample_rate, 1)
        stream.encoder.write(audio)
        start_ms = stream.duration_ms()
        stream.frames += audio.frames
        end_ms = stream.duration_ms()
        stretch = reading.stretch
        words = _spread(
            cut.text.split(),
            start_ms + round(voiced[0] * stretch),
            start_ms + round(voiced[1] * stretch),
        )
        chunk = SpokenChunk(
            index=self._chunks,
            audio=stream.drain.take(),
            text=cut.text,
            context=context,
            characters=cut.characters,
            start_ms=start_ms,
            duration_ms=end_ms - start_ms,
            words=words,
        )
        self._chunks += 1
        self._characters += cut.characters
        return chunk


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


def open_session(settings: Settings, params: SessionParams, share: SlotShare) -> RealtimeSpeech:
    """The slot's factory (realtime.slots): a session for these parameters, as the API side
    made them, its voice loaded. Its synthesis takes no turn at the cores (realtime.turns):
    every piece of it is awaited by its client, none can be skipped."""
    del settings, share  # the engines read their own settings
    session = RealtimeSpeech(params)
    session.warm()
    return session


# The API side.

# What is sent for a piece: JSON messages, or the audio itself in a binary frame.
Frame = ServerMessage | bytes


@dataclass(frozen=True)
class TextTurn:
    """What one client message asks of the session: `inputs` handed to the handler in order
    (each one's pieces delivered before the next), then the session ends if `ends` (what is
    buffered is spoken)."""

    inputs: tuple[HandlerInput, ...] = ()
    ends: bool = False


class Dialect(Protocol):
    """How a protocol speaks a session: the client's messages read into turns (AppError ends
    the session), the pieces shaped into its frames. The native protocol's is
    speech.tts.realtime_dialect.NativeDialect; the vendors' are in compat. `spoken`'s first
    frame carries the piece's audio: the piece is charged once it is sent."""

    def opening(self) -> TextTurn:
        """What the opening message asks (its text, if any)."""
        ...

    def read(self, message: dict[str, Any]) -> TextTurn: ...

    def spoken(self, chunk: SpokenChunk) -> Sequence[Frame]: ...

    def tail(self, tail: AudioTail) -> Sequence[Frame]: ...

    def context_closed(self, close: CloseContext) -> Sequence[Frame]:
        """What follows a context's end (after its tail)."""
        ...

    def finished(self, totals: FinalMessage) -> Sequence[Frame]:
        """The last frames, before the normal close."""
        ...


async def speak(
    websocket: WebSocket,
    principal: Principal,
    opening: RealtimeTtsOpening,
    db: Database,
    settings: Settings,
    dialect: Dialect,
    *,
    encoding: str | None = None,
) -> None:
    """The session, once its opening message is read, in `dialect` (the native protocol's,
    or another API's): until the client ends it, then a normal close (1000). `encoding`: a
    media.encodings name in place of the opening's `format` (another API's output format)."""
    params = await session_params(db, settings, opening)
    if encoding is not None:
        params = params.model_copy(update={"encoding": encoding})
    request = opening_request(opening) | ({"encoding": encoding} if encoding else {})
    async with live.session(
        websocket,
        principal,
        kind=REALTIME_KIND,
        factory=open_session,
        params=params,
        request=request,
        block_credits=BLOCK_CREDITS,
    ) as session:
        await Conversation(websocket, session, opening, dialect, encoding).run()
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


class Conversation:
    """One session: the dialect's turns in, pieces out (each charged once its audio is sent),
    the totals at the end."""

    def __init__(
        self,
        websocket: WebSocket,
        session: live.LiveSession[HandlerInput, Output],
        opening: RealtimeTtsOpening,
        dialect: Dialect,
        encoding: str | None = None,
    ) -> None:
        self._websocket = websocket
        self._session = session
        self._dialect = dialect
        self._opening = opening
        self._format = encoding or opening.format
        self._delivered_ms = 0
        self._chunks = 0
        self._characters = 0

    async def run(self) -> None:
        """Until the client ends the session: then what is buffered is spoken, and the
        totals sent."""
        turn = self._dialect.opening()
        while True:
            for message in turn.inputs:
                await self._deliver(self._session.stream(message))
                if isinstance(message, CloseContext):
                    await self._send_all(self._dialect.context_closed(message))
            if turn.ends:
                break
            turn = self._dialect.read(await self._session.receive())
        await self._deliver(self._session.finish())

    async def _deliver(self, outputs: AsyncIterator[Output]) -> None:
        async for output in outputs:
            if isinstance(output, SpokenChunk):
                await self._send_chunk(output)
            elif isinstance(output, AudioTail):
                await self._send_all(self._dialect.tail(output))
            else:
                totals = FinalMessage(
                    job_id=self._session.job_id,
                    characters=self._characters,
                    duration_ms=self._delivered_ms,
                    chunks=self._chunks,
                )
                await self._send_all(self._dialect.finished(totals))

    async def _send_chunk(self, chunk: SpokenChunk) -> None:
        session = self._session
        charged = session.used + rates.for_characters(Operation.TTS, chunk.characters)
        await session.cover(charged)
        frames = self._dialect.spoken(chunk)
        await self._send(frames[0])
        # The audio is the client's: charged, whatever happens to what follows it.
        self._delivered(chunk, charged)
        await self._send_all(frames[1:])

    async def _send_all(self, frames: Sequence[Frame]) -> None:
        for frame in frames:
            await self._send(frame)

    async def _send(self, frame: Frame) -> None:
        if isinstance(frame, bytes):
            if frame:
                await self._websocket.send_bytes(frame)
        else:
            await send(self._websocket, frame)

    def _delivered(self, chunk: SpokenChunk, charged: int) -> None:
        session = self._session
        session.used = charged
        self._chunks += 1
        self._characters += chunk.characters
        self._delivered_ms += chunk.duration_ms
        session.result = {
            "characters": self._characters,
            "duration_ms": self._delivered_ms,
            "chunks": self._chunks,
            "format": self._format,
            "voice_id": self._opening.voice_id,
        }
