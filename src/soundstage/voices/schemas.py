"""Response bodies of the voice catalog."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from soundstage.core.timeutil import Timestamp

VoiceGender = Literal["female", "male"]


class CreatorRef(BaseModel):
    """The talent who performs a voice."""

    creator_id: str
    display_name: str


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
    created_at: Timestamp
