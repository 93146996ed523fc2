"""ElevenLabs' text-to-speech WebSockets (GET /elevenlabs/v1/text-to-speech/{voice_id}/
stream-input and .../multi-stream-input) as ElevenLabs documents them and the `elevenlabs`
SDK 2.78 speaks them (`text_to_speech.convert_realtime`): the settings in the query, a first
message (`text: " "`, `voice_settings`, `generation_config`, the key if not in a header),
then text, `flush` and `{"text": ""}` (multi-stream: per `context_id`, `close_context`,
`close_socket`); `{"audio", "isFinal", "normalizedAlignment", "alignment"}` back (multi-stream:
with `contextId`), errors as `{"message", "error", "code"}` before the close frame. The
session is the native one (speech.tts.realtime.speak) in this dialect: same credits, limits
and slots."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from starlette.datastructures import QueryParams

from soundstage.compat.elevenlabs.schemas import StreamFormat
from soundstage.compat.voice_aliases import elevenlabs_voice
from soundstage.core.errors import AppError, InvalidField, MalformedRequest, ParameterUnknown
from soundstage.realtime import gate
from soundstage.realtime.messages import ServerMessage, read_json, validation_error
from soundstage.speech.tts.realtime import (
    AudioTail,
    CloseContext,
    Frame,
    SpokenChunk,
    TextInput,
    TextTurn,
)
from soundstage.speech.tts.realtime_dialect import encode
from soundstage.speech.tts.realtime_messages import (
    CharacterAlignment,
    FinalMessage,
    RealtimeGenerationConfig,
    RealtimeTtsOpening,
    RealtimeVoiceSettings,
    WordTiming,
)
from soundstage.speech.tts.schemas import MAX_TEXT_CHARACTERS

# The formats a session streams in: every streaming `output_format` of ElevenLabs' HTTP API.
OUTPUT_FORMATS: Final = frozenset(get_args(StreamFormat))
DEFAULT_OUTPUT_FORMAT: Final = "mp3_44100_128"
# The query parameters ElevenLabs documents that are accepted and not acted on.
IGNORED: Final = frozenset(
    {
        "inactivity_timeout",
        "sync_alignment",
        "apply_text_normalization",
        "enable_logging",
        "enable_ssml_parsing",
        "optimize_streaming_latency",
        "language_code",
        "seed",
    }
)
HONOURED: Final = frozenset({"model_id", "output_format", "auto_mode", "token"})
BOOLEANS: Final = {"true": True, "false": False}
MAX_QUERY_VALUE: Final = 200
# ElevenLabs' limit of contexts open at once on one multi-stream socket.
MAX_CONTEXTS: Final = 5
# The context of a multi-stream message that names none.
DEFAULT_CONTEXT: Final = "default"


class TooManyContexts(AppError):
    """A multi-stream socket already holds its 5 open contexts: close one first."""

    status = 422
    code = "too_many_contexts"


def output_format(query: QueryParams) -> str:
    """The session's `output_format` (a media.encodings name), the query checked (InvalidField
    naming the parameter at fault, ParameterUnknown for one ElevenLabs does not define)."""
    for name, value in query.multi_items():
        if name not in HONOURED and name not in IGNORED:
            raise ParameterUnknown(f"Unknown query parameter: {name}.", param=name)
        if len(value) > MAX_QUERY_VALUE:
            raise InvalidField(f"{name}: At most {MAX_QUERY_VALUE} characters.", param=name)
    chosen = query.get("output_format", DEFAULT_OUTPUT_FORMAT)
    if chosen not in OUTPUT_FORMATS:
        names = ", ".join(sorted(OUTPUT_FORMATS))
        raise InvalidField(f"output_format: One of {names}.", param="output_format")
    return chosen


def auto_mode(query: QueryParams) -> bool:
    """ElevenLabs' `auto_mode` (default false): when true, every text message is a whole
    sentence or phrase, spoken as it comes (a flush each), neither buffered nor joined to the
    next (pipecat sends each sentence so, with no space after it)."""
    value = query.get("auto_mode", "false")
    if value.lower() not in BOOLEANS:
        raise InvalidField("auto_mode: true or false.", param="auto_mode")
    return BOOLEANS[value.lower()]


# Client messages.


class ClientMessage(BaseModel):
    """What every client message may carry (ElevenLabs' names; the key may come in the first
    message only, and is read by the endpoint)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    text: str | None = Field(default=None, max_length=MAX_TEXT_CHARACTERS)
    flush: bool | None = None
    try_trigger_generation: bool | None = None
    voice_settings: RealtimeVoiceSettings | None = None
    generation_config: RealtimeGenerationConfig | None = None
    generator_config: RealtimeGenerationConfig | None = None
    pronunciation_dictionary_locators: list[dict[str, Any]] | None = Field(
        default=None, max_length=3
    )
    xi_api_key: str | None = Field(default=None, alias="xi-api-key", max_length=200)
    xi_api_key_snake: str | None = Field(default=None, alias="xi_api_key", max_length=200)
    authorization: str | None = Field(default=None, max_length=200)
    context_id: str | None = Field(default=None, max_length=64)
    context_id_camel: str | None = Field(default=None, alias="contextId", max_length=64)
    close_context: bool | None = None
    close_socket: bool | None = None

    @property
    def context(self) -> str:
        return self.context_id or self.context_id_camel or DEFAULT_CONTEXT

    @property
    def api_key(self) -> str | None:
        """The credential as an `Authorization` value, or None."""
        key = self.xi_api_key or self.xi_api_key_snake
        if key:
            return f"Bearer {key.strip()}"
        return self.authorization


