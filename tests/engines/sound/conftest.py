"""Fixtures of the sound-effect engine's tests: the real sentence model, loaded once per
session (the helpers that render and measure scenes are in `tests/support/sound.py`)."""

from __future__ import annotations

import pytest

from soundstage.engines.embedder import get_embedder
from soundstage.engines.sound.interpret import RecipeIndex, index_for


@pytest.fixture(scope="session")
def index() -> RecipeIndex:
    return index_for(get_embedder())
