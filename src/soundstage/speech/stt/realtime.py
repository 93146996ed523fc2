"""A realtime transcription session (GET /api/v1/speech/stt/realtime), both sides of its slot.
On the API side (`transcribe`): the client's messages read (speech.stt.realtime_messages),
the audio received charged before it is handed on, the recognizer's messages sent as they
come, the totals at the end, in the native protocol or another's (a Dialect: compat's
ElevenLabs and OpenAI realtime transcription). In the slot process (`open_session`,
`RealtimeTranscription`): the audio (16-bit PCM or mu-law at its rate) decoded to 16 kHz,
fed to the streaming recognizer, its events turned into the protocol's messages; its
partials decoded in the pool's batch process (`decode_partials`) with the other sessions'."""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, Protocol

import numpy as np
import soxr
from fastapi import WebSocket
from pydantic import BaseModel, ConfigDict

from soundstage.config import Settings
from soundstage.core.principal import Principal
from soundstage.credits.rates import Operation, for_duration
from soundstage.engines.transcribers import partials, streaming
from soundstage.engines.transcribers.base import TranscriberUnavailable, UnknownModel
from soundstage.engines.transcribers.partials import (
    LocalPartials,
    PartialDecodes,
    PartialRequest,
    Samples,
)
from soundstage.engines.transcribers.streaming import (
    SAMPLE_RATE,
    DecodeTurns,
    StreamingOptions,
    load_recognizer,
    whisper_model,
)
from soundstage.realtime import live
from soundstage.realtime.batching import BatchClient, BatchLost
from soundstage.realtime.messages import ServerMessage, read_json, send
from soundstage.realtime.slots import SlotShare
from soundstage.speech.stt.realtime_messages import (
    FinalTranscript,
    PartialTranscript,
    SessionClosed,
    SessionStarted,
    SpeechStarted,
    SpeechStopped,
    SttRealtimeInput,
    SttRealtimeOpening,
    TimedWord,
)
from soundstage.speech.stt.tasks import REALTIME_KIND

logger = logging.getLogger(__name__)

# What a session's single-use tokens are minted for (realtime.gate), whatever its dialect.
PURPOSE: Final = "stt"
BYTES_PER_SAMPLE: Final = {"pcm_s16le": 2, "mulaw": 1}
# Credits are reserved a minute of audio at a time (250) as the session's audio grows.
BLOCK_MS: Final = 60_000
# The most audio already received that goes to the recognizer in one step when the session
# is behind its client: a partial per 2 s of it at most, so a lagging session catches up (a
# partial decodes the whole utterance so far) while its partials still move.
BATCH_MS: Final = 2_000


@dataclass(frozen=True)
class Commit:
    """The utterance under way ends now (the client's `commit`)."""


@dataclass(frozen=True)
class Clear:
    """The audio not transcribed yet is dropped (a client's `clear`): no final for it."""


class SessionStats(BaseModel):
    """The handler's last output, for the API side only: the slot's time on the audio."""

    model_config = ConfigDict(frozen=True)

    type: Literal["session.stats"] = "session.stats"
    processing_ms: int


# What the slot's handler takes, and what it gives back.
SlotInput = bytes | Commit | Clear
Recognized = SpeechStarted | SpeechStopped | PartialTranscript | FinalTranscript
SlotOutput = Recognized | SessionStats


@dataclass(frozen=True)
class ClientTurn:
    """What one client message asks of the session, in this order: `replies` sent at once,
    then `audio` transcribed, the utterance committed, the untranscribed audio cleared, the
    session closed."""

    audio: bytes = b""
    commit: bool = False
    clear: bool = False
    close: bool = False
    replies: tuple[ServerMessage, ...] = ()


class Dialect(Protocol):
    """How a protocol speaks a session: the client's messages read into turns (AppError ends
    the session), the recognizer's outputs shaped into its server messages. The native
    protocol is NativeDialect; the vendors' are in compat."""

    def started(self, job_id: str) -> Sequence[ServerMessage]: ...

    def read(self, message: dict[str, Any]) -> ClientTurn: ...

    def shaped(self, output: Recognized) -> Sequence[ServerMessage]: ...

    def settled(self, turn: ClientTurn) -> Sequence[ServerMessage]:
        """What follows once the outputs of a client's turn are all out."""
        ...

    def closed(self, closed: SessionClosed) -> Sequence[ServerMessage]: ...


