"""The realtime transcription protocol (GET /api/v1/speech/stt/realtime; docs/realtime.md,
"Realtime transcription"): every message a client sends and the server sends, as models. Client: the
opening message, then audio (binary frames, or base64 in JSON) and `commit` / `close`.
Server: `session.started`, `speech.started` / `speech.stopped`, `partial`, `final`,
`session.closed` (and the shared `error`, realtime.messages), each named by its `type`."""

from __future__ import annotations

import base64
import binascii
from typing import Any, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from soundstage.core.errors import MalformedRequest
from soundstage.core.schemas import RequestModel
from soundstage.realtime.messages import ServerMessage

# Client messages.


class SttRealtimeOpening(RequestModel):
    """The first message of a realtime transcription session: how the audio frames that
    follow are encoded, and how to transcribe them. What it dumps (its `type` left out) is
    the session's settings, as `session.started` shows them and its job records them."""

    # ElevenLabs' and OpenAI's clients open with a typed message: tolerated, not required.
    type: Literal["session.start", "transcription_session.update"] | None = Field(
        default=None, exclude=True
    )
    language: str | None = Field(
        default=None,
        min_length=2,
        max_length=35,
        description="BCP-47 tag of the spoken language, or `auto` (the default) to detect it "
        "on the first utterance and keep it.",
    )
    sample_rate: int = Field(
        default=16_000, ge=8_000, le=48_000, description="Hz of the audio frames sent."
    )
    encoding: Literal["pcm_s16le", "mulaw"] = Field(
        default="pcm_s16le",
        description="`pcm_s16le` (16-bit little-endian mono) or `mulaw` (G.711, 8-bit mono).",
    )
    vad: bool = Field(
        default=True,
        description="Utterances end where silero-vad hears 500 ms of silence; with `false`, "
        "only at `commit` (and every 15 s of unbroken speech).",
    )
    diarize: bool = Field(
        default=False,
        description="Tell the speakers apart, utterance by utterance: each final names its "
        "`speaker` (`speaker_1`, `speaker_2`... in order of first speech).",
    )
    model_id: str | None = Field(
        default=None,
        description="`whisper-base` (the default) or `tiny.en` (English, about twice as fast).",
    )


class SttRealtimeInput(BaseModel):
    """A client message after the opening one: audio (a binary frame, or base64 in JSON),
    and in JSON `commit` (end the utterance now) and `close` (end the session), in any
    combination (ElevenLabs' audio chunk carries `commit`)."""

    model_config = ConfigDict(frozen=True)

    audio: bytes = b""
    commit: bool = False
    close: bool = False

    @classmethod
    def of_json(cls, body: dict[str, Any]) -> SttRealtimeInput:
        """A JSON message in any of the dialects the protocol reads: `audio` (ours, and
        OpenAI's `input_audio_buffer.append`) or `audio_base_64` (ElevenLabs'
        `input_audio_chunk`), `commit: true` (or OpenAI's `input_audio_buffer.commit`),
        `close: true`; other fields are ignored. MalformedRequest when it holds none."""
        kind = body.get("type") or body.get("message_type")
        encoded = body.get("audio", body.get("audio_base_64"))
        audio = b""
        if encoded is not None:
            if not isinstance(encoded, str):
                raise MalformedRequest("`audio` must be a base64 string.", param="audio")
            try:
                audio = base64.b64decode(encoded, validate=True)
            except binascii.Error as exc:
                message = f"`audio` is not valid base64: {exc}"
                raise MalformedRequest(message, param="audio") from exc
        commit = body.get("commit") is True or kind == "input_audio_buffer.commit"
        close = body.get("close") is True
        if not (audio or commit or close or encoded is not None):
            message = "Expected an audio frame, `commit` or `close`."
            raise MalformedRequest(message, param="message")
        return cls(audio=audio, commit=commit, close=close)


# Server messages.


class SessionStarted(ServerMessage):
    type: Literal["session.started"] = "session.started"
    job_id: str
    session: SttRealtimeOpening


class SpeechStarted(ServerMessage):
    type: Literal["speech.started"] = "speech.started"
    utterance: int
    audio_start_ms: int


class SpeechStopped(ServerMessage):
    type: Literal["speech.stopped"] = "speech.stopped"
    utterance: int
    audio_end_ms: int


class PartialTranscript(ServerMessage):
    """The utterance so far (it may still change); `stable_text` its start, which will not."""

    type: Literal["partial"] = "partial"
    utterance: int
    text: str
    stable_text: str
    start_ms: int


class TimedWord(BaseModel):
    model_config = ConfigDict(frozen=True)

    word: str
    start_ms: int
    end_ms: int
    probability: float


class FinalTranscript(ServerMessage):
    """An utterance's transcript; `speaker` only with `diarize` (left out otherwise)."""

    omit_none: ClassVar[bool] = True

    type: Literal["final"] = "final"
    utterance: int
    text: str
    start_ms: int
    end_ms: int
    language: str
    speaker: str | None = None
    words: list[TimedWord]


class SessionClosed(ServerMessage):
    type: Literal["session.closed"] = "session.closed"
    job_id: str
    # The audio received.
    duration_ms: int
    # What was charged: the audio received, or the minimum for the minutes the session was
    # open when that is more.
    credits_used: int
    # The slot's time on this session's audio: processing_ms / duration_ms is the session's
    # real-time factor.
    processing_ms: int
