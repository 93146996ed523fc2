"""OpenAI's Realtime API transcription session (GET /v1/realtime?intent=transcription) as the
`openai` SDK 3.54 speaks it: `session.created` at once, the client's `session.update` (GA,
`session.type: "transcription"`) or `transcription_session.update` (beta) read until its
first audio, then the native session (speech.stt.realtime.transcribe: same credits, limits
and slots) in OpenAI's events. Every transcription model id is the service's Whisper model
(`stt.default_model`); deltas are the partials' growth (OpenAIDialect)."""

from __future__ import annotations

import asyncio
import base64
import binascii
import json
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal

import numpy as np
from fastapi import WebSocket
from pydantic import BaseModel, ValidationError
from starlette.websockets import WebSocketDisconnect

from soundstage.compat.openai import service as catalog
from soundstage.compat.openai.errors import InputAudioBufferCommitEmpty
from soundstage.core.errors import AppError, InvalidField, MalformedRequest
from soundstage.core.principal import Principal
from soundstage.realtime.errors import SessionTimeout
from soundstage.realtime.messages import ServerMessage, validation_error
from soundstage.speech.stt.realtime import ClientTurn, Recognized, transcribe
from soundstage.speech.stt.realtime_messages import (
    FinalTranscript,
    PartialTranscript,
    SessionClosed,
    SpeechStarted,
    SpeechStopped,
    SttRealtimeOpening,
)

DEFAULT_MODEL: Final = "gpt-4o-transcribe"
# OpenAI's input formats -> (native encoding, rate). A-law is turned into 16-bit PCM here.
FORMATS: Final = {
    "pcm16": ("pcm_s16le", 24_000),
    "g711_ulaw": ("mulaw", 8_000),
    "g711_alaw": ("pcm_s16le", 8_000),
}
_GA_FORMATS: Final = {"audio/pcm": "pcm16", "audio/pcmu": "g711_ulaw", "audio/pcma": "g711_alaw"}
SERVER_VAD: Final[dict[str, Any]] = {
    "type": "server_vad",
    "threshold": 0.5,
    "prefix_padding_ms": 300,
    "silence_duration_ms": 500,
}
# Session updates a client may send before its first audio.
MAX_UPDATES: Final = 32
UPDATES: Final = ("session.update", "transcription_session.update")


def _event_id() -> str:
    return "event_" + secrets.token_hex(10)


@dataclass(frozen=True)
class Config:
    """A transcription session's configuration, as OpenAI's session objects show it."""

    format: str = "pcm16"
    model: str = DEFAULT_MODEL
    language: str | None = None
    prompt: str = ""
    turn_detection: dict[str, Any] | None = field(default_factory=lambda: dict(SERVER_VAD))
    noise_reduction: dict[str, Any] | None = None
    include: tuple[str, ...] = ()

    def opening(self) -> SttRealtimeOpening:
        """The native session's opening (InvalidField naming OpenAI's field at fault)."""
        encoding, rate = FORMATS[self.format]
        try:
            return SttRealtimeOpening.model_validate(
                {
                    "language": self.language or None,
                    "sample_rate": rate,
                    "encoding": encoding,
                    # semantic_vad is served by the same voice activity detection.
                    "vad": self.turn_detection is not None,
                    "model_id": None,  # every id: the service's Whisper model
                }
            )
        except ValidationError as exc:
            _param, text = validation_error(exc, "session")
            raise InvalidField(text, param="session.audio.input.transcription.language") from None

    def beta_session(self, session_id: str) -> dict[str, Any]:
        return {
            "id": session_id,
            "object": "realtime.transcription_session",
            "input_audio_format": self.format,
            "input_audio_transcription": {
                "model": self.model,
                "language": self.language,
                "prompt": self.prompt,
            },
            "turn_detection": self.turn_detection,
            "input_audio_noise_reduction": self.noise_reduction,
            "include": list(self.include),
        }

    def ga_session(self, session_id: str) -> dict[str, Any]:
        kind = {v: k for k, v in _GA_FORMATS.items()}[self.format]
        audio_format: dict[str, Any] = {"type": kind}
        if self.format == "pcm16":
            audio_format["rate"] = 24_000
        return {
            "type": "transcription",
            "id": session_id,
            "object": "realtime.transcription_session",
            "expires_at": 0,
            "include": list(self.include),
            "audio": {
                "input": {
                    "format": audio_format,
                    "transcription": {
                        "model": self.model,
                        "language": self.language,
                        "prompt": self.prompt,
                    },
                    "noise_reduction": self.noise_reduction,
                    "turn_detection": self.turn_detection,
                }
            },
        }


