"""Request and response bodies of dubbing."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from soundstage.core.schemas import MediaUrl, RequestModel
from soundstage.jobs.payloads import JobResult, MediaLink


class DubbingRequest(RequestModel):
    media_url: MediaUrl = Field(
        description="URL of the audio or video to dub: a public http(s) URL or one of this "
        "service's media URLs (an upload). Audio: MP3, WAV, FLAC, M4A, OGG...; video: MP4, "
        "MOV, MKV, WebM. It is fetched and measured when the request is made.",
    )
    source_language: str = Field(
        min_length=2,
        max_length=35,
        description="BCP-47 tag of the speech (`en`, `es-MX`), or `auto`: the transcriber "
        "detects it from the start of the speech (the result's `source_language` says which; "
        "the target language heard is 422 `unsupported_language_pair` when the job ends).",
    )
    target_language: str = Field(
        min_length=2,
        max_length=35,
        description="BCP-47 tag of the dub. GET /api/v1/speech/dubbing/languages lists the "
        "supported pairs; another is 422 `unsupported_language_pair`.",
    )
    tier: Literal["standard", "premium"] = Field(
        default="standard",
        description="`standard` (1,500 credits a minute) or `premium` (3,000): a wider "
        "transcription beam, force-aligned word times (English) and a second isolation pass.",
    )
    preserve_voice: bool = Field(
        default=True,
        description="Give each speaker the target-language voice closest to theirs (speaker "
        "embedding, gender, pitch), moved toward their pitch; false: the language's default "
        "voices, still one per speaker.",
    )


class LanguagePairOut(BaseModel):
    id: str = Field(description='`source:target`, e.g. `"de:en"` (a pagination cursor).')
    source_language: str
    target_language: str
    translator: str = Field(description="The engine that translates this pair.")
    via: list[str] = Field(description='Pivot languages on the way (`["es"]`), or none.')
    voices: int = Field(description="Target-language voices speakers are cast from.")


class LanguagePairList(BaseModel):
    object: Literal["list"] = "list"
    data: list[LanguagePairOut]
    has_more: bool


class TranslatorResult(JobResult):
    name: str
    via: list[str]


class SpeakerResult(JobResult):
    """A speaker of the source and the voice cast for it."""

    speaker: str
    voice_id: str
    engine: str
    engine_voice: str
    gender: str
    source_median_pitch_hz: float | None
    pitch_shift_semitones: float
    similarity: float | None


class UtteranceResult(JobResult):
    """A line of the source, its translation and where the dub put it."""

    speaker: str
    start_ms: int
    end_ms: int
    text: str
    translation: str
    output_start_ms: int
    output_end_ms: int
    time_ratio: float
    engine_rate: float
    spoken: bool


class DubbingResult(JobResult):
    output_url: MediaLink
    duration_ms: int
    source_transcript_url: MediaLink
    target_transcript_url: MediaLink
    source_language: str
    target_language: str
    tier: str
    preserve_voice: bool
    transcript: str
    translator: TranslatorResult
    speakers: list[SpeakerResult]
    utterances: list[UtteranceResult]
    # Each stage's wall time.
    stage_ms: dict[str, int]
