"""Playing a score: the ScoreRenderer protocol and its FluidSynth implementation with the General
MIDI soundfont, one stereo stem per track. The synthesizer and its soundfont load once per
process (see get_renderer)."""

from __future__ import annotations

import ctypes
from functools import lru_cache
from pathlib import Path
from typing import Any, Final, Protocol

import numpy as np

from soundstage.core.audio import Audio
from soundstage.creative.music.score import Score, Track
from soundstage.speech.engines.base import EngineUnavailable

SAMPLE_RATE: Final = 44_100
SOUNDFONTS: Final = (
    Path("/usr/share/sounds/sf2/FluidR3_GM.sf2"),
    Path("/usr/share/sounds/sf2/default-GM.sf2"),
)
_DRUM_BANK: Final = 128
_BLOCK_FRAMES: Final = 64  # FluidSynth's internal block


class RendererUnavailable(EngineUnavailable):
    """The synthesizer or its soundfont is missing: not the user's fault (503)."""


class ScoreRenderer(Protocol):
    name: str

    def render(self, score: Score) -> dict[str, Audio]:
        """Every rendered track of the score as a stereo stem at SAMPLE_RATE, each exactly
        the score's duration long, keyed by track name."""
        ...


class FluidSynthRenderer:
    """FluidSynth in process. Its own reverb and chorus are off: the mix adds reverb once,
    over the whole band. Each render gets a fresh synthesizer: one that has played before
    keeps state (voice and block timing) that would make the same score sound a little
    different from one render to the next, and a seed must give the same bytes."""

    name = "fluidsynth"

    def __init__(self, soundfont: Path) -> None:
        import fluidsynth

        self._fluidsynth: Any = fluidsynth
        self._soundfont = soundfont
        self._write = fluidsynth._fl.fluid_synth_write_float
        self._write.argtypes = [
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_void_p,
            ctypes.c_int,
            ctypes.c_int,
        ]
        self._write.restype = ctypes.c_int

    def render(self, score: Score) -> dict[str, Audio]:
        frames = round(score.duration_s * SAMPLE_RATE)
        synth = self._fluidsynth.Synth(
            gain=0.4,
            samplerate=float(SAMPLE_RATE),
            **{"synth.reverb.active": 0, "synth.chorus.active": 0, "synth.polyphony": 512},
        )
        try:
            font = synth.sfload(str(self._soundfont))
            if font < 0:
                raise RendererUnavailable(f"FluidSynth could not load {self._soundfont}.")
            return {
                track.name: self._render_track(synth, font, track, frames)
                for track in score.tracks
                if track.rendered
            }
        finally:
            synth.delete()

    def _render_track(self, synth: Any, font: int, track: Track, frames: int) -> Audio:
        synth.system_reset()
        bank = _DRUM_BANK if track.is_drums else 0
        synth.program_select(track.channel, font, bank, track.program)
        events: list[tuple[int, int, int, int]] = []  # frame, 0 off / 1 on, key, velocity
        for note in track.notes:
            start = round(note.start * SAMPLE_RATE)
            end = max(start + 1, round(note.end * SAMPLE_RATE))
            events.append((start, 1, note.pitch, note.velocity))
            events.append((end, 0, note.pitch, 0))
        events.sort()
        left = np.zeros(frames, dtype=np.float32)
        right = np.zeros(frames, dtype=np.float32)
        position = 0
        for frame, kind, key, velocity in events:
            frame = min(frame, frames)
            self._fill(synth, left, right, position, frame)
            position = max(position, frame)
            if kind:
                synth.noteon(track.channel, key, velocity)
            else:
                synth.noteoff(track.channel, key)
        self._fill(synth, left, right, position, frames)
        synth.all_sounds_off(track.channel)
        # FluidSynth renders in blocks of 64 frames and keeps the rest of a block for the next
        # call: finish the block, so the next track starts on a block boundary.
        leftover = (-frames) % _BLOCK_FRAMES
        if leftover:
            scratch = np.zeros(leftover, dtype=np.float32)
            self._fill(synth, scratch, scratch.copy(), 0, leftover)
        return Audio(np.ascontiguousarray(np.stack([left, right], axis=1)), SAMPLE_RATE)

    def _fill(self, synth: Any, left: np.ndarray, right: np.ndarray, start: int, end: int) -> None:
        if end <= start:
            return
        status = self._write(
            synth.synth,
            end - start,
            left.ctypes.data + 4 * start,
            0,
            1,
            right.ctypes.data + 4 * start,
            0,
            1,
        )
        if status != 0:
            raise RendererUnavailable("FluidSynth failed while rendering.")


@lru_cache(maxsize=1)
def get_renderer() -> ScoreRenderer:
    """The process's one renderer (FluidSynth with the first General MIDI soundfont found)."""
    soundfont = next((path for path in SOUNDFONTS if path.is_file()), None)
    if soundfont is None:
        raise RendererUnavailable("No General MIDI soundfont is installed (fluid-soundfont-gm).")
    try:
        return FluidSynthRenderer(soundfont)
    except (ImportError, OSError) as exc:
        raise RendererUnavailable(f"FluidSynth is not available: {exc}.") from exc
