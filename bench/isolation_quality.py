"""Voice isolation quality: POST /api/v1/speech/isolator (served by `soundstage serve` with its
embedded worker) against the bare DeepFilterNet 3 call (tests/support/isolation.py: the C API
on the whole signal, no level change, no blocks) on the same WAV files: LibriVox speech over
FluidSynth music at 0 and +5 dB SNR (the three clips of tests/fixtures/librivox, a music seed
each), and each of those mixtures again at -50 dBFS. Prints, per clip and on average, SI-SDR
of the vocals and of the background against the true sources, and the endpoint's
real-time factor (request to answer, over the audio's duration).

    .venv/bin/python bench/isolation_quality.py [--snr 0 5] [--quiet-db -50]
"""

from __future__ import annotations

import argparse
import io
import sys
import time
from pathlib import Path

import numpy as np
import soundfile
from _service import served

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.support.audio_fixtures import librivox_clips
from tests.support.isolation import bare_deepfilternet
from tests.support.mixtures import Mixture, mix, music, rms, si_sdr

from soundstage.media.audio import Audio

RATE = 16_000


def mixtures(snrs: list[float], quiet_db: float | None) -> list[tuple[str, Mixture]]:
    made: list[tuple[str, Mixture]] = []
    for index, clip in enumerate(librivox_clips()):
        voice = clip.audio().samples[:, 0]
        band = music(voice.shape[0] / RATE + 0.1, RATE, seed=index).samples.mean(axis=1)
        for snr in snrs:
            made.append((f"clip {index} {snr:+g} dB", mix(voice, band, RATE, snr_db=snr)))
    if quiet_db is not None:
        for name, loud in list(made):
            gain = np.float32(10 ** (quiet_db / 20) / rms(loud.mixture.samples))
            quiet = Audio(loud.mixture.samples * gain, RATE)
            made.append(
                (
                    f"{name} @{quiet_db:g}",
                    Mixture(quiet, loud.speech * gain, loud.background * gain),
                )
            )
    return made


def wav(audio: Audio) -> bytes:
    buffer = io.BytesIO()
    soundfile.write(buffer, audio.samples, audio.sample_rate, format="WAV")
    return buffer.getvalue()


def read(data: bytes) -> np.ndarray:
    return np.asarray(soundfile.read(io.BytesIO(data), dtype="float32")[0])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--snr", type=float, nargs="+", default=[0.0, 5.0])
    parser.add_argument("--quiet-db", type=float, default=-50.0)
    args = parser.parse_args()
    cases = mixtures(args.snr, args.quiet_db)
    rows = []
    seconds = busy = 0.0
    with served(credits=100_000) as (client, _):
        for name, made in cases:
            data = wav(made.mixture)
            upload = client.post("/api/v1/uploads", files={"file": ("mix.wav", data, "audio/wav")})
            upload.raise_for_status()
            body = {"audio_url": upload.json()["url"], "return_background": True}
            start = time.perf_counter()
            answer = client.post("/api/v1/speech/isolator", json=body)
            answer.raise_for_status()
            busy += time.perf_counter() - start
            seconds += made.mixture.frames / RATE
            stems = answer.json()
            vocals = read(client.get(stems["vocals_url"]).content)
            rest = read(client.get(stems["background_url"]).content)
            mixture = read(data)
            bare = bare_deepfilternet(mixture, RATE)
            rows.append(
                (
                    name,
                    si_sdr(mixture, made.speech),
                    si_sdr(bare, made.speech),
                    si_sdr(vocals, made.speech),
                    si_sdr(mixture - bare, made.background),
                    si_sdr(rest, made.background),
                )
            )
    print(
        f"{'SI-SDR (dB)':25s} | vocals: mix   bare  service   diff"
        " | background: bare  service   diff"
    )
    for name, x, bv, sv, bb, sb in rows:
        print(
            f"{name:25s} | {x:12.2f} {bv:6.2f} {sv:8.2f} {sv - bv:+6.2f}"
            f" | {bb:16.2f} {sb:8.2f} {sb - bb:+6.2f}"
        )
    for label, chosen in (
        ("mean, own level", [r for r in rows if "@" not in r[0]]),
        ("mean, all", rows),
    ):
        if not chosen:
            continue
        mean = np.mean(np.array([r[1:] for r in chosen]), axis=0)
        x, bv, sv, bb, sb = mean
        print(
            f"{label:25s} | {x:12.2f} {bv:6.2f} {sv:8.2f} {sv - bv:+6.2f}"
            f" | {bb:16.2f} {sb:8.2f} {sb - bb:+6.2f}"
        )
    print(f"endpoint RTF (HTTP, job, decode, separate, encode, store): {busy / seconds:.3f}")


if __name__ == "__main__":
    main()
