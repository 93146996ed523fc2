"""ElevenLabs' realtime speech to text (GET /elevenlabs/v1/speech-to-text/realtime) as the
`elevenlabs` SDK 2.78 speaks it (`speech_to_text.realtime.connect`): the session's settings
in the query, `input_audio_chunk` messages (base64 audio, `commit`), and `session_started`,
`partial_transcript`, `committed_transcript` (and `..._with_timestamps`) back, errors as
`{"message_type": <kind>, "error": <message>}`. The session is the native one
(speech.stt.realtime.transcribe) in this dialect: same credits, limits and slots."""

from __future__ import annotations

import base64
import binascii
import math
from collections.abc import Sequence
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import QueryParams

from soundstage.core.errors import AppError, InvalidField, MalformedRequest, ParameterUnknown
from soundstage.realtime.messages import ServerMessage, read_json, validation_error
from soundstage.speech.stt.realtime import ClientTurn, Recognized
from soundstage.speech.stt.realtime_messages import (
    FinalTranscript,
    PartialTranscript,
    SessionClosed,
    SttRealtimeOpening,
)

# audio_format -> (native encoding, sample rate).
AUDIO_FORMATS: Final = {
    **{f"pcm_{rate}": ("pcm_s16le", rate) for rate in (8000, 16000, 22050, 24000, 44100, 48000)},
    "ulaw_8000": ("mulaw", 8000),
}
# The query parameters the SDK sends that are accepted and not acted on.
IGNORED: Final = frozenset(
    {
        "vad_silence_threshold_secs",
        "vad_threshold",
        "min_speech_duration_ms",
        "min_silence_duration_ms",
        "secondary_languages",
        "include_language_detection",
        "keyterms",
        "no_verbatim",
        "entity_detection",
        "entity_redaction",
        "entity_redaction_mode",
        "transcript_edit",
        "filter_background_audio",
        "enable_logging",
    }
)
HONOURED: Final = frozenset(
    {"model_id", "audio_format", "commit_strategy", "language_code", "include_timestamps", "token"}
)
MAX_QUERY_VALUE: Final = 2000
MAX_QUERY_VALUES: Final = 100
# Error message kinds by HTTP status (the SDK's RealtimeEvents).
_ERROR_KINDS: Final = {
    400: "input_error",
    401: "auth_error",
    402: "quota_exceeded",
    404: "invalid_request",
    408: "session_time_limit_exceeded",
    413: "chunk_size_exceeded",
    422: "invalid_request",
    429: "rate_limited",
    503: "resource_exhausted",
}


class Settings(BaseModel):
    """A session's settings, from the query."""

    model_config = ConfigDict(frozen=True)

    opening: SttRealtimeOpening
    audio_format: str
    commit_strategy: str
    model_id: str
    include_timestamps: bool


def _bool(query: QueryParams, name: str) -> bool:
    value = query.get(name, "false")
    if value not in ("true", "false"):
        raise InvalidField(f"{name}: Expected `true` or `false`, not {value!r}.", param=name)
    return value == "true"


def session_settings(query: QueryParams) -> Settings:
    """The session's settings from its URL's query (InvalidField naming the parameter at
    fault, ParameterUnknown for one the SDK never sends)."""
    items = query.multi_items()
    if len(items) > MAX_QUERY_VALUES:
        raise InvalidField(f"At most {MAX_QUERY_VALUES} query values.", param="query")
    for name, value in items:
        if name not in HONOURED and name not in IGNORED:
            raise ParameterUnknown(f"Unknown query parameter: {name}.", param=name)
        if len(value) > MAX_QUERY_VALUE:
            raise InvalidField(f"{name}: At most {MAX_QUERY_VALUE} characters.", param=name)
    audio_format = query.get("audio_format", "pcm_16000")
    if audio_format not in AUDIO_FORMATS:
        names = ", ".join(AUDIO_FORMATS)
        raise InvalidField(f"audio_format: One of {names}.", param="audio_format")
    commit_strategy = query.get("commit_strategy", "manual")
    if commit_strategy not in ("manual", "vad", "turn_prediction"):
        raise InvalidField(
            "commit_strategy: One of manual, vad, turn_prediction.", param="commit_strategy"
        )
    model_id = query.get("model_id", "scribe_v2_realtime")
    encoding, rate = AUDIO_FORMATS[audio_format]
    opening = {
        "language": query.get("language_code") or None,
        "sample_rate": rate,
        "encoding": encoding,
        # turn_prediction is ElevenLabs' VAD with a model of turns: here, VAD.
        "vad": commit_strategy != "manual",
        # ElevenLabs' Scribe ids transcribe with the default Whisper model; a native model
        # id (whisper-base, tiny.en) picks that one.
        "model_id": None if model_id.startswith("scribe_") else model_id,
    }
    try:
        native = SttRealtimeOpening.model_validate(opening)
    except ValidationError as exc:
        param, text = validation_error(exc, "query")
        name = {"language": "language_code"}.get(param or "", param or "query")
        raise InvalidField(text.replace(param or "", name, 1), param=name) from None
    return Settings(
        opening=native,
        audio_format=audio_format,
        commit_strategy=commit_strategy,
        model_id=model_id,
        include_timestamps=_bool(query, "include_timestamps"),
    )


