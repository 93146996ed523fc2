"""Source-filter voices: a harmonic (or pulsed) source with a pitch contour, breath noise and
a formant filter. Animal calls and human non-speech sounds are made of these."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from soundstage.engines.sound import dsp
from soundstage.engines.sound.dsp import Signal

Band = tuple[float, float, float]


@dataclass(frozen=True)
class Call:
    """One vocalization: `f0` is a pitch contour (Hz, points spread over the call), `bands`
    the formants (centre Hz, bandwidth Hz, gain)."""

    duration: float
    f0: Sequence[float]
    bands: Sequence[Band]
    breath: float = 0.15
    rolloff: float = 12.0
    rough: float = 0.0
    jitter: float = 0.01
    attack: float = 0.02
    release: float = 0.05
    vibrato_hz: float = 0.0
    vibrato: float = 0.0
    tremolo_hz: float = 0.0
    tremolo: float = 0.0


def vocalize(rng: np.random.Generator, call: Call, scale: float = 1.0) -> Signal:
    """Render a call; `scale` multiplies pitch and formants (a smaller animal: above 1)."""
    frames = dsp.seconds(call.duration)
    t = dsp.timeline(frames)
    pitch = dsp.glide(frames, [f * scale for f in call.f0])
    pitch = pitch * (1 + call.jitter * dsp.smooth_random(rng, frames, 40.0))
    if call.vibrato:
        pitch = pitch * (1 + call.vibrato * np.sin(2 * np.pi * call.vibrato_hz * t))
    count = int(min(80, 9000 / max(float(pitch.min()), 50.0)))
    source = dsp.unit(dsp.harmonics(pitch, frames, call.rolloff, count))
    if call.rough:
        # A subharmonic flutter: the growl of barks and caws.
        source = source * (1 + call.rough * dsp.sine(pitch / 2, frames))
    source = source + call.breath * dsp.white(rng, frames)
    bands = [(f * scale, w * scale, g) for f, w, g in call.bands]
    out = dsp.formants(source, bands)
    if call.tremolo:
        out = out * (1 + call.tremolo * np.sin(2 * np.pi * call.tremolo_hz * t))
    return dsp.normalized(out * dsp.adsr(frames, call.attack, call.release))
