"""Request and response bodies of text-to-speech."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from soundstage.core.schemas import RequestModel
from soundstage.core.timeutil import Timestamp
from soundstage.jobs.payloads import JobResult, MediaLink
from soundstage.jobs.schemas import CompletedJob

MAX_TEXT_CHARACTERS = 5000
MAX_DICTIONARY_LOCATORS = 3


class DictionaryLocator(RequestModel):
    dictionary_id: str = Field(min_length=1, max_length=64)
    version_id: str | None = Field(
        default=None, min_length=1, max_length=64, description="The latest when left out."
    )


class TtsRequest(RequestModel):
    # The text is charged per character as sent: it is not trimmed.
    model_config = ConfigDict(str_strip_whitespace=False)

    text: str = Field(
        min_length=1,
        max_length=MAX_TEXT_CHARACTERS,
        description="At most 5,000 characters. Text that starts with `<speak>` is SSML (see "
        "docs/text-to-speech.md for the tags each voice honours); invalid SSML is 422 "
        "`invalid_ssml` "
        "naming the line and column. Charged per character as spoken: plain text's as sent, "
        "SSML's text content (markup not charged), each alias (SSML `<sub>`, a dictionary's "
        "alias rule) in place of what it stands for, never fewer than written; the spoken "
        "text is held to 5,000 characters too.",
    )
    voice_id: str = Field(min_length=1, max_length=64, description="From GET /api/v1/voices.")
    format: Literal["mp3", "wav", "flac"] = "mp3"
    speed: float = Field(default=1.0, ge=0.5, le=2.0, description="0.5 to 2.0.")
    pitch: int = Field(default=0, ge=-12, le=12, description="Semitones, -12 to 12.")
    timestamps: bool = Field(
        default=False,
        description="Add `words`: each word of the text with its start and end in the audio.",
    )
    apply_text_normalization: Literal["auto", "on", "off"] = Field(
        default="auto",
        description="on: numbers, money, dates, times, units, abbreviations... are read out "
        "as words the same way for every voice; off: each whitespace-separated token is "
        "given to the voice as written; auto (default): the same as on.",
    )
    pronunciation_dictionary_locators: list[DictionaryLocator] = Field(
        default_factory=list,
        max_length=MAX_DICTIONARY_LOCATORS,
        description="Up to 3 pronunciation dictionaries whose rules apply to the text.",
    )

    @field_validator("text")
    @classmethod
    def _speakable(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain something to say")
        return value


class TimedWord(BaseModel):
    word: str = Field(description="The word as written in the text, with its punctuation.")
    start_ms: int
    end_ms: int


class TtsResult(JobResult):
    """The result of a `tts` job."""

    output_url: MediaLink = Field(description="Signed URL of the audio; expires 24 h after issue.")
    duration_ms: int = Field(description="The real duration of the audio file.")
    characters_processed: int = Field(
        description="The characters charged: the text's as spoken (plain text's, all; "
        "SSML's, its text content's; aliases in place), never fewer than written."
    )
    words: list[TimedWord] | None = Field(
        default=None,
        description="Only with `timestamps: true` (absent otherwise): every word of the text in "
        "order as written (of SSML, its text content's), aligned to the audio by the service's "
        'speech recognizer; a word read as several ("$250") spans all of them.',
    )


class TtsResponse(TtsResult, CompletedJob):
    pass


MAX_DIALOGUE_TURNS = 50
MAX_PAUSE_MS = 5000
# The silence between two turns when the request sets none: a brisk conversational gap that
# still leaves a listener (and a diarizer) a clear change of speaker.
DEFAULT_PAUSE_MS = 300


class DialogueTurn(RequestModel):
    model_config = ConfigDict(str_strip_whitespace=False)

    text: str = Field(
        min_length=1,
        max_length=MAX_TEXT_CHARACTERS,
        description="Plain text or SSML, as POST /api/v1/speech/tts reads it.",
    )
    voice_id: str = Field(min_length=1, max_length=64, description="From GET /api/v1/voices.")
    speed: float = Field(default=1.0, ge=0.5, le=2.0, description="0.5 to 2.0.")
    pitch: int = Field(default=0, ge=-12, le=12, description="Semitones, -12 to 12.")

    @field_validator("text")
    @classmethod
    def _speakable(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain something to say")
        return value


class DialogueRequest(RequestModel):
    inputs: list[DialogueTurn] = Field(
        min_length=1,
        max_length=MAX_DIALOGUE_TURNS,
        description="The turns in order, at most 50, each read by its own voice; 5,000 "
        "characters in all (as spoken, as text to speech counts them).",
    )
    format: Literal["mp3", "wav", "flac"] = "mp3"
    pause_ms: int = Field(
        default=DEFAULT_PAUSE_MS,
        ge=0,
        le=MAX_PAUSE_MS,
        description="The silence between two turns, 0 to 5,000 ms (each turn's own leading "
        "and trailing silence is cut, so this is the gap a listener hears).",
    )
    timestamps: bool = Field(
        default=False,
        description="Add `words`: each word of each turn with its start and end in the audio "
        "and the index of its turn.",
    )
    apply_text_normalization: Literal["auto", "on", "off"] = "auto"
    pronunciation_dictionary_locators: list[DictionaryLocator] = Field(
        default_factory=list,
        max_length=MAX_DICTIONARY_LOCATORS,
        description="Up to 3 pronunciation dictionaries whose rules apply to every turn.",
    )


class DialogueTurnTime(BaseModel):
    voice_id: str
    start_ms: int = Field(description="Where the turn's voice starts in the audio.")
    end_ms: int = Field(description="Where its voice stops (the pause follows).")


class DialogueWord(TimedWord):
    turn: int = Field(description="The index (in `inputs`) of the word's turn.")


class DialogueResult(JobResult):
    """The result of a `dialogue` job."""

    output_url: MediaLink = Field(description="Signed URL of the audio; expires 24 h after issue.")
    duration_ms: int = Field(description="The real duration of the audio file.")
    characters_processed: int = Field(
        description="The characters charged: every turn's text as spoken (as text to speech "
        "counts them)."
    )
    turns: list[DialogueTurnTime] = Field(description="Each turn of `inputs`, in order.")
    words: list[DialogueWord] | None = Field(
        default=None,
        description="Only with `timestamps: true` (absent otherwise): every word of every "
        "turn in order, with the index of its turn.",
    )


class DialogueResponse(DialogueResult, CompletedJob):
    pass


class RealtimeTokenResponse(BaseModel):
    token: str = Field(
        description="Opens one session within `expires_at`: "
        "`wss://<host>/api/v1/speech/tts/realtime?token=<token>`. Single use."
    )
    expires_at: Timestamp
