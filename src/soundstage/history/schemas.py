"""Response bodies of the history."""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field

from soundstage.core.timeutil import Timestamp


class HistoryKind(StrEnum):
    """The job kinds a generation is (their names in GET /api/v1/jobs)."""

    TTS = "tts"
    DIALOGUE = "dialogue"
    SOUND = "sound"
    MUSIC = "music"
    VOICE_CHANGER = "voice_changer"


class HistoryTurn(BaseModel):
    voice_id: str
    text: str


class HistoryItemOut(BaseModel):
    object: Literal["history_item"] = "history_item"
    id: str = Field(description="The generation's job id (GET /api/v1/jobs/{id} shows the job).")
    kind: HistoryKind
    status: Literal["completed"] = Field(description="Only completed generations are listed.")
    created_at: Timestamp
    voice_ids: list[str] = Field(
        description="The catalog voices that spoke: text-to-speech's and the voice changer's "
        "voice, every dialogue turn's (each once, in order), a song's singer; none for sound."
    )
    text: str | None = Field(
        description="What was read: text-to-speech's text; a dialogue's turns, one a line. "
        "Null for the other kinds."
    )
    prompt: str | None = Field(description="A sound's or a piece of music's prompt; else null.")
    turns: list[HistoryTurn] | None = Field(description="A dialogue's turns; else null.")
    characters: int | None = Field(
        description="The characters charged (text-to-speech and dialogue: as spoken); null "
        "for the kinds priced otherwise."
    )
    credits_used: int = Field(description="What the generation was charged.")
    duration_ms: int | None = Field(description="The audio's duration.")
    content_type: str | None = Field(description="The audio's media type (`audio/mpeg`, …).")
    audio_url: str | None = Field(
        description="Signed URL of the audio, valid 24 h from this answer; null once the audio "
        "passed the storage retention (`audio_expires_at`)."
    )
    audio_expires_at: Timestamp | None = Field(
        description="When the stored audio expires (the storage retention, 30 days by "
        "default): from then on it answers 410 `media_expired`, and the item stays listed."
    )


class HistoryItemDeleted(BaseModel):
    object: Literal["history_item"] = "history_item"
    id: str
    deleted: Literal[True] = True
