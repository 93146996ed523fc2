"""The realtime text-to-speech protocol (GET /api/v1/speech/tts/realtime; docs/realtime.md,
"Realtime text-to-speech"): every message a client sends and the server sends, as models. The names
follow ElevenLabs' `stream-input` where they mean the same thing.

Client: the opening message, then text messages (`text`, `flush`, `close`). Server, in the
order a piece gives them: with `output_mode: "binary"` the piece's audio in a binary frame,
then `alignment`; with `"base64"` one `audio` message holding the same fields (ElevenLabs'
shape: `audio`, `isFinal`, `alignment`). At the end the encoder's last bytes (MP3) as audio
without alignment, then `final`; an error ends a session with the shared `error`
(realtime.messages)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, ClassVar, Literal

from pydantic import BaseModel, ConfigDict, Field

from soundstage.core.schemas import RequestModel
from soundstage.realtime.messages import ServerMessage
from soundstage.speech.tts.schemas import MAX_TEXT_CHARACTERS

# Client messages.

RealtimeFormat = Literal["pcm_16000", "pcm_22050", "pcm_24000", "mp3", "ulaw_8000"]
ChunkLength = Annotated[int, Field(ge=50, le=500)]


class RealtimeVoiceSettings(RequestModel):
    """ElevenLabs' `voice_settings`: `speed` is used (when the opening message has no
    `speed`); the others are accepted for its clients and have no effect here."""

    speed: float | None = Field(default=None, ge=0.5, le=2.0)
    stability: float | None = Field(default=None, ge=0.0, le=1.0)
    similarity_boost: float | None = Field(default=None, ge=0.0, le=1.0)
    style: float | None = Field(default=None, ge=0.0, le=1.0)
    use_speaker_boost: bool | None = None


class RealtimeGenerationConfig(RequestModel):
    chunk_length_schedule: list[ChunkLength] = Field(
        min_length=1,
        max_length=16,
        description="The i-th piece of speech may end at a clause mark (, ; : or a dash) once "
        "it holds this many characters (the last value for later pieces); a complete "
        "sentence is always spoken at once. 50 to 500 each.",
    )


class RealtimeTtsOpening(RequestModel):
    """The first message of a realtime text-to-speech session."""

    # Text is spoken (and charged) as sent: it is not trimmed.
    model_config = ConfigDict(str_strip_whitespace=False)

    voice_id: str = Field(min_length=1, max_length=64, description="From GET /api/v1/voices.")
    format: RealtimeFormat = Field(
        default="pcm_24000",
        description="pcm_*: raw signed 16-bit little-endian mono at that rate; mp3: 44.1 kHz "
        "128 kb/s; ulaw_8000: raw G.711 mu-law at 8 kHz.",
    )
    speed: float = Field(default=1.0, ge=0.5, le=2.0, description="0.5 to 2.0.")
    pitch: int = Field(default=0, ge=-12, le=12, description="Semitones, -12 to 12.")
    output_mode: Literal["binary", "base64"] = Field(
        default="binary",
        description="binary: each piece's audio in a binary frame, followed by its "
        "`alignment` message; base64: one JSON `audio` message per piece, its alignment in it.",
    )
    text: str = Field(
        default="",
        max_length=MAX_TEXT_CHARACTERS,
        description='ElevenLabs\' opening " ": white space only is ignored; any other text '
        "is the first text of the session.",
    )
    voice_settings: RealtimeVoiceSettings | None = None
    generation_config: RealtimeGenerationConfig | None = None
    try_trigger_generation: bool = Field(
        default=False, description="Accepted for ElevenLabs' clients; no effect."
    )
    flush: bool = False

    @property
    def reading_speed(self) -> float:
        """`speed`, else ElevenLabs' `voice_settings.speed`, else 1.0."""
        if "speed" not in self.model_fields_set and self.voice_settings is not None:
            return self.voice_settings.speed or self.speed
        return self.speed


class RealtimeTtsInput(RequestModel):
    """A message of the session after the opening one."""

    model_config = ConfigDict(str_strip_whitespace=False)

    text: str | None = Field(
        default=None,
        max_length=MAX_TEXT_CHARACTERS,
        description='More text to speak, any size (a word, a token); "" ends the session.',
    )
    flush: bool = Field(default=False, description="Speak everything buffered now.")
    close: bool = Field(default=False, description="End the session (what is buffered is spoken).")
    try_trigger_generation: bool = Field(
        default=False, description="Accepted for ElevenLabs' clients; no effect."
    )

    @property
    def ends(self) -> bool:
        return self.close or self.text == ""


# Server messages.


class WordTiming(BaseModel):
    """A word of a piece as written, in ms from the start of the session's audio."""

    model_config = ConfigDict(frozen=True)

    word: str
    start_ms: int
    end_ms: int


class CharacterAlignment(BaseModel):
    """ElevenLabs' character arrays: each word's characters share its time, the spaces
    between words the gaps."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    chars: list[str]
    char_start_times_ms: list[int] = Field(alias="charStartTimesMs")
    chars_durations_ms: list[int] = Field(alias="charsDurationsMs")

    @classmethod
    def of_words(cls, words: Sequence[WordTiming]) -> CharacterAlignment:
        chars: list[str] = []
        starts: list[int] = []
        durations: list[int] = []
        cursor = words[0].start_ms if words else 0
        for index, word in enumerate(words):
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
        return cls(chars=chars, char_start_times_ms=starts, chars_durations_ms=durations)


class AlignmentMessage(ServerMessage):
    """Where a piece and its words fall (binary mode: after the piece's audio frame)."""

    type: Literal["alignment"] = "alignment"
    chunk: int
    text: str
    start_ms: int
    duration_ms: int
    words: list[WordTiming]
    alignment: CharacterAlignment


class AudioMessage(ServerMessage):
    """Base64 mode: a piece's audio with its alignment's fields; the encoder's last bytes
    come without them."""

    omit_none: ClassVar[bool] = True

    type: Literal["audio"] = "audio"
    audio: str
    is_final: Literal[False] = Field(default=False, alias="isFinal")
    chunk: int | None = None
    text: str | None = None
    start_ms: int | None = None
    duration_ms: int | None = None
    words: list[WordTiming] | None = None
    alignment: CharacterAlignment | None = None


class FinalMessage(ServerMessage):
    """The session's totals, before its normal close (the job keeps them as its result)."""

    type: Literal["final"] = "final"
    is_final: Literal[True] = Field(default=True, alias="isFinal")
    job_id: str
    characters: int
    duration_ms: int
    chunks: int
