"""General MIDI sound-effect programs (telephone ring, gunshot) played by FluidSynth from the
GM soundfont (Debian `fluid-soundfont-gm`): recorded samples, where they are more convincing
than synthesis. Reverb and chorus are off (the scene adds the space)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np

from soundstage.creative.sound.dsp import RATE, Signal

SOUNDFONT: Final = Path("/usr/share/sounds/sf2/FluidR3_GM.sf2")


@dataclass(frozen=True)
class Note:
    at: float  # seconds from the start
    key: int
    velocity: int
    hold: float  # seconds until the note is released


def play(program: int, notes: Sequence[Note], seconds: float) -> Signal:
    """`seconds` of General MIDI `program` playing `notes` on one channel, mono.

    A synthesizer is made for each call (0.1 s with the soundfont in the page cache): one
    kept for the process carries state from call to call (its dither position, modulators),
    so the same notes would not give the same samples twice."""
    import fluidsynth

    frames = round(seconds * RATE)
    events = sorted(
        [(round(n.at * RATE), 1, n.key, n.velocity) for n in notes]
        + [(round((n.at + n.hold) * RATE), 0, n.key, 0) for n in notes]
    )
    settings = {"synth.reverb.active": 0, "synth.chorus.active": 0}
    synth = fluidsynth.Synth(gain=0.6, samplerate=float(RATE), **settings)
    try:
        font = synth.sfload(str(SOUNDFONT))
        if font < 0:
            raise RuntimeError(f"FluidSynth could not load {SOUNDFONT}")
        synth.program_select(0, font, 0, program)
        blocks: list[Signal] = []
        done = 0
        for at, on, key, velocity in [*events, (frames, 0, -1, 0)]:
            at = min(at, frames)
            if at > done:
                stereo = np.asarray(synth.get_samples(at - done), dtype=np.float64)
                blocks.append(stereo.reshape(-1, 2).mean(axis=1) / 32768.0)
                done = at
            if key < 0:
                break
            if on:
                synth.noteon(0, key, velocity)
            else:
                synth.noteoff(0, key)
    finally:
        synth.delete()
    return np.concatenate(blocks) if blocks else np.zeros(frames)
