"""Request and response bodies of speech-to-text."""

from __future__ import annotations

from pydantic import BaseModel, Field, ValidationInfo, field_validator
from pydantic.json_schema import SkipJsonSchema

from soundstage.core.schemas import MediaUrl, RequestModel
from soundstage.core.timeutil import Timestamp
from soundstage.engines.speakers.diarize import MAX_SPEAKERS
from soundstage.jobs.payloads import JobResult
from soundstage.jobs.schemas import CompletedJob


class SttRequest(RequestModel):
    audio_url: MediaUrl = Field(
        description="URL of an MP3, WAV, FLAC or M4A file (other formats FFmpeg reads work "
        "too): a public http(s) URL, or one of this service's media URLs (uploads, outputs).",
    )
    language: str = Field(
        default="en",
        min_length=2,
        max_length=35,
        description="BCP-47 tag of the spoken language (`en`, `es-MX`, `zh-Hans`...), or "
        "`auto` (beyond the spec) to detect it: the answer reports the detected language.",
    )
    diarize: bool = Field(default=False, description="Tell the speakers apart.")
    timestamps: bool = Field(default=False, description="Add each word with its timing.")
    num_speakers: int | None = Field(
        default=None,
        ge=1,
        le=MAX_SPEAKERS,
        description="Beyond the spec, with `diarize`: the number of speakers when known "
        "(otherwise it is found automatically).",
    )

    @field_validator("num_speakers")
    @classmethod
    def _speakers_need_diarization(cls, value: int | None, info: ValidationInfo) -> int | None:
        if value is not None and not info.data.get("diarize"):
            raise ValueError("only meaningful with diarize: true")
        return value


class SttWord(BaseModel):
    word: str
    start_ms: int
    end_ms: int
    speaker: str | None = Field(default=None, description="Only with `diarize: true`.")


class SpeakerSegment(BaseModel):
    start_ms: int
    end_ms: int


class Speaker(BaseModel):
    speaker: str = Field(description="`speaker_1`, `speaker_2`, ... in order of first speech.")
    segments: list[SpeakerSegment]


class TranscriptSegment(BaseModel):
    text: str
    start_ms: int
    end_ms: int
    speaker: str | None = Field(default=None, description="Only with `diarize: true`.")


class ModelSegment(BaseModel):
    """A segment as the model decoded it, with its own figures (what OpenAI's `verbose_json`
    answers): not part of the native answer, stored only when a job asks for them."""

    text: str
    start_ms: int
    end_ms: int
    seek: int
    tokens: list[int]
    temperature: float
    avg_logprob: float
    compression_ratio: float
    no_speech_prob: float


class SttResult(JobResult):
    """The result of an `stt` job."""

    transcript: str = Field(description="Punctuated; empty when nothing was said.")
    duration_ms: int = Field(description="Duration of the input audio.")
    language: str = Field(description="The language transcribed (Whisper's code: `en`, `es`).")
    language_probability: float | None = Field(
        default=None, description="With `language: auto`: how sure the detection is, 0..1."
    )
    words: list[SttWord] = Field(
        description="With `timestamps: true`, every word in order; an empty array otherwise."
    )
    speakers: list[Speaker] = Field(
        description="With `diarize: true`, each speaker with the time ranges they speak; an "
        "empty array otherwise."
    )
    segments: list[TranscriptSegment] = Field(
        description="Beyond the spec: the transcript in phrases (subtitle cues) with timings."
    )
    model_segments: list[ModelSegment] | None = Field(
        default=None,
        description="Only when the job asked for them (the OpenAI-compatible API's "
        "`verbose_json`): the model's own segments with their decoding figures.",
    )


class SttResponse(SttResult, CompletedJob):
    # The model's segments are the compatible API's (transcribe_detailed), not this answer's.
    model_segments: SkipJsonSchema[list[ModelSegment] | None] = Field(default=None, exclude=True)


class RealtimeToken(BaseModel):
    token: str = Field(description="Opens one session as `?token=`, once.")
    expires_at: Timestamp
