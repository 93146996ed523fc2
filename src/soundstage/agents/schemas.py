"""Request and response bodies of voice agents."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from soundstage.core.schemas import RequestModel
from soundstage.core.timeutil import Timestamp
from soundstage.workforce.vocabulary import LanguageTag

_LANGUAGE = (
    "BCP-47 tag the agent speaks; default: the voice's. It must be the voice's language or a "
    "variant of its base (`en-GB` for an `en-US` voice), else 422 `language_mismatch`."
)


class AgentCreate(RequestModel):
    name: str = Field(min_length=1, max_length=100, description="What the caller calls it.")
    voice_id: str = Field(
        min_length=1, max_length=40, description="A catalog voice (GET /api/v1/voices)."
    )
    language: LanguageTag | None = Field(default=None, description=_LANGUAGE)
    greeting: str = Field(default="", max_length=1000, description="What it says first.")
    instructions: str = Field(
        default="", max_length=10_000, description="How it behaves (a system prompt)."
    )


class AgentUpdate(RequestModel):
    """Only the fields given change; a new voice re-checks the language."""

    name: str | None = Field(default=None, min_length=1, max_length=100)
    voice_id: str | None = Field(default=None, min_length=1, max_length=40)
    language: LanguageTag | None = Field(default=None, description=_LANGUAGE)
    greeting: str | None = Field(default=None, max_length=1000)
    instructions: str | None = Field(default=None, max_length=10_000)

    @field_validator("name", "voice_id", "language", "greeting", "instructions")
    @classmethod
    def _not_null(cls, value: str | None) -> str:
        # Omitted means "unchanged" (the default, never validated); an explicit null would
        # clear a field no agent can be without.
        if value is None:
            raise ValueError("must not be null; omit the field to leave it unchanged")
        return value


class AgentOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    object: Literal["agent"] = "agent"
    id: str
    name: str
    voice_id: str
    language: str
    greeting: str
    instructions: str
    created_at: Timestamp
    updated_at: Timestamp


class AgentDeleted(BaseModel):
    object: Literal["agent"] = "agent"
    id: str
    deleted: Literal[True] = True
