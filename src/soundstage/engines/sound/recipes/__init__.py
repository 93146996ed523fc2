"""The recipe catalog: every family module registers its recipes on import."""

from __future__ import annotations

from soundstage.engines.sound.recipes import (  # noqa: F401  (imported to register)
    animals,
    domestic,
    human,
    interface,
    nature,
    production,
    scifi,
    urban,
)
from soundstage.engines.sound.recipes.base import RECIPES, Recipe, Take

__all__ = ["RECIPES", "Recipe", "Take"]
