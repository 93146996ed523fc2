"""Response bodies of ElevenLabs' history, as the official SDK (2.78) reads them
(`GetSpeechHistoryResponse`, `SpeechHistoryItemResponse`, `DeleteHistoryItemResponse`)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

HistorySource = Literal["TTS", "STS", "Flows"]
SortDirection = Literal["asc", "desc"]


class ElevenLabsDialogueInput(BaseModel):
    text: str
    voice_id: str
    voice_name: str


class ElevenLabsHistoryItem(BaseModel):
    history_item_id: str = Field(description="The generation's job id (the native history's).")
    request_id: str | None = Field(
        description="The job id too: what the speech answer's `Soundstage-Job-Id` header said."
    )
    voice_id: str | None = Field(description="The catalog voice that spoke (null for dialogue).")
    model_id: str | None = Field(description="`soundstage_tts` or `soundstage_sts`.")
    voice_name: str | None
    voice_category: Literal["premade", "cloned", "generated", "professional"] | None = Field(
        description="`premade`: every catalog voice."
    )
    text: str | None = Field(description="The text read (null for dialogue and speech to speech).")
    date_unix: int
    character_count_change_from: int = Field(description="0.")
    character_count_change_to: int = Field(
        description="The credits the generation was charged (text to speech: its characters "
        "as spoken): the change is what it used."
    )
    content_type: str
    state: Literal["created", "deleted", "processing"] = Field(
        description="`created`: only completed generations are listed."
    )
    settings: dict[str, Any] | None = Field(description="Null.")
    feedback: dict[str, Any] | None = Field(default=None, description="Null.")
    share_link_id: str | None = Field(default=None, description="Null.")
    source: Literal["TTS", "STS"] | None
    alignments: dict[str, Any] | None = Field(default=None, description="Null.")
    dialogue: list[ElevenLabsDialogueInput] | None = Field(
        default=None, description="A dialogue's turns (voice and text); null otherwise."
    )
    output_format: str | None = Field(default=None, description="Null.")


class ElevenLabsHistoryResponse(BaseModel):
    history: list[ElevenLabsHistoryItem]
    last_history_item_id: str | None = Field(
        description="The last item's id: the next page's `start_after_history_item_id`."
    )
    has_more: bool
    scanned_until: int | None = Field(description="The last item's `date_unix`.")


class ElevenLabsDeleteHistoryItemResponse(BaseModel):
    status: Literal["ok"] = "ok"
