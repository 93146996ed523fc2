"""The form and answers of ElevenLabs' dubbing, as the official SDK (2.78) sends and reads
them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field, field_validator

from soundstage.compat.elevenlabs.schemas import FormBool, FormFloat, FormInt, FormModel
from soundstage.core.timeutil import Timestamp

DubStatus = Literal["dubbing", "dubbed", "failed"]
MAX_NAME_CHARS = 200
MAX_LANGUAGE_CHARS = 35


class ElevenLabsDubbingForm(FormModel):
    """The multipart fields of POST /v1/dubbing besides its files."""

    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_NAME_CHARS,
        description="The dub's name; default the file's name (or the URL's last segment).",
    )
    source_url: str | None = Field(
        default=None, max_length=2048, description="An http(s) URL of the media, instead of `file`."
    )
    source_lang: str | None = Field(
        default=None,
        min_length=2,
        max_length=MAX_LANGUAGE_CHARS,
        description="ISO 639-1 or 639-3 (or BCP-47) code of the speech; `auto` or absent: "
        "detected by the transcriber.",
    )
    target_lang: str | None = Field(
        default=None,
        min_length=2,
        max_length=MAX_LANGUAGE_CHARS,
        description="Required: ISO 639-1 or 639-3 (or BCP-47) code of the dub (GET "
        "/api/v1/speech/dubbing/languages lists the pairs).",
    )
    target_accent: str | None = Field(default=None, max_length=64, description="Ignored.")
    num_speakers: FormInt | None = Field(
        default=None, ge=0, le=50, description="Ignored: speakers are always detected."
    )
    watermark: FormBool | None = Field(default=None, description="Ignored.")
    start_time: FormInt | None = Field(
        default=None, description="Refused: the whole media is dubbed."
    )
    end_time: FormInt | None = Field(
        default=None, description="Refused: the whole media is dubbed."
    )
    highest_resolution: FormBool | None = Field(default=None, description="Ignored.")
    drop_background_audio: FormBool | None = Field(
        default=None, description="Refused when true: the background is kept under the dub."
    )
    use_profanity_filter: FormBool | None = Field(default=None, description="Ignored.")
    dubbing_studio: FormBool | None = Field(default=None, description="Ignored.")
    disable_voice_cloning: FormBool | None = Field(
        default=None, description="Ignored: each speaker gets the catalog voice nearest theirs."
    )
    mode: Literal["automatic", "manual"] | None = Field(
        default=None, description="`automatic` only (`manual` takes a CSV: refused)."
    )
    csv_fps: FormFloat | None = Field(default=None, ge=0, le=1000, description="Ignored.")

    @field_validator("start_time", "end_time")
    @classmethod
    def _whole_media(cls, value: int | None) -> int | None:
        if value is not None:
            raise ValueError("not supported by this service: the whole media is dubbed")
        return value

    @field_validator("drop_background_audio")
    @classmethod
    def _background_kept(cls, value: bool | None) -> bool | None:
        if value:
            raise ValueError("not supported by this service: the background is kept")
        return value

    @field_validator("mode")
    @classmethod
    def _automatic(cls, value: str | None) -> str | None:
        if value == "manual":
            raise ValueError("`manual` (a CSV transcript) is not supported by this service")
        return value


class ElevenLabsDubbingCreated(BaseModel):
    dubbing_id: str = Field(description="The native dubbing job's id.")
    expected_duration_sec: float = Field(description="The job's estimated completion time.")


class ElevenLabsDubbingMediaMetadata(BaseModel):
    content_type: str = Field(description="The dub's file: like the input (docs/dubbing.md).")
    duration: float = Field(description="Seconds.")


class ElevenLabsDubbingMetadata(BaseModel):
    dubbing_id: str = Field(description="The native dubbing job's id.")
    name: str
    status: DubStatus = Field(
        description="`dubbing` while the job is queued or running, `dubbed` once completed, "
        "`failed` if it failed or was cancelled."
    )
    source_language: str | None = Field(
        description="The speech's language: as asked, or once dubbed as detected (`auto`)."
    )
    target_languages: list[str]
    editable: bool = False
    created_at: Timestamp
    media_metadata: ElevenLabsDubbingMediaMetadata | None = Field(
        default=None, description="Once dubbed."
    )
    error: str | None = Field(default=None, description="Why the dub failed.")
