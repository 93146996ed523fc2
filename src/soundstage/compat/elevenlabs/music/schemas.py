"""The body and `output_format`s of ElevenLabs' music composition, as the official SDK (2.78)
sends them."""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import Field, field_validator

from soundstage.compat.elevenlabs.schemas import MAX_ID, StreamFormat, refuse_if_set
from soundstage.core.schemas import RequestModel
from soundstage.creative.music.schemas import (
    MAX_PROMPT_CHARACTERS,
    MAX_SECONDS,
    MAX_SEED,
    MIN_SECONDS,
)

# ElevenLabs' music formats: those of text to speech and four MP3s at 48 kHz; `auto` is
# `mp3_44100_128` (what ElevenLabs picks for its v1 model).
MusicFormat = (
    StreamFormat
    | Literal["mp3_48000_128", "mp3_48000_192", "mp3_48000_240", "mp3_48000_320"]
    | Literal["auto"]
)
AUTO_FORMAT: Final = "mp3_44100_128"
MIN_LENGTH_MS = MIN_SECONDS * 1000
MAX_LENGTH_MS = MAX_SECONDS * 1000


class ElevenLabsMusicBody(RequestModel):
    """POST /v1/music: a `prompt` and a length, made by the native generator (instrumental;
    its genre, mood, tempo, key and instruments read from the prompt)."""

    prompt: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_PROMPT_CHARACTERS,
        description="Required (no `composition_plan` here): 1 to 500 characters, read as the "
        "native API reads it.",
    )
    composition_plan: dict[str, Any] | None = Field(
        default=None, description="Not supported: 422 when set (send a `prompt`)."
    )
    music_length_ms: int | None = Field(
        default=None,
        ge=MIN_LENGTH_MS,
        le=MAX_LENGTH_MS,
        description="10,000 to 300,000 (the native generator's bounds), made to the nearest "
        "whole second. Default: 30 seconds.",
    )
    model_id: str | None = Field(default=None, max_length=MAX_ID, description="Ignored.")
    seed: int | None = Field(
        default=None,
        ge=0,
        le=MAX_SEED,
        description="Honoured: the same prompt, length and seed make the same piece.",
    )
    force_instrumental: bool | None = Field(
        default=None, description="Accepted: every piece made here is instrumental."
    )
    finetune_id: str | None = Field(default=None, max_length=MAX_ID, description="Refused.")
    respect_sections_durations: bool | None = Field(default=None, description="Ignored.")
    store_for_inpainting: bool | None = Field(default=None, description="Ignored.")
    sign_with_c2pa: bool | None = Field(default=None, description="Refused when true.")

    @field_validator("composition_plan")
    @classmethod
    def _no_plan(cls, value: dict[str, Any] | None) -> Any:
        return refuse_if_set(value, "composition_plan")

    @field_validator("finetune_id", "sign_with_c2pa")
    @classmethod
    def _refused(cls, value: Any) -> Any:
        return refuse_if_set(value, "this field")
