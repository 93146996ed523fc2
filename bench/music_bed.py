"""A music bed that keeps its music: DeepFilterNet 3 (the isolator's engine, a speech enhancer)
against Spleeter 2-stems (engines/separators/spleeter.py) and their combinations, on the
project's speech-over-music mixtures: the three LibriVox clips of tests/fixtures over FluidSynth
music (a seed each), at 0 and +5 dB speech-to-music ratio. Per attempt, the average SI-SDR of
the vocals and of the background against the true sources, the vocals' DistillMOS, and the
real-time factor; the reference is the bare DFN3 call (tests/support/isolation.py), in the same
run:

- dfn3: vocals DFN3, background the residual (what the isolator serves);
- spleeter: Spleeter's vocals and accompaniment;
- dfn3 + spleeter bed: DFN3's vocals, Spleeter's accompaniment as the background;
- dfn3 over spleeter: DFN3 run on Spleeter's vocals, background the residual;
- dfn3 over spleeter + bed: the same vocals, Spleeter's accompaniment as the background.

    .venv/bin/python bench/music_bed.py [--snr 0 5] [--per-clip]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.audio_fixtures import librivox_clips
from tests.support.isolation import bare_deepfilternet
from tests.support.mixtures import Mixture, mix, music, si_sdr

from soundstage.engines.quality.registry import get_predictor
from soundstage.engines.separators import spleeter
from soundstage.media.audio import Audio

RATE = 16_000
Signal = np.ndarray
Attempt = Callable[[Audio], tuple[Signal, Signal]]


def dfn3(mixture: Audio) -> tuple[Signal, Signal]:
    vocals = bare_deepfilternet(mixture.samples[:, 0], RATE)
    return vocals, mixture.samples[:, 0] - vocals


def spleeter_only(mixture: Audio) -> tuple[Signal, Signal]:
    stems = spleeter.separate(mixture, threads=2)
    return stems.vocals.samples[:, 0], stems.accompaniment.samples[:, 0]


def dfn3_with_bed(mixture: Audio) -> tuple[Signal, Signal]:
    stems = spleeter.separate(mixture, threads=2)
    return bare_deepfilternet(mixture.samples[:, 0], RATE), stems.accompaniment.samples[:, 0]


def dfn3_over_spleeter(mixture: Audio) -> tuple[Signal, Signal]:
    stems = spleeter.separate(mixture, threads=2)
    vocals = bare_deepfilternet(stems.vocals.samples[:, 0], RATE)
    return vocals, mixture.samples[:, 0] - vocals


def dfn3_over_spleeter_with_bed(mixture: Audio) -> tuple[Signal, Signal]:
    stems = spleeter.separate(mixture, threads=2)
    vocals = bare_deepfilternet(stems.vocals.samples[:, 0], RATE)
    return vocals, stems.accompaniment.samples[:, 0]


ATTEMPTS: dict[str, Attempt] = {
    "dfn3 (reference)": dfn3,
    "spleeter": spleeter_only,
    "dfn3 + spleeter bed": dfn3_with_bed,
    "dfn3 over spleeter": dfn3_over_spleeter,
    "dfn3 over spleeter + bed": dfn3_over_spleeter_with_bed,
}


def mixtures(snrs: list[float]) -> list[tuple[str, Mixture]]:
    made = []
    for index, clip in enumerate(librivox_clips()):
        voice = clip.audio().samples[:, 0]
        band = music(voice.shape[0] / RATE + 0.1, RATE, seed=index).samples.mean(axis=1)
        for snr in snrs:
            made.append((f"clip {index} {snr:+g} dB", mix(voice, band, RATE, snr_db=snr)))
    return made


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--snr", type=float, nargs="+", default=[0.0, 5.0])
    parser.add_argument("--per-clip", action="store_true", help="each mixture's figures too")
    args = parser.parse_args()
    made = mixtures(args.snr)
    distill = get_predictor("distillmos")
    spleeter.separate(made[0][1].mixture)  # load the model before timing
    seconds = sum(m.mixture.frames for _, m in made) / RATE
    print(f"{len(made)} mixtures, {seconds:.0f} s in all, load average {os.getloadavg()[0]:.2f}")
    print(f"{'attempt':<26} {'vocals SI-SDR':>13} {'bed SI-SDR':>10} {'vocals MOS':>10} {'RTF':>6}")
    reference: tuple[float, float] | None = None
    for name, attempt in ATTEMPTS.items():
        vocal_scores, bed_scores, moses, spent = [], [], [], 0.0
        for _, mixture in made:
            start = time.perf_counter()
            vocals, bed = attempt(mixture.mixture)
            spent += time.perf_counter() - start
            vocal_scores.append(si_sdr(vocals, mixture.speech))
            bed_scores.append(si_sdr(bed, mixture.background))
            moses.append(distill.predict(Audio(vocals.reshape(-1, 1).astype(np.float32), RATE)))
        if args.per_clip:
            for (clip, _), v, b in zip(made, vocal_scores, bed_scores, strict=True):
                print(f"  {clip:<16} vocals {v:6.2f} dB  bed {b:6.2f} dB")
        vocal, bed_score = statistics.mean(vocal_scores), statistics.mean(bed_scores)
        reference = reference or (vocal, bed_score)
        print(
            f"{name:<26} {vocal:>10.2f} dB {bed_score:>7.2f} dB {statistics.mean(moses):>10.2f} "
            f"{spent / seconds:>6.3f}"
        )
    assert reference is not None
    print("(SI-SDR averaged over the mixtures; MOS: DistillMOS of the vocals)")


if __name__ == "__main__":
    main()
