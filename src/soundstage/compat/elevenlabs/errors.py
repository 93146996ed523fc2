"""Errors in ElevenLabs' shape: `{"detail": {"status", "message"}}`, `status` being the
native error code (`invalid_api_key`, `voice_not_found`, `insufficient_credits`...), with the
native statuses and headers (`Retry-After` on 429 and 503)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from soundstage.core.errors import AppError


def error_body(error: AppError, request_id: str | None) -> dict[str, Any]:
    return {"detail": {"status": error.code, "message": error.message}}


class ElevenLabsError(BaseModel):
    status: str = Field(description="The error code (`invalid_api_key`, `voice_not_found`...).")
    message: str


class ElevenLabsErrorEnvelope(BaseModel):
    """Every error under /elevenlabs, as ElevenLabs answers them."""

    detail: ElevenLabsError
