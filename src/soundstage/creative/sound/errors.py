"""Errors of sound generation."""

from __future__ import annotations

from soundstage.core.errors import AppError


class PromptNotUnderstood(AppError):
    """Nothing in the prompt resembles a sound the service can make."""

    status = 422
    code = "prompt_not_understood"
