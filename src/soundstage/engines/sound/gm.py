"""General MIDI sound-effect programs (telephone ring, gunshot) played by FluidSynth from the
GM soundfont (engines.fluidsynth): recorded samples, where they are more convincing than
synthesis. Reverb and chorus are off (the scene adds the space)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from soundstage.engines.fluidsynth import Played, Synth
from soundstage.engines.sound.dsp import RATE, Signal

_GAIN: Final = 0.6


@dataclass(frozen=True)
class Note:
    at: float  # seconds from the start
    key: int
    velocity: int
    hold: float  # seconds until the note is released


def play(program: int, notes: Sequence[Note], seconds: float) -> Signal:
    """`seconds` of General MIDI `program` playing `notes` on one channel, mono. Raises
    RendererUnavailable (503) when FluidSynth or the soundfont is missing.

    A synthesizer is made for each call over the process's loaded soundfont (FluidR3), so
    the same notes give the same samples every time."""
    with Synth(RATE, gain=_GAIN) as synth:
        stereo = synth.play(
            0,
            0,
            program,
            (Played(n.at, n.at + n.hold, n.key, n.velocity) for n in notes),
            round(seconds * RATE),
        )
    return np.asarray(stereo.mean(axis=1), dtype=np.float64)
