"""Request and response bodies of text-to-speech."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from soundstage.core.schemas import RequestModel
from soundstage.jobs.schemas import CompletedJob

MAX_TEXT_CHARACTERS = 5000


class TtsRequest(RequestModel):
    # The text is charged per character as sent: it is not trimmed.
    model_config = ConfigDict(str_strip_whitespace=False)

    text: str = Field(
        min_length=1, max_length=MAX_TEXT_CHARACTERS, description="At most 5,000 characters."
    )
    voice_id: str = Field(min_length=1, max_length=64, description="From GET /api/v1/voices.")
    format: Literal["mp3", "wav", "flac"] = "mp3"
    speed: float = Field(default=1.0, ge=0.5, le=2.0, description="0.5 to 2.0.")
    pitch: int = Field(default=0, ge=-12, le=12, description="Semitones, -12 to 12.")
    timestamps: bool = Field(
        default=False,
        description="Add `words`: each word of the text with its start and end in the audio.",
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


class TtsResponse(CompletedJob):
    output_url: str = Field(description="Signed URL of the audio; expires 24 h after issue.")
    duration_ms: int = Field(description="The real duration of the audio file.")
    characters_processed: int
    words: list[TimedWord] | None = Field(
        default=None,
        description="Only with `timestamps: true` (absent otherwise): every word of the text in "
        "order, aligned to the audio by the service's speech recognizer.",
    )
