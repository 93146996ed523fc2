"""What a recipe is: a named synthesis function with the descriptions a prompt is matched
against, and the registry every family module adds its recipes to."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np

from soundstage.engines.sound.dsp import RATE, Signal

Family = Literal[
    "animals", "nature", "human", "domestic", "urban", "production", "scifi", "interface"
]


@dataclass(frozen=True)
class Take:
    """One rendering of a recipe: its random source, its length and how the prompt steers
    it. `intensity` scales density and force (1 as is, above 1 heavy, below 1 light); `span`
    scales how long each event lasts (below 1 short, above 1 long)."""

    rng: np.random.Generator
    length: float
    intensity: float = 1.0
    span: float = 1.0

    @property
    def frames(self) -> int:
        return round(self.length * RATE)

    def silence(self) -> Signal:
        return np.zeros(self.frames)

    def uniform(self, low: float, high: float) -> float:
        return float(self.rng.uniform(low, high))


Render = Callable[[Take], Signal]


@dataclass(frozen=True)
class Recipe:
    name: str
    label: str
    family: Family
    # Phrases a prompt is compared with; the first is the canonical description.
    descriptions: tuple[str, ...]
    render: Render
    # One of the 50 classes of the ESC-50 environmental sound taxonomy.
    esc50: bool = True
    # An ambience heard all around (rain, wind): each stereo channel gets a take of its own,
    # as a spaced pair of microphones would hear it, instead of one panned source.
    wide: bool = False


RECIPES: Final[dict[str, Recipe]] = {}


def recipe(
    name: str,
    label: str,
    family: Family,
    *descriptions: str,
    esc50: bool = True,
    wide: bool = False,
) -> Callable[[Render], Render]:
    def add(render: Render) -> Render:
        if name in RECIPES:
            raise ValueError(f"recipe {name!r} is defined twice")
        RECIPES[name] = Recipe(name, label, family, descriptions, render, esc50, wide)
        return render

    return add
