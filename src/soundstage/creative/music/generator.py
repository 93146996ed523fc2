"""A piece of music from a prompt, end to end: read, compose, arrange, sing, render, master.
Deterministic for a given prompt, duration, seed and voice."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from soundstage.core.audio import Audio
from soundstage.creative.music.arrangement import arrange
from soundstage.creative.music.composition import Composition, compose
from soundstage.creative.music.mastering import master
from soundstage.creative.music.prompt import read_prompt
from soundstage.creative.music.rendering import SAMPLE_RATE, get_renderer
from soundstage.creative.music.score import Score
from soundstage.creative.music.vocals import RANGES, LyricLine, sing, write_vocal_part
from soundstage.speech.engines.base import Gender, SpeechSynthesizer

MAX_FADE_S: Final = 3.0
MIN_FADE_S: Final = 1.0


@dataclass(frozen=True)
class Singer:
    engine: SpeechSynthesizer
    voice: str  # the engine's own voice id
    gender: Gender


@dataclass
class Piece:
    composition: Composition
    score: Score
    mix: Audio
    vocals: Audio | None
    lines: tuple[LyricLine, ...]
    # Seconds spent in each stage (compose, vocals, render, master): for the benchmark.
    timings: dict[str, float] = field(default_factory=dict)


def generate(prompt: str, duration_s: float, seed: int, *, singer: Singer | None) -> Piece:
    """Raises InvalidField (param `prompt`) for a tempo out of bounds, RendererUnavailable or
    the speech engine's errors when an engine cannot run."""
    timings: dict[str, float] = {}
    clock = time.perf_counter()
    # Musical choices, not secrets: a seeded generator makes the piece reproducible.
    rng = random.Random(seed)  # noqa: S311
    brief = read_prompt(prompt)
    composition = compose(brief, duration_s, rng)
    arrangement = arrange(composition, brief, rng, vocals=singer is not None)
    score = arrangement.score
    part = None
    if singer is not None:
        part = write_vocal_part(
            composition,
            arrangement.motifs,
            brief.themes,
            brief.valence,
            rng,
            voice_range=RANGES[singer.gender],
        )
        score.tracks.append(part.track)
    timings["compose"] = time.perf_counter() - clock
    frames = round(duration_s * SAMPLE_RATE)
    stems = {}
    if part is not None and singer is not None:
        clock = time.perf_counter()
        sung = sing(part, singer.engine, singer.voice, sample_rate=SAMPLE_RATE, frames=frames)
        stems["vocals"] = ("vocals", sung)
        timings["vocals"] = time.perf_counter() - clock
    clock = time.perf_counter()
    rendered = get_renderer().render(score)
    timings["render"] = time.perf_counter() - clock
    roles = {track.name: track.role for track in score.tracks}
    stems.update({name: (roles[name], audio) for name, audio in rendered.items()})
    clock = time.perf_counter()
    tail = duration_s - composition.bar_start(composition.final_bar)
    mastered = master(
        stems,
        reverb=composition.genre.reverb,
        room=composition.genre.room,
        fade_s=min(MAX_FADE_S, max(MIN_FADE_S, 0.8 * tail)),
    )
    timings["master"] = time.perf_counter() - clock
    vocals = mastered.stems.get("vocals")
    return Piece(
        composition,
        score,
        mastered.mix,
        None if vocals is None else Audio(np.ascontiguousarray(vocals.samples[:, :1]), SAMPLE_RATE),
        part.lines if part is not None else (),
        timings,
    )
