"""Errors of sound generation."""

from __future__ import annotations

from soundstage.core.errors import AppError, NotFound


class PromptNotUnderstood(AppError):
    """Nothing in the prompt resembles a sound the service can make."""

    status = 422
    code = "prompt_not_understood"


class RecipeNotFound(NotFound):
    """No such sound-effect recipe (a list cursor)."""

    code = "recipe_not_found"
