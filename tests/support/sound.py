"""Sound effects rendered one recipe at a time, and measures of the result."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from soundstage.engines.sound import scene
from soundstage.engines.sound.interpret import Element
from soundstage.engines.sound.recipes import RECIPES
from soundstage.engines.sound.steering import Steering

RATE = 44_100


def render(name: str, *modifiers: str, seconds: int = 5, seed: int = 1) -> npt.NDArray[np.float64]:
    """One recipe alone, steered by `modifiers`, as a mono mixdown."""
    element = Element(name, RECIPES[name], 1.0, Steering(tuple(modifiers)))
    audio = scene.render([element], seconds, seed)
    return np.asarray(audio.samples.mean(axis=1), dtype=np.float64)


def level_db(x: npt.ArrayLike) -> float:
    return float(20 * np.log10(np.sqrt(np.mean(np.square(np.asarray(x)))) + 1e-12))


def band_db(x: npt.NDArray[np.float64], low: float, high: float) -> float:
    """Energy between low and high Hz, in dB (of the power spectrum's sum)."""
    power = np.abs(np.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(x.shape[0], 1 / RATE)
    return float(10 * np.log10(np.sum(power[(freqs >= low) & (freqs < high)]) + 1e-12))


def centroid_hz(x: npt.NDArray[np.float64]) -> float:
    power = np.abs(np.fft.rfft(x)) ** 2
    freqs = np.fft.rfftfreq(x.shape[0], 1 / RATE)
    return float(np.sum(freqs * power) / np.sum(power))
