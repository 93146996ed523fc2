"""Errors in OpenAI's shape: `{"error": {"message", "type", "param", "code"}}`, with the
native statuses (which the SDK maps to its exception classes: 400 BadRequestError, 401
AuthenticationError, 403 PermissionDeniedError, 404 NotFoundError, 409 ConflictError, 422
UnprocessableEntityError, 429 RateLimitError, 5xx InternalServerError) and headers
(`Retry-After` on 429 and 503)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from soundstage.core.errors import AppError, NotFound


def error_body(error: AppError, request_id: str | None) -> dict[str, Any]:
    return {
        "error": {
            "message": error.message,
            "type": error.type,
            "param": error.param,
            "code": error.code,
        }
    }


class OpenAIError(BaseModel):
    message: str
    type: str
    param: str | None
    code: str


class OpenAIErrorEnvelope(BaseModel):
    """Every error under /v1, as OpenAI answers them."""

    error: OpenAIError


class ModelNotFound(NotFound):
    """No such model among those GET /v1/models lists (the OpenAI-compatible API), or not
    one of the operation's (a speech model for a transcription)."""

    code = "model_not_found"


class InputAudioBufferCommitEmpty(AppError):
    """A realtime transcription's `input_audio_buffer.commit` with no audio appended since
    the last commit or clear (GET /v1/realtime, an `error` event; the session goes on)."""

    status = 400
    code = "input_audio_buffer_commit_empty"