def _object(value: Any, name: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise InvalidField(f"{name}: Expected an object.", param=name)
    return value


def _text(value: Any, name: str, limit: int = 4000) -> str | None:
    if value is not None and (not isinstance(value, str) or len(value) > limit):
        raise InvalidField(f"{name}: Expected a string of at most {limit} characters.", param=name)
    return value


def _turn_detection(value: Any, name: str) -> dict[str, Any] | None:
    if value is None:
        return None
    detection = _object(value, name)
    kind = detection.get("type", "server_vad")
    if kind not in ("server_vad", "semantic_vad"):
        raise InvalidField(f"{name}.type: One of server_vad, semantic_vad.", param=f"{name}.type")
    return {**(SERVER_VAD if kind == "server_vad" else {}), **detection, "type": kind}


def _transcription(config: Config, value: Any, name: str) -> Config:
    if value is None:
        return config
    settings = _object(value, name)
    model = _text(settings.get("model"), f"{name}.model", 100)
    if model is not None:
        catalog.model(model, "transcription", param=f"{name}.model")
        config = replace(config, model=model)
    if "language" in settings:
        config = replace(config, language=_text(settings["language"], f"{name}.language", 35))
    if "prompt" in settings:
        config = replace(config, prompt=_text(settings["prompt"], f"{name}.prompt") or "")
    return config


def updated(config: Config, event: dict[str, Any]) -> Config:
    """`config` with a `session.update` or `transcription_session.update` applied (only
    the fields it holds); AppError naming the field at fault."""
    session = _object(event.get("session"), "session")
    if event["type"] == "session.update":
        if session.get("type") != "transcription":
            raise InvalidField(
                "session.type: This server serves transcription sessions only "
                '(`"type": "transcription"`).',
                param="session.type",
            )
        audio = _object(session.get("audio") or {}, "session.audio")
        given = _object(audio.get("input") or {}, "session.audio.input")
        prefix = "session.audio.input"
        if "format" in given:
            form = _object(given["format"], f"{prefix}.format")
            name = _GA_FORMATS.get(form.get("type", "audio/pcm"))
            if name is None or form.get("rate", 24_000) != 24_000:
                raise InvalidField(
                    f"{prefix}.format: audio/pcm (24000 Hz), audio/pcmu or audio/pcma.",
                    param=f"{prefix}.format",
                )
            config = replace(config, format=name)
        transcription, detection, noise = "transcription", "turn_detection", "noise_reduction"
    else:
        given, prefix = session, "session"
        if "input_audio_format" in given:
            name = given["input_audio_format"]
            if name not in FORMATS:
                raise InvalidField(
                    "session.input_audio_format: One of pcm16, g711_ulaw, g711_alaw.",
                    param="session.input_audio_format",
                )
            config = replace(config, format=name)
        transcription = "input_audio_transcription"
        detection, noise = "turn_detection", "input_audio_noise_reduction"
    config = _transcription(config, given.get(transcription), f"{prefix}.{transcription}")
    if detection in given:
        config = replace(
            config, turn_detection=_turn_detection(given[detection], f"{prefix}.{detection}")
        )
    if noise in given:
        value = given[noise]
        config = replace(config, noise_reduction=None if value is None else _object(value, noise))
    if "include" in session:
        include = session["include"]
        if not isinstance(include, list) or not all(isinstance(i, str) for i in include):
            raise InvalidField("session.include: Expected a list of strings.", param="include")
        config = replace(config, include=tuple(include[:10]))
    config.opening()  # the language checked now, not when the audio comes
    return config


# Server events.


class SessionEvent(ServerMessage):
    type: Literal[
        "session.created",
        "session.updated",
        "transcription_session.created",
        "transcription_session.updated",
    ]
    event_id: str
    session: dict[str, Any]


class SpeechStartedEvent(ServerMessage):
    type: Literal["input_audio_buffer.speech_started"] = "input_audio_buffer.speech_started"
    event_id: str
    audio_start_ms: int
    item_id: str


class SpeechStoppedEvent(ServerMessage):
    type: Literal["input_audio_buffer.speech_stopped"] = "input_audio_buffer.speech_stopped"
    event_id: str
    audio_end_ms: int
    item_id: str


class CommittedEvent(ServerMessage):
    type: Literal["input_audio_buffer.committed"] = "input_audio_buffer.committed"
    event_id: str
    previous_item_id: str | None
    item_id: str


class ClearedEvent(ServerMessage):
    type: Literal["input_audio_buffer.cleared"] = "input_audio_buffer.cleared"
    event_id: str


class DeltaEvent(ServerMessage):
    type: Literal["conversation.item.input_audio_transcription.delta"] = (
        "conversation.item.input_audio_transcription.delta"
    )
    event_id: str
    item_id: str
    content_index: int = 0
    delta: str


class DurationUsage(BaseModel):
    type: Literal["duration"] = "duration"
    seconds: float


class CompletedEvent(ServerMessage):
    type: Literal["conversation.item.input_audio_transcription.completed"] = (
        "conversation.item.input_audio_transcription.completed"
    )
    event_id: str
    item_id: str
    content_index: int = 0
    transcript: str
    usage: DurationUsage


class RealtimeError(BaseModel):
    type: str
    code: str
    message: str
    param: str | None
    event_id: str | None


class ErrorEvent(ServerMessage):
    """Every error: `error.event_id` is the client's event at fault, when there was one."""

    type: Literal["error"] = "error"
    event_id: str
    error: RealtimeError

    @classmethod
    def of(cls, error: AppError, client_event_id: str | None = None) -> ErrorEvent:
        detail = RealtimeError(
            type=error.type,
            code=error.code,
            message=error.message,
            param=error.param,
            event_id=client_event_id,
        )
        return cls(event_id=_event_id(), error=detail)


def session_event(config: Config, session_id: str, *, beta: bool, kind: str) -> SessionEvent:
    """`session.<kind>` (GA) or `transcription_session.<kind>` (beta)."""
    if beta:
        return SessionEvent(
            type=f"transcription_session.{kind}",
            event_id=_event_id(),
            session=config.beta_session(session_id),
        )
    return SessionEvent(
        type=f"session.{kind}",
        event_id=_event_id(),
        session=config.ga_session(session_id),
    )


def _alaw_table() -> np.ndarray[Any, np.dtype[np.int16]]:
    """G.711 A-law: each byte's 16-bit linear value."""
    codes = np.arange(256, dtype=np.int32) ^ 0x55
    exponent = (codes >> 4) & 0x07
    mantissa = (codes & 0x0F) << 4
    magnitude = np.where(
        exponent == 0, mantissa + 8, (mantissa + 0x108) << np.maximum(exponent - 1, 0)
    )
    return np.where(codes & 0x80, magnitude, -magnitude).astype(np.int16)


ALAW: Final = _alaw_table()


class OpenAIDialect:
    """The session in OpenAI's events. Items are utterances. A bad client event answers an
    `error` event and the session goes on, as OpenAI's does. Deltas: when a partial extends
    the text already sent as deltas, its new end; when it changes earlier text, nothing until
    the final (whose rest, if it extends them, is a last delta before `completed`). A commit
    with no audio since the last is `input_audio_buffer_commit_empty`; one whose audio holds
    no speech is committed and completed with an empty transcript."""

    def __init__(self, config: Config, session_id: str, *, beta: bool) -> None:
        self._config = config
        self._session_id = session_id
        self._beta = beta
        self._vad = config.turn_detection is not None
        self._prefix = secrets.token_hex(6)
        self._previous: str | None = None
        self._sent: dict[str, str] = {}
        self._committed_in_turn: list[str] = []
        self._committed: set[str] = set()
        self._audio_since_commit = False
        self._spare_items = 0
        self._client_event_id: str | None = None

    def _item(self, utterance: int) -> str:
        return f"item_{self._prefix}_{utterance}"

    def started(self, job_id: str) -> Sequence[ServerMessage]:
        return []  # session.created went out when the socket opened

    def read(self, message: dict[str, Any]) -> ClientTurn:
        self._client_event_id = None
        try:
            return self._read(message)
        except AppError as exc:
            return ClientTurn(replies=(ErrorEvent.of(exc, self._client_event_id),))

    def _read(self, message: dict[str, Any]) -> ClientTurn:
        event = client_event(message)
        event_id = event.get("event_id")
        self._client_event_id = event_id if isinstance(event_id, str) else None
        kind = event["type"]
        if kind == "input_audio_buffer.append":
            audio = _audio(event.get("audio"))
            if self._config.format == "g711_alaw":
                audio = ALAW[np.frombuffer(audio, dtype=np.uint8)].astype("<i2").tobytes()
            self._audio_since_commit = self._audio_since_commit or bool(audio)
            return ClientTurn(audio=audio)
        if kind == "input_audio_buffer.commit":
            return ClientTurn(commit=True)
        if kind == "input_audio_buffer.clear":
            return ClientTurn(clear=True)
        if kind in UPDATES:
            config = updated(self._config, event)
            if config.opening() != self._config.opening():
                raise InvalidField(
                    "session: The audio format, language and turn detection are fixed once "
                    "audio was sent; open a new session to change them.",
                    param="session",
                )
            self._config = config
            reply = session_event(config, self._session_id, beta=kind != UPDATES[0], kind="updated")
            return ClientTurn(replies=(reply,))
        raise MalformedRequest(
            f"Unsupported event type {kind!r} in a transcription session: "
            "input_audio_buffer.append, .commit, .clear, session.update.",
            param="type",
        )

    def shaped(self, output: Recognized) -> Sequence[ServerMessage]:
        item = self._item(output.utterance)
        if isinstance(output, SpeechStarted):
            if not self._vad:
                return []
            return [
                SpeechStartedEvent(
                    event_id=_event_id(), audio_start_ms=output.audio_start_ms, item_id=item
                )
            ]
        if isinstance(output, SpeechStopped):
            out: list[ServerMessage] = []
            if self._vad:
                out.append(
                    SpeechStoppedEvent(
                        event_id=_event_id(), audio_end_ms=output.audio_end_ms, item_id=item
                    )
                )
            return [*out, self._commit(item)]
        if isinstance(output, PartialTranscript):
            delta = self._delta(item, output.text)
            return [delta] if delta is not None else []
        assert isinstance(output, FinalTranscript)
        events: list[ServerMessage] = []
        if item not in self._committed:
            events.append(self._commit(item))  # a long utterance cut without a pause
        delta = self._delta(item, output.text)
        if delta is not None:
            events.append(delta)
        seconds = max(0, output.end_ms - output.start_ms) / 1000
        events.append(self._completed_event(item, output.text, seconds))
        return events

    def _commit(self, item: str) -> CommittedEvent:
        event = CommittedEvent(event_id=_event_id(), previous_item_id=self._previous, item_id=item)
        self._previous = item
        self._committed_in_turn.append(item)
        self._committed.add(item)
        self._audio_since_commit = False
        return event

    def _delta(self, item: str, text: str) -> DeltaEvent | None:
        sent = self._sent.get(item, "")
        if not text.startswith(sent) or len(text) == len(sent):
            return None
        self._sent[item] = text
        return DeltaEvent(event_id=_event_id(), item_id=item, delta=text[len(sent) :])

    def _completed_event(self, item: str, text: str, seconds: float) -> CompletedEvent:
        self._committed.discard(item)
        self._sent.pop(item, None)
        return CompletedEvent(
            event_id=_event_id(),
            item_id=item,
            transcript=text,
            usage=DurationUsage(seconds=seconds),
        )

    def settled(self, turn: ClientTurn) -> Sequence[ServerMessage]:
        events: list[ServerMessage] = []
        if turn.commit and not self._committed_in_turn:
            if not self._audio_since_commit:
                error = InputAudioBufferCommitEmpty(
                    "Error committing input audio buffer: no audio was appended since the "
                    "last commit or clear.",
                    param=None,
                )
                events.append(ErrorEvent.of(error, self._client_event_id))
            else:  # audio without speech: an item with nothing said
                self._spare_items += 1
                events.append(self._commit(f"item_{self._prefix}_c{self._spare_items}"))
        # Items committed with no final (too short to be speech, or silence) are completed
        # empty: a client waits for each committed item's transcript.
        for item in self._committed_in_turn:
            if item in self._committed:
                events.append(self._completed_event(item, "", 0.0))
        self._committed_in_turn = []
        if turn.clear:
            self._audio_since_commit = False
            events.append(ClearedEvent(event_id=_event_id()))
        return events

    def closed(self, closed: SessionClosed) -> Sequence[ServerMessage]:
        return []


def client_event(message: dict[str, Any]) -> dict[str, Any]:
    """A client event: a JSON object with a string `type` (MalformedRequest otherwise)."""
    text = message.get("text")
    if text is None:
        raise MalformedRequest("Events are JSON text messages.", param="event")
    try:
        event = json.loads(text)
    except ValueError as exc:
        raise MalformedRequest(f"The event is not valid JSON: {exc}", param="event") from exc
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise MalformedRequest("An event is a JSON object with a `type`.", param="type")
    return event


def _audio(value: Any) -> bytes:
    if not isinstance(value, str):
        raise MalformedRequest("`audio` must be a base64 string.", param="audio")
    try:
        return base64.b64decode(value, validate=True)
    except binascii.Error as exc:
        raise MalformedRequest(f"`audio` is not valid base64: {exc}", param="audio") from exc


async def serve(
    websocket: WebSocket, principal: Principal, config: Config, *, beta: bool, timeout: float
) -> None:
    """The session on an accepted socket: `session.created`, the client's updates until its
    first other event (within `timeout` seconds in all), then the native session."""
    session_id = "sess_" + secrets.token_hex(10)
    await _send(websocket, session_event(config, session_id, beta=beta, kind="created"))
    deadline = time.monotonic() + timeout
    for _ in range(MAX_UPDATES):
        try:
            message = await asyncio.wait_for(websocket.receive(), deadline - time.monotonic())
        except TimeoutError:
            raise SessionTimeout(f"No audio within {timeout:g} s.") from None
        if message["type"] == "websocket.disconnect":
            raise WebSocketDisconnect(message.get("code", 1000))
        try:
            event = client_event(dict(message))
        except AppError:
            event = {}
        kind = event.get("type")
        if kind not in UPDATES:
            break
        try:
            config = updated(config, event)
            reply: ServerMessage = session_event(
                config, session_id, beta=kind != UPDATES[0], kind="updated"
            )
        except AppError as exc:
            event_id = event.get("event_id")
            reply = ErrorEvent.of(exc, event_id if isinstance(event_id, str) else None)
        await _send(websocket, reply)
    else:
        raise MalformedRequest(f"At most {MAX_UPDATES} session updates before audio.")
    dialect = OpenAIDialect(config, session_id, beta=beta)
    await transcribe(websocket, principal, config.opening(), dialect, early=[dict(message)])


async def _send(websocket: WebSocket, message: ServerMessage) -> None:
    await websocket.send_json(message.wire())
