"""A piece of music from a prompt, end to end: read, compose, arrange, sing, render, master.
Deterministic for a given prompt, duration, seed and voice."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Final

import numpy as np

from soundstage.engines.fluidsynth import DEFAULT_SOUNDFONT, SoundfontName
from soundstage.engines.music.arrangement import arrange
from soundstage.engines.music.composition import Composition, compose
from soundstage.engines.music.mastering import Master, master
from soundstage.engines.music.prompt import MusicBrief, read_prompt
from soundstage.engines.music.rendering import SAMPLE_RATE, get_renderer
from soundstage.engines.music.score import Score
from soundstage.engines.music.vocals import (
    RANGES,
    LyricLine,
    VocalPart,
    sing,
    write_vocal_part,
)
from soundstage.engines.tts.base import Gender, SpeechSynthesizer
from soundstage.media.audio import Audio

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


def generate(
    prompt: str,
    duration_s: float,
    seed: int,
    *,
    singer: Singer | None,
    soundfont: SoundfontName = DEFAULT_SOUNDFONT,
) -> Piece:
    """Raises InvalidField (param `prompt`) for a tempo out of bounds or too many named
    instruments, RendererUnavailable or the speech engine's errors when an engine cannot
    run."""
    timings: dict[str, float] = {}
    with _timed(timings, "compose"):
        # Musical choices, not secrets: a seeded generator makes the piece reproducible.
        rng = random.Random(seed)  # noqa: S311
        brief = read_prompt(prompt)
        composition = compose(brief, duration_s, rng)
        score, part = write_score(
            composition, brief, rng, None if singer is None else singer.gender
        )
    stems = _perform(score, part, singer, soundfont, timings)
    with _timed(timings, "master"):
        mastered = _master(stems, composition)
    vocals = mastered.stems.get("vocals")
    return Piece(
        composition,
        score,
        mastered.mix,
        None if vocals is None else Audio(np.ascontiguousarray(vocals.samples[:, :1]), SAMPLE_RATE),
        part.lines if part is not None else (),
        timings,
    )


@contextmanager
def _timed(timings: dict[str, float], stage: str) -> Iterator[None]:
    clock = time.perf_counter()
    yield
    timings[stage] = time.perf_counter() - clock


def write_score(
    composition: Composition, brief: MusicBrief, rng: random.Random, singer: Gender | None
) -> tuple[Score, VocalPart | None]:
    """Who plays what, and (for a singer of that gender) the sung line on its own track."""
    arrangement = arrange(composition, brief, rng, vocals=singer is not None)
    score = arrangement.score
    if singer is None or arrangement.vocal_channel is None:
        return score, None
    part = write_vocal_part(
        composition,
        arrangement.motifs,
        brief.themes,
        brief.valence,
        rng,
        voice_range=RANGES[singer],
        channel=arrangement.vocal_channel,
    )
    score.tracks.append(part.track)
    return score, part


def _perform(
    score: Score,
    part: VocalPart | None,
    singer: Singer | None,
    soundfont: SoundfontName,
    timings: dict[str, float],
) -> dict[str, tuple[str, Audio]]:
    """Every stem {name: (role, audio)}: the sung line, then each played track. The dict is
    their only holder: master() drops each from it once mixed."""
    stems: dict[str, tuple[str, Audio]] = {}
    frames = round(score.duration_s * SAMPLE_RATE)
    if part is not None and singer is not None:
        with _timed(timings, "vocals"):
            stems["vocals"] = (
                "vocals",
                sing(part, singer.engine, singer.voice, sample_rate=SAMPLE_RATE, frames=frames),
            )
    with _timed(timings, "render"):
        roles = {track.name: track.role for track in score.tracks}
        stems.update(
            {
                name: (roles[name], audio)
                for name, audio in get_renderer(soundfont).render(score).items()
            }
        )
    return stems


def _master(stems: dict[str, tuple[str, Audio]], composition: Composition) -> Master:
    """The genre's space, and a fade over most of the final chord's ring."""
    tail = composition.duration_s - composition.bar_start(composition.final_bar)
    return master(
        stems,
        reverb=composition.genre.reverb,
        room=composition.genre.room,
        fade_s=min(MAX_FADE_S, max(MIN_FADE_S, 0.8 * tail)),
    )
