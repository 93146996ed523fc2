"""Response bodies of the voice catalog."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from soundstage.core.timeutil import Timestamp

VoiceGender = Literal["female", "male"]
# How GET /api/v1/voices orders: by language, the best-rated first; or newest first.
VoiceSort = Literal["quality", "newest"]


class CreatorRef(BaseModel):
    """The talent who performs a voice."""

    creator_id: str
    display_name: str


class VoiceQualityOut(BaseModel):
    """How the voice sounds, as measured on the service's own machine (bench/voice_quality.py,
    docs/voice-quality.md): three sentences in its language, read through the API."""

    mos: float = Field(
        description="Predicted naturalness, DistillMOS: a mean opinion score from 1 (bad) to "
        "5 (excellent)."
    )
    dnsmos_ovrl: float = Field(description="DNSMOS P.835 overall quality, 1 to 5.")
    dnsmos_p808: float = Field(description="DNSMOS P.808 overall quality, 1 to 5.")
    wer: float = Field(
        description="Word error rate of whisper-base hearing the reading (characters for a "
        "language written without spaces), 0 = every word heard."
    )
    rtf: float = Field(description="Real-time factor through the API: seconds per second.")
    measured_on: str = Field(description="The day of the measurement, ISO 8601.")


class VoiceOut(BaseModel):
    object: Literal["voice"] = "voice"
    voice_id: str = Field(description="Pass it as `voice_id` to POST /api/v1/speech/tts.")
    name: str
    description: str
    language: str = Field(description="BCP-47 tag, e.g. `en-US`, `es-ES`, `cmn`.")
    gender: VoiceGender
    accent: str = Field(description="How the voice sounds to a listener, e.g. `Scottish`.")
    engine: str = Field(description="The synthesis engine that speaks this voice.")
    creator: CreatorRef
    preview_url: str = Field(
        description="A short MP3 sample of the voice, public (no key needed, playable in a "
        "browser) and stable: GET /previews/{voice_id}.mp3."
    )
    quality: VoiceQualityOut | None = Field(
        description="Measured naturalness and intelligibility; null for a voice not measured "
        "(a custom voice, one added since)."
    )
    created_at: Timestamp
