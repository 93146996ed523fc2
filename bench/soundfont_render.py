"""Soundfont render time: the same scores (four genres, 60 s each, the service's own composer
and arranger) played by FluidSynth with FluidR3 GM and with MuseScore General, three ways in
one run:

- before: what the service did until 2026-11-29, a fresh synthesizer loading the soundfont for
  each render with dynamic sample loading (only the samples of the programs played are read);
- after: the service's Synth, a fresh synthesizer for each render borrowing the soundfont the
  process loaded once (engines.fluidsynth.loaded_font; the one-time load timed on its own);
- reference: the `fluidsynth` command line rendering the score's MIDI file to WAV (same
  soundfont, gain, rate; reverb and chorus off), loading the soundfont each time.

Prints seconds of rendering per minute of music, the ratios, and the process's peak memory
once each soundfont is loaded.

    .venv/bin/python bench/soundfont_render.py [--runs 2]
"""

from __future__ import annotations

import argparse
import functools
import random
import resource
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from soundstage.engines.fluidsynth import DRUM_BANK, SoundfontName, soundfont_path
from soundstage.engines.music.arrangement import arrange
from soundstage.engines.music.composition import compose
from soundstage.engines.music.prompt import read_prompt
from soundstage.engines.music.rendering import SAMPLE_RATE, FluidSynthRenderer
from soundstage.engines.music.score import Score

PROMPTS = (
    "an upbeat pop song",
    "a driving rock anthem",
    "smooth jazz",
    "an epic orchestral trailer",
)
SECONDS = 60
GAIN = 0.4  # the music renderer's
SOUNDFONTS: tuple[SoundfontName, ...] = ("fluidr3_gm", "musescore_general")


def scores() -> list[Score]:
    made = []
    for prompt in PROMPTS:
        rng = random.Random(1)  # noqa: S311 (musical choices, as the service's)
        brief = read_prompt(prompt)
        made.append(arrange(compose(brief, SECONDS, rng), brief, rng, vocals=False).score)
    return made


def before(path: Path, score: Score) -> None:
    """The renderer as it was: a synthesizer per score, sfload with dynamic sample loading."""
    import fluidsynth

    synth: Any = fluidsynth.Synth(
        gain=GAIN,
        samplerate=float(SAMPLE_RATE),
        **{
            "synth.reverb.active": 0,
            "synth.chorus.active": 0,
            "synth.polyphony": 512,
            "synth.dynamic-sample-loading": 1,
        },
    )
    font = synth.sfload(str(path))
    frames = round(score.duration_s * SAMPLE_RATE)
    chunk = 4096
    for track in score.tracks:
        synth.system_reset()
        synth.program_select(track.channel, font, DRUM_BANK if track.is_drums else 0, track.program)
        notes = sorted(
            [(round(n.start * SAMPLE_RATE), 1, n.pitch, n.velocity) for n in track.notes]
            + [(round(n.end * SAMPLE_RATE), 0, n.pitch, 0) for n in track.notes]
        )
        position = 0
        for frame, on, key, velocity in [*notes, (frames, 0, -1, 0)]:
            while position < min(frame, frames):
                step = min(chunk, min(frame, frames) - position)
                synth.get_samples(step)
                position += step
            if key < 0:
                break
            if on:
                synth.noteon(track.channel, key, velocity)
            else:
                synth.noteoff(track.channel, key)
    synth.delete()


def after(renderer: FluidSynthRenderer, score: Score) -> None:
    renderer.render(score)


def reference(path: Path, score: Score) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        midi, wav = Path(tmp) / "piece.mid", Path(tmp) / "piece.wav"
        score.write_midi(midi)
        command = ["fluidsynth", "-ni", "-q", "-g", str(GAIN), "-r", str(SAMPLE_RATE)]
        command += ["-R", "0", "-C", "0", "-F", str(wav), str(path), str(midi)]
        subprocess.run(command, check=True, capture_output=True)


def per_minute(render: Callable[[Score], None], pieces: list[Score], runs: int) -> float:
    """Median seconds of rendering per minute of music."""
    spent = []
    for _ in range(runs):
        for score in pieces:
            start = time.perf_counter()
            render(score)
            spent.append((time.perf_counter() - start) * 60 / score.duration_s)
    return statistics.median(spent)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=2, help="renders of each score per way")
    args = parser.parse_args()
    pieces = scores()
    print(f"{len(pieces)} scores of {SECONDS} s, {args.runs} renders each way, median")
    print(
        "soundfont          load (once)  before  after  CLI ref  before/after  CLI/after  peak RSS"
    )
    for name in SOUNDFONTS:
        path = soundfont_path(name)
        old = per_minute(functools.partial(before, path), pieces, args.runs)
        renderer = FluidSynthRenderer(path)
        start = time.perf_counter()
        renderer.render(pieces[0])  # the first render loads the soundfont
        load = time.perf_counter() - start
        new = per_minute(functools.partial(after, renderer), pieces, args.runs)
        ref = per_minute(functools.partial(reference, path), pieces, args.runs)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(
            f"{name:18s} {load:9.2f} s {old:6.2f}  {new:5.2f}  {ref:7.2f}  "
            f"{old / new:11.1f}x {ref / new:9.1f}x  {peak:6.0f} MB"
        )
    print("(s of rendering per minute of music; load: the first render, soundfont included)")


if __name__ == "__main__":
    main()
