"""Errors of sound generation."""

from __future__ import annotations

from soundstage.core.errors import NotFound


class RecipeNotFound(NotFound):
    """No such sound-effect recipe (a list cursor)."""

    code = "recipe_not_found"
