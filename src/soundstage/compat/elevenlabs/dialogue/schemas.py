"""ElevenLabs' text-to-dialogue bodies and answers, as the official SDK (2.78) sends and reads
them."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from soundstage.compat.elevenlabs.schemas import (
    MAX_ID,
    ElevenLabsCharacterAlignment,
    ElevenLabsSpeechFields,
)
from soundstage.core.schemas import RequestModel
from soundstage.speech.tts.schemas import MAX_DIALOGUE_TURNS, MAX_TEXT_CHARACTERS


class ElevenLabsDialogueInput(RequestModel):
    model_config = ConfigDict(str_strip_whitespace=False)

    text: str = Field(min_length=1, max_length=MAX_TEXT_CHARACTERS)
    voice_id: str = Field(
        min_length=1,
        max_length=MAX_ID,
        description="A catalog voice id, or one of ElevenLabs' premade voice ids (the catalog "
        "voice that reads it: docs/elevenlabs.md).",
    )


class ElevenLabsDialogueSettings(RequestModel):
    """Accepted, ignored: Soundstage's voices have no stability or similarity controls."""

    stability: float | None = Field(default=None, ge=0, le=1)
    similarity: float | None = Field(default=None, ge=0, le=1)
    clone_strength: float | None = Field(default=None, ge=0, le=1)


class ElevenLabsDialogueBody(ElevenLabsSpeechFields):
    inputs: list[ElevenLabsDialogueInput] = Field(
        min_length=1,
        max_length=MAX_DIALOGUE_TURNS,
        description="1 to 50 turns, 5,000 characters in all (as the native dialogue).",
    )
    settings: ElevenLabsDialogueSettings | None = None
    previous_text: str | None = Field(
        default=None, max_length=100, description="Accepted, ignored."
    )
    future_text: str | None = Field(default=None, max_length=100, description="Accepted, ignored.")


class ElevenLabsVoiceSegment(BaseModel):
    voice_id: str = Field(description="The voice as the request named it.")
    start_time_seconds: float
    end_time_seconds: float
    character_start_index: int = Field(description="Into `alignment.characters`.")
    character_end_index: int = Field(description="Exclusive.")
    dialogue_input_index: int


class ElevenLabsDialogueWithTimestamps(BaseModel):
    audio_base64: str
    alignment: ElevenLabsCharacterAlignment = Field(
        description="Every character of every input's text, the inputs one after the other "
        "(nothing between them), with when it is spoken (as text to speech's)."
    )
    normalized_alignment: ElevenLabsCharacterAlignment = Field(
        description="The same as `alignment`."
    )
    voice_segments: list[ElevenLabsVoiceSegment] = Field(
        description="Each input: its voice, when it is spoken, its characters."
    )


class ElevenLabsDialogueChunk(BaseModel):
    """A line of `/stream/with-timestamps`: audio as it is made (no alignment, no segments),
    then a last line with no audio, the alignment and the voice segments of the whole."""

    audio_base64: str
    alignment: ElevenLabsCharacterAlignment | None
    normalized_alignment: ElevenLabsCharacterAlignment | None
    voice_segments: list[ElevenLabsVoiceSegment]