# Server messages.


class SessionConfig(BaseModel):
    model_config = ConfigDict(frozen=True)

    sample_rate: int
    audio_format: str
    language_code: str | None
    commit_strategy: str
    model_id: str
    include_timestamps: bool


class SessionStartedMessage(ServerMessage):
    message_type: Literal["session_started"] = "session_started"
    session_id: str
    config: SessionConfig


class PartialTranscriptMessage(ServerMessage):
    message_type: Literal["partial_transcript"] = "partial_transcript"
    text: str


class CommittedTranscriptMessage(ServerMessage):
    message_type: Literal["committed_transcript"] = "committed_transcript"
    text: str


class TranscriptWord(BaseModel):
    """A word, or the space between two (`spacing`), times in seconds."""

    model_config = ConfigDict(frozen=True)

    text: str
    start: float
    end: float
    type: Literal["word", "spacing"]
    logprob: float | None = None


class CommittedWithTimestampsMessage(ServerMessage):
    message_type: Literal["committed_transcript_with_timestamps"] = (
        "committed_transcript_with_timestamps"
    )
    text: str
    language_code: str | None
    words: list[TranscriptWord]


class ScribeError(ServerMessage):
    """Every error: `message_type` its kind (`auth_error`, `quota_exceeded`, `input_error`,
    `invalid_request`, `rate_limited`...), `error` what went wrong."""

    message_type: str
    error: str

    @classmethod
    def of(cls, error: AppError) -> ScribeError:
        kind = _ERROR_KINDS.get(error.status)
        if kind is None:
            kind = "transcriber_error" if error.status >= 500 else "error"
        return cls(message_type=kind, error=error.message)


# Client messages.


class InputAudioChunk(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    message_type: Literal["input_audio_chunk"]
    audio_base_64: str = ""
    commit: bool = False
    sample_rate: int | None = None
    previous_text: str | None = Field(default=None, max_length=MAX_QUERY_VALUE)


def _words(final: FinalTranscript) -> list[TranscriptWord]:
    words: list[TranscriptWord] = []
    for word in final.words:
        if words:
            words.append(
                TranscriptWord(
                    text=" ", start=words[-1].end, end=word.start_ms / 1000, type="spacing"
                )
            )
        logprob = math.log(word.probability) if word.probability > 0 else None
        words.append(
            TranscriptWord(
                text=word.word.strip(),
                start=word.start_ms / 1000,
                end=word.end_ms / 1000,
                type="word",
                logprob=logprob,
            )
        )
    return words


class ElevenLabsDialect:
    """The session in ElevenLabs' messages. A commit always answers one committed transcript
    (an empty one when the audio held no speech), as a VAD commit does when it heard words."""

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._finals_in_turn = 0

    def started(self, job_id: str) -> Sequence[ServerMessage]:
        s = self._settings
        config = SessionConfig(
            sample_rate=s.opening.sample_rate,
            audio_format=s.audio_format,
            language_code=s.opening.language,
            commit_strategy=s.commit_strategy,
            model_id=s.model_id,
            include_timestamps=s.include_timestamps,
        )
        return [SessionStartedMessage(session_id=job_id, config=config)]

    def read(self, message: dict[str, Any]) -> ClientTurn:
        if message.get("bytes") is not None:
            raise MalformedRequest(
                "Send audio as `input_audio_chunk` JSON messages (`audio_base_64`).",
                param="message",
            )
        body = read_json(message)
        try:
            chunk = InputAudioChunk.model_validate(body)
        except ValidationError as exc:
            param, text = validation_error(exc, "message")
            raise MalformedRequest(text, param=param or "message") from None
        rate = self._settings.opening.sample_rate
        if chunk.sample_rate is not None and chunk.sample_rate != rate:
            raise MalformedRequest(
                f"sample_rate: {chunk.sample_rate} differs from the session's audio_format "
                f"({self._settings.audio_format}).",
                param="sample_rate",
            )
        try:
            audio = base64.b64decode(chunk.audio_base_64, validate=True)
        except binascii.Error as exc:
            raise MalformedRequest(
                f"audio_base_64 is not valid base64: {exc}", param="audio_base_64"
            ) from exc
        return ClientTurn(audio=audio, commit=chunk.commit)

    def shaped(self, output: Recognized) -> Sequence[ServerMessage]:
        if isinstance(output, PartialTranscript):
            return [PartialTranscriptMessage(text=output.text)] if output.text else []
        if isinstance(output, FinalTranscript):
            self._finals_in_turn += 1
            return self._committed(output.text, output.language, _words(output))
        return []

    def _committed(
        self, text: str, language: str | None, words: list[TranscriptWord]
    ) -> list[ServerMessage]:
        out: list[ServerMessage] = [CommittedTranscriptMessage(text=text)]
        if self._settings.include_timestamps:
            out.append(
                CommittedWithTimestampsMessage(text=text, language_code=language, words=words)
            )
        return out

    def settled(self, turn: ClientTurn) -> Sequence[ServerMessage]:
        finals, self._finals_in_turn = self._finals_in_turn, 0
        if turn.commit and not finals:
            return self._committed("", self._settings.opening.language, [])
        return []

    def closed(self, closed: SessionClosed) -> Sequence[ServerMessage]:
        return []
