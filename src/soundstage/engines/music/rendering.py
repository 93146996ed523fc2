"""Playing a score: the ScoreRenderer protocol and its FluidSynth implementation with the
General MIDI soundfont (engines.fluidsynth), one stereo stem per track."""

from __future__ import annotations

from pathlib import Path
from typing import Final, Protocol

from soundstage.engines.fluidsynth import (
    DEFAULT_SOUNDFONT,
    DRUM_BANK,
    Played,
    RendererUnavailable,
    SoundfontName,
    Synth,
    soundfont_path,
)
from soundstage.engines.music.score import Score
from soundstage.engines.registry import load_once
from soundstage.media.audio import Audio

SAMPLE_RATE: Final = 44_100
_GAIN: Final = 0.4


class ScoreRenderer(Protocol):
    name: str

    def render(self, score: Score) -> dict[str, Audio]:
        """Every rendered track of the score as a stereo stem at SAMPLE_RATE, each exactly
        the score's duration long, keyed by track name."""
        ...


class FluidSynthRenderer:
    """FluidSynth in process. Not one synthesizer for the process: a fresh one for each
    score over the process's loaded soundfont (see fluidsynth.Synth), so that a seed gives
    the same bytes.
    Its own reverb and chorus are off: the mix adds reverb once, over the whole band."""

    name = "fluidsynth"

    def __init__(self, soundfont: Path) -> None:
        self._soundfont = soundfont

    def render(self, score: Score) -> dict[str, Audio]:
        frames = round(score.duration_s * SAMPLE_RATE)
        with Synth(SAMPLE_RATE, gain=_GAIN, soundfont=self._soundfont) as synth:
            return {
                track.name: Audio(
                    synth.play(
                        track.channel,
                        DRUM_BANK if track.is_drums else 0,
                        track.program,
                        (Played(n.start, n.end, n.pitch, n.velocity) for n in track.notes),
                        frames,
                    ),
                    SAMPLE_RATE,
                )
                for track in score.tracks
                if track.rendered
            }


def fluidsynth_renderer(soundfont: SoundfontName = DEFAULT_SOUNDFONT) -> ScoreRenderer:
    """FluidSynth with the named soundfont (by default the first General MIDI soundfont
    found); it makes a synthesizer for each render."""
    return FluidSynthRenderer(soundfont_path(soundfont))


def get_renderer(soundfont: SoundfontName = DEFAULT_SOUNDFONT) -> ScoreRenderer:
    """The process's one renderer of the soundfont, FluidSynth; raises RendererUnavailable
    (503) if it cannot run here (a failure is not remembered: the next call tries again)."""
    return load_once(
        "score renderer",
        f"fluidsynth {soundfont}",
        lambda: fluidsynth_renderer(soundfont),
        unavailable=RendererUnavailable,
    )