class NativeDialect:
    """GET /api/v1/speech/stt/realtime's own protocol (speech.stt.realtime_messages)."""

    def __init__(self, opening: SttRealtimeOpening) -> None:
        self._opening = opening

    def started(self, job_id: str) -> Sequence[ServerMessage]:
        return [SessionStarted(job_id=job_id, session=self._opening)]

    def read(self, message: dict[str, Any]) -> ClientTurn:
        """A binary frame is audio; a text one a JSON message (SttRealtimeInput.of_json)."""
        if message.get("bytes") is not None:
            return ClientTurn(audio=bytes(message["bytes"]))
        read = SttRealtimeInput.of_json(read_json(message))
        return ClientTurn(audio=read.audio, commit=read.commit, close=read.close)

    def shaped(self, output: Recognized) -> Sequence[ServerMessage]:
        return [output]

    def settled(self, turn: ClientTurn) -> Sequence[ServerMessage]:
        return []

    def closed(self, closed: SessionClosed) -> Sequence[ServerMessage]:
        return [closed]


async def transcribe(
    websocket: WebSocket,
    principal: Principal,
    opening: SttRealtimeOpening,
    dialect: Dialect | None = None,
    *,
    early: Sequence[dict[str, Any]] = (),
) -> None:
    """The session, once its opening is known: the dialect's start (`session.started`),
    then each message of the recognizer as it comes, until the client closes; then the
    dialect's end (`session.closed` with what was charged), and a normal close. `early`:
    client messages read before the session opened, handled first."""
    speaks = dialect or NativeDialect(opening)
    bytes_per_second = BYTES_PER_SAMPLE[opening.encoding] * opening.sample_rate
    received = 0
    finals: list[str] = []
    async with live.session(
        websocket,
        principal,
        kind=REALTIME_KIND,
        factory=open_session,
        params=opening,
        request=opening.model_dump(),
        block_credits=for_duration(Operation.STT, BLOCK_MS),
    ) as session:
        await _send_all(websocket, speaks.started(session.job_id))

        async def relay(message: SlotInput) -> None:
            async for out in session.stream(message):
                if isinstance(out, FinalTranscript):
                    finals.append(out.text)
                if not isinstance(out, SessionStats):
                    await _send_all(websocket, speaks.shaped(out))

        pending = list(early)
        carried: ClientTurn | None = None
        while True:
            if carried is not None:
                turn, carried = carried, None
            else:
                turn = speaks.read(pending.pop(0) if pending else await session.receive())
            # A session behind its client hands the audio waiting to the recognizer at once,
            # up to BATCH_MS: one partial for it, not one per frame (the finals are the same).
            # The early messages go first, each on its own.
            batch = bytes_per_second * BATCH_MS // 1000
            while not pending and _audio_only(turn) and len(turn.audio) < batch:
                ready = session.received()
                if ready is None:
                    break
                following = speaks.read(ready)
                if not _audio_only(following):
                    carried = following
                    break
                turn = ClientTurn(audio=turn.audio + following.audio)
            await _send_all(websocket, turn.replies)
            if turn.audio:
                received += len(turn.audio)
                # Charged for what was received, also if the client leaves mid-frame.
                credits = for_duration(Operation.STT, received * 1000 // bytes_per_second)
                await session.cover(credits)
                session.used = credits
                await relay(turn.audio)
            if turn.commit:
                await relay(Commit())
            if turn.clear:
                await relay(Clear())
            await _send_all(websocket, speaks.settled(turn))
            if turn.close:
                break
        processing_ms = 0
        async for out in session.finish():
            if isinstance(out, SessionStats):
                processing_ms = out.processing_ms
                continue
            if isinstance(out, FinalTranscript):
                finals.append(out.text)
            await _send_all(websocket, speaks.shaped(out))
        duration_ms = received * 1000 // bytes_per_second
        session.result = {
            "duration_ms": duration_ms,
            "processing_ms": processing_ms,
            "transcript": " ".join(finals),
            "utterances": len(finals),
        }
    closed = SessionClosed(
        job_id=session.job_id,
        duration_ms=duration_ms,
        credits_used=session.captured,
        processing_ms=processing_ms,
    )
    await _send_all(websocket, speaks.closed(closed))
    await websocket.close()


def _audio_only(turn: ClientTurn) -> bool:
    return bool(turn.audio) and turn == ClientTurn(audio=turn.audio)


async def _send_all(websocket: WebSocket, messages: Sequence[ServerMessage]) -> None:
    for message in messages:
        await send(websocket, message)


def open_session(
    settings: Settings, opening: SttRealtimeOpening, share: SlotShare
) -> RealtimeTranscription:
    """The handler of one session (the slot's factory), for its opening message as the API
    side validated it; its finals take turns at the cores with the other slots', its partials
    go to the pool's batch process. Loads the model on the slot's first session (about
    0.5 s), then reuses it."""
    here = LocalPartials(lambda name: whisper_model(name, settings), share.turns)
    shared = None if share.batch is None else SharedPartials(share.batch, here)
    return RealtimeTranscription(settings, opening, share.turns, shared)


def decode_partials(
    settings: Settings, asks: list[tuple[str, PartialRequest]]
) -> list[tuple[str | None, float]]:
    """The pool's batch function (realtime.batching): each ask's partial text (None where the
    model cannot be had) and its share of the seconds its batch took, those of one model
    decoded together. With no asks (the batch process starting), the models partials use by
    default are loaded."""
    if not asks:
        for name in (settings.stt.default_model, settings.stt.realtime_partial_model):
            if name:
                with contextlib.suppress(UnknownModel, TranscriberUnavailable):
                    whisper_model(name, settings)
        return []
    answers: list[tuple[str | None, float]] = [(None, 0.0)] * len(asks)
    for name in dict.fromkeys(model for model, _ in asks):
        indices = [i for i, (model, _) in enumerate(asks) if model == name]
        started = time.perf_counter()
        try:
            decoded = partials.decode_partials(
                whisper_model(name, settings), [asks[i][1] for i in indices]
            )
        except (UnknownModel, TranscriberUnavailable) as exc:
            logger.warning("realtime partials of %s not decoded: %s", name, exc)
            continue
        share = (time.perf_counter() - started) / len(indices)
        for index, text in zip(indices, decoded, strict=True):
            answers[index] = (text, share)
    return answers


class SharedPartials:
    """A recognizer's partials (engines.transcribers.partials.PartialDecodes) decoded in the
    pool's batch process, or by `fallback` (in this process) while it cannot be reached
    (starting, or started again after it died)."""

    def __init__(self, batch: BatchClient, fallback: PartialDecodes) -> None:
        self._batch = batch
        self._fallback = fallback
        self._asked = False
        # The session's share of the batches' time (the seconds its partials cost there).
        self.seconds = 0.0

    def submit(self, model: str, request: PartialRequest) -> bool:
        self._asked = self._batch.submit((model, request))
        return self._asked or self._fallback.submit(model, request)

    def collect(self, wait: bool = False) -> str | None:
        if not self._asked:
            return self._fallback.collect(wait)
        try:
            answered = self._batch.answer(wait)
        except BatchLost as exc:
            logger.info("realtime partial lost: %s", exc)
            self._asked = False
            return None
        if answered is None:
            return None
        self._asked = False
        text: str | None
        text, seconds = answered.value
        self.seconds += seconds
        return text

    def pending(self) -> bool:
        return self._asked or self._fallback.pending()


class RealtimeTranscription:
    """handle(bytes): an audio frame; handle(Commit()): an utterance boundary; handle(Clear()):
    the untranscribed audio dropped; close(): the
    final of the utterance under way, then SessionStats (for the API side: the time spent on
    the session's audio)."""

    def __init__(
        self,
        settings: Settings,
        opening: SttRealtimeOpening,
        turns: DecodeTurns | None = None,
        partials: SharedPartials | None = None,
    ) -> None:
        language = None if opening.language in (None, "auto") else opening.language
        self._recognizer = load_recognizer(
            settings,
            model=opening.model_id,
            language=language,
            options=StreamingOptions(vad=opening.vad),
            diarize=opening.diarize,
            turns=turns,
            partials=partials,
        )
        self._decoder = AudioDecoder(opening.encoding, opening.sample_rate)
        self._busy = 0.0
        self._shared = partials

    def handle(self, message: SlotInput) -> Iterator[SlotOutput]:
        started = time.perf_counter()
        try:
            yield from self._handle(message)
        finally:
            self._busy += time.perf_counter() - started

    def _handle(self, message: SlotInput) -> Iterator[SlotOutput]:
        if isinstance(message, bytes):
            events = self._recognizer.feed(self._decoder.decode(message))
        elif isinstance(message, Commit):
            events = self._recognizer.commit()
        elif isinstance(message, Clear):
            self._recognizer.clear()
            return
        else:
            raise TypeError(f"a realtime transcription takes bytes, Commit or Clear: {message!r}")
        for event in events:
            yield message_of(event)

    def close(self) -> Iterator[SlotOutput]:
        started = time.perf_counter()
        for event in self._recognizer.feed(self._decoder.flush()):
            yield message_of(event)
        for event in self._recognizer.finish():
            yield message_of(event)
        self._busy += time.perf_counter() - started
        # Its own time, and its partials' share of the batch process's.
        shared = 0.0 if self._shared is None else self._shared.seconds
        yield SessionStats(processing_ms=round((self._busy + shared) * 1000))


def message_of(event: streaming.Event) -> SlotOutput:
    """The protocol's message for a recognizer event."""
    if isinstance(event, streaming.SpeechStarted):
        return SpeechStarted(utterance=event.utterance, audio_start_ms=event.at_ms)
    if isinstance(event, streaming.SpeechStopped):
        return SpeechStopped(utterance=event.utterance, audio_end_ms=event.at_ms)
    if isinstance(event, streaming.Partial):
        return PartialTranscript(
            utterance=event.utterance,
            text=event.text,
            stable_text=event.stable_text,
            start_ms=event.start_ms,
        )
    assert isinstance(event, streaming.FinalTranscript)
    return FinalTranscript(
        utterance=event.utterance,
        text=event.text,
        start_ms=event.start_ms,
        end_ms=event.end_ms,
        language=event.language,
        speaker=event.speaker,
        words=[
            TimedWord(
                word=word.word,
                start_ms=word.start_ms,
                end_ms=word.end_ms,
                probability=word.probability,
            )
            for word in event.words
        ],
    )


class AudioDecoder:
    """The client's byte stream as 16 kHz float32: a sample split across two frames is
    joined, and one resampler runs across frames (no seams)."""

    def __init__(self, encoding: str, sample_rate: int) -> None:
        self._width = BYTES_PER_SAMPLE[encoding]
        self._mulaw = encoding == "mulaw"
        self._pending = b""
        self._resampler = (
            None
            if sample_rate == SAMPLE_RATE
            else soxr.ResampleStream(sample_rate, SAMPLE_RATE, 1, dtype="float32", quality="HQ")
        )

    def decode(self, data: bytes) -> Samples:
        data = self._pending + data
        whole = len(data) - len(data) % self._width
        self._pending = data[whole:]
        if self._mulaw:
            samples = _MULAW[np.frombuffer(data[:whole], dtype=np.uint8)]
        else:
            samples = np.frombuffer(data[:whole], dtype="<i2").astype(np.float32) / 32768.0
        return self._resampled(samples, last=False)

    def flush(self) -> Samples:
        """What the resampler still holds, at the end of the stream."""
        return self._resampled(np.zeros(0, dtype=np.float32), last=True)

    def _resampled(self, samples: Samples, *, last: bool) -> Samples:
        if self._resampler is None:
            return samples
        out: Samples = self._resampler.resample_chunk(samples, last=last)
        return out


def _mulaw_table() -> Samples:
    """G.711 mu-law: each byte's linear value, scaled to -1..1."""
    codes = ~np.arange(256, dtype=np.uint8)
    sign = codes & 0x80
    exponent = (codes >> 4) & 0x07
    mantissa = codes & 0x0F
    magnitude = ((mantissa.astype(np.int32) << 3) + 0x84) << exponent
    linear = np.where(sign != 0, 0x84 - magnitude, magnitude - 0x84)
    return (linear / 32768.0).astype(np.float32)


_MULAW: Final = _mulaw_table()
