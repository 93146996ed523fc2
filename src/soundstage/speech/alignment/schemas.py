"""Request and response bodies of forced alignment."""

from __future__ import annotations

from typing import Final

from pydantic import BaseModel, ConfigDict, Field, field_validator

from soundstage.core.schemas import MediaUrl, RequestModel
from soundstage.jobs.payloads import JobResult
from soundstage.jobs.schemas import CompletedJob

MAX_TEXT_CHARACTERS: Final = 100_000
# An hour of audio: the recognizer runs over all of it (about 0.3 of its duration on two
# cores), which keeps the job within the synchronous wait.
MAX_DURATION_MS: Final = 3_600_000


class AlignmentRequest(RequestModel):
    model_config = ConfigDict(str_strip_whitespace=False)

    audio_url: MediaUrl = Field(
        description="URL of the recording (MP3, WAV, FLAC, M4A or anything FFmpeg reads), at "
        "most an hour: a public http(s) URL or one of this service's media URLs."
    )
    text: str = Field(
        min_length=1,
        max_length=MAX_TEXT_CHARACTERS,
        description="What the recording says, at most 100,000 characters: every "
        "whitespace-separated word is placed on the audio.",
    )
    language: str = Field(
        default="auto",
        min_length=2,
        max_length=35,
        description="BCP-47 tag of the spoken language, or `auto` (default) to detect it.",
    )

    @field_validator("text")
    @classmethod
    def _has_words(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("must contain at least one word")
        return value


class AlignedWord(BaseModel):
    word: str = Field(description="As written in the text, with its punctuation.")
    start_ms: int
    end_ms: int
    confidence: float = Field(
        description="0 to 1: the recognizer's confidence in what it heard for this word; 0 "
        "for a word it did not hear (placed between its neighbours by its length)."
    )


class AlignedCharacter(BaseModel):
    character: str
    start_ms: int
    end_ms: int


class AlignmentResult(JobResult):
    """The result of an `alignment` job."""

    words: list[AlignedWord] = Field(description="Every word of the text, in order.")
    characters: list[AlignedCharacter] = Field(
        description="Every character of the text, in order: a word's letters share its span, "
        "the spaces and punctuation between two words the gap between them."
    )
    loss: float = Field(
        description="0 to 1, the mean of 1 - confidence over the words: near 0 when the "
        "audio says the text, near 1 when it says something else."
    )
    duration_ms: int = Field(description="The audio's duration (what was charged).")
    language: str = Field(description="The language recognized (as the request's or detected).")


class AlignmentResponse(AlignmentResult, CompletedJob):
    pass