def read_message(message: dict[str, Any], *, param: str = "message") -> ClientMessage:
    body = read_json(message, param=param)
    try:
        return ClientMessage.model_validate(body)
    except ValidationError as exc:
        param_at, text = validation_error(exc, param)
        raise MalformedRequest(text, param=param_at or param) from None


def native_opening(voice_id: str, first: ClientMessage) -> RealtimeTtsOpening:
    """The native opening for ElevenLabs' voice id and first message: the voice an ElevenLabs
    premade voice maps onto (compat.voice_aliases), `voice_settings.speed`, the chunk length
    schedule."""
    catalog_voice, pitch = elevenlabs_voice(voice_id)
    fields: dict[str, Any] = {"voice_id": catalog_voice, "pitch": pitch, "output_mode": "base64"}
    if first.voice_settings is not None:
        fields["voice_settings"] = first.voice_settings
    config = first.generation_config or first.generator_config
    if config is not None:
        fields["generation_config"] = config
    try:
        return RealtimeTtsOpening.model_validate(fields)
    except ValidationError as exc:
        param, text = validation_error(exc, "first message")
        raise InvalidField(text, param=param) from None


# Server messages.


class Alignment(BaseModel):
    """Where each character of a piece falls, in ms from the start of the piece's audio."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    chars: list[str]
    char_start_times_ms: list[int] = Field(alias="charStartTimesMs")
    char_durations_ms: list[int] = Field(alias="charDurationsMs")


class AudioOutput(ServerMessage):
    audio: str
    is_final: None = Field(default=None, alias="isFinal")
    normalized_alignment: Alignment | None = Field(default=None, alias="normalizedAlignment")
    alignment: Alignment | None = None


class AudioOutputMulti(AudioOutput):
    context_id: str = Field(alias="contextId")


class FinalOutput(ServerMessage):
    is_final: Literal[True] = Field(default=True, alias="isFinal")


class FinalOutputMulti(FinalOutput):
    context_id: str = Field(alias="contextId")


class SocketError(ServerMessage):
    """Every error: `message` what went wrong, `error` its code (`invalid_api_key`,
    `voice_not_found`, `insufficient_credits`...), `code` the close code that follows."""

    message: str
    error: str
    close_code: int = Field(alias="code")

    @classmethod
    def of(cls, error: AppError) -> SocketError:
        return cls(message=error.message, error=error.code, close_code=gate.close_code(error))


def _alignment(chunk: SpokenChunk) -> Alignment:
    """The piece's characters, from its own start: its words, the spaces between, and a space
    after its last word that lasts to the end of the piece's audio (its pause), as ElevenLabs'
    texts end in a space. A client that builds words from the characters of successive
    pieces (pipecat) so ends a piece's last word with it, not joined to the next piece's first,
    and the last character's end is where the next piece's audio starts."""
    words = [
        WordTiming(
            word=word.word,
            start_ms=word.start_ms - chunk.start_ms,
            end_ms=word.end_ms - chunk.start_ms,
        )
        for word in chunk.words
    ]
    native = CharacterAlignment.of_words(words)
    end = words[-1].end_ms if words else 0
    return Alignment(
        chars=[*native.chars, " "],
        char_start_times_ms=[*native.char_start_times_ms, end],
        char_durations_ms=[*native.chars_durations_ms, max(chunk.duration_ms - end, 0)],
    )


class StreamInputDialect:
    """stream-input: one stream of text, `{"text": ""}` ends it (`isFinal` then); in
    `auto_mode` each text message is flushed."""

    def __init__(self, first: ClientMessage, *, auto: bool = False) -> None:
        self._first = first
        self._auto = auto

    def opening(self) -> TextTurn:
        return self._turn(self._first, opening=True)

    def read(self, message: dict[str, Any]) -> TextTurn:
        return self._turn(read_message(message), opening=False)

    def _turn(self, message: ClientMessage, *, opening: bool) -> TextTurn:
        text = message.text
        if text == "" and not opening:
            return TextTurn(ends=True)
        if text and not text.strip():
            text = ""  # the opening " " (or a space on its own): nothing to say
        if text or message.flush:
            flush = bool(message.flush) or (self._auto and bool(text))
            return TextTurn((TextInput(text or "", flush=flush),))
        return TextTurn()

    def spoken(self, chunk: SpokenChunk) -> Sequence[Frame]:
        alignment = _alignment(chunk)
        return [
            AudioOutput(
                audio=encode(chunk.audio), normalized_alignment=alignment, alignment=alignment
            )
        ]

    def tail(self, tail: AudioTail) -> Sequence[Frame]:
        return [AudioOutput(audio=encode(tail.audio))]

    def context_closed(self, close: CloseContext) -> Sequence[Frame]:
        return []

    def finished(self, totals: FinalMessage) -> Sequence[Frame]:
        return [FinalOutput()]


class MultiStreamDialect:
    """multi-stream-input: up to 5 contexts at once, each its own stream of text and audio;
    `close_context` ends one (its unflushed text dropped, `isFinal` for it), `close_socket`
    speaks what every open context holds, then `isFinal` for each, and closes; in
    `auto_mode` each text message is flushed."""

    def __init__(self, first: ClientMessage, *, auto: bool = False) -> None:
        self._first = first
        self._auto = auto
        self._open: list[str] = []

    def opening(self) -> TextTurn:
        return self._turn(self._first)

    def read(self, message: dict[str, Any]) -> TextTurn:
        return self._turn(read_message(message))

    def _turn(self, message: ClientMessage) -> TextTurn:
        if message.close_socket:
            return TextTurn(ends=True)
        context = message.context
        if message.close_context:
            if context not in self._open:
                return TextTurn()
            self._open.remove(context)
            return TextTurn((CloseContext(context),))
        text = message.text or ""
        if context not in self._open:
            if len(self._open) >= MAX_CONTEXTS:
                raise TooManyContexts(
                    f"At most {MAX_CONTEXTS} contexts may be open at once: close one "
                    "(`close_context`) before opening another.",
                    param="context_id",
                )
            self._open.append(context)
            if not text.strip():
                text = ""  # the context's opening " "
        if text or message.flush:
            flush = bool(message.flush) or (self._auto and bool(text))
            return TextTurn((TextInput(text, flush=flush, context=context),))
        return TextTurn()  # `{"text": "", "context_id": ...}` keeps a context alive

    def spoken(self, chunk: SpokenChunk) -> Sequence[Frame]:
        alignment = _alignment(chunk)
        return [
            AudioOutputMulti(
                audio=encode(chunk.audio),
                normalized_alignment=alignment,
                alignment=alignment,
                context_id=chunk.context,
            )
        ]

    def tail(self, tail: AudioTail) -> Sequence[Frame]:
        return [AudioOutputMulti(audio=encode(tail.audio), context_id=tail.context)]

    def context_closed(self, close: CloseContext) -> Sequence[Frame]:
        return [FinalOutputMulti(context_id=close.context)]

    def finished(self, totals: FinalMessage) -> Sequence[Frame]:
        return [FinalOutputMulti(context_id=context) for context in self._open]
