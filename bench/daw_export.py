"""DAW export time: POST /api/v1/creative/daw (served by `soundstage serve` with its embedded
worker) for 8 tracks of 3 minutes at 48 kHz / 24 bit, as AAF and as OMF (media embedded),
against merely decoding the same 8 inputs and writing them as 24-bit WAV with libsndfile
(soundfile) in the same run: the floor any export pays.

The service's time runs from the POST to the job's completion as seen by polling (fetch from
its own storage, probe, decode, render the stems, write the session file, ZIP, store).

    .venv/bin/python bench/daw_export.py [--runs 1] [--tracks 8] [--minutes 3]
"""

from __future__ import annotations

import argparse
import io
import os
import statistics
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np
import soundfile
from _service import served

RATE = 48_000


def track(seconds: int, seed: int) -> np.ndarray:
    """Stereo material that FLAC compresses like music: tones, a slow sweep, quiet noise."""
    t = np.arange(seconds * RATE) / RATE
    rng = np.random.default_rng(seed)
    base = 110 * (1 + seed % 5)
    left = 0.2 * np.sin(2 * np.pi * base * t) + 0.1 * np.sin(
        2 * np.pi * (base * 1.5 + 40 * t / seconds) * t
    )
    right = 0.2 * np.sin(2 * np.pi * base * 1.01 * t) + 0.1 * np.sin(2 * np.pi * base * 2 * t)
    signal = np.stack([left, right], axis=1) + 0.002 * rng.standard_normal((t.shape[0], 2))
    return signal.astype(np.float32)


def flac_bytes(samples: np.ndarray) -> bytes:
    out = io.BytesIO()
    soundfile.write(out, samples, RATE, format="FLAC", subtype="PCM_24")
    return out.getvalue()


def decode_and_write(inputs: list[Path], folder: Path) -> float:
    start = time.perf_counter()
    for index, source in enumerate(inputs):
        samples, rate = soundfile.read(source, dtype="float32", always_2d=True)
        soundfile.write(folder / f"{index:02d}.wav", samples, rate, subtype="PCM_24")
    return time.perf_counter() - start


def export_once(client: httpx.Client, urls: list[str], fmt: str) -> float:
    body = {
        "tracks": [{"name": f"Track {i + 1}", "audio_url": url} for i, url in enumerate(urls)],
        "format": fmt,
        "sample_rate": RATE,
        "bit_depth": 24,
    }
    start = time.perf_counter()
    response = client.post("/api/v1/creative/daw", json=body)
    response.raise_for_status()
    job_id = response.json()["job_id"]
    while True:
        job = client.get(f"/api/v1/jobs/{job_id}").raise_for_status().json()
        if job["status"] in ("completed", "failed", "cancelled"):
            break
        time.sleep(0.05)
    elapsed = time.perf_counter() - start
    if job["status"] != "completed":
        raise RuntimeError(f"export {fmt} ended {job['status']}: {job['error']}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--tracks", type=int, default=8)
    parser.add_argument("--minutes", type=int, default=3)
    args = parser.parse_args()
    seconds = args.minutes * 60
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        inputs = []
        for index in range(args.tracks):
            path = folder / f"input-{index}.flac"
            path.write_bytes(flac_bytes(track(seconds, index)))
            inputs.append(path)
        (folder / "reference").mkdir()
        reference = [decode_and_write(inputs, folder / "reference") for _ in range(args.runs)]
        timings: dict[str, list[float]] = {"aaf": [], "omf": []}
        # Polling the job every 50 ms would pass the sandbox's 100 requests a minute.
        os.environ["SOUNDSTAGE_RATE_LIMITS__SANDBOX"] = "100000/minute"
        with served(credits=10_000_000) as (client, _):
            urls = []
            for path in inputs:
                with path.open("rb") as upload:
                    answer = client.post(
                        "/api/v1/uploads", files={"file": (path.name, upload, "audio/flac")}
                    )
                answer.raise_for_status()
                urls.append(answer.json()["url"])
            for _ in range(args.runs):
                for fmt in timings:
                    timings[fmt].append(export_once(client, urls, fmt))
    ref = statistics.median(reference)
    audio_seconds = args.tracks * seconds
    print(
        f"{args.tracks} tracks x {args.minutes} min, 48 kHz stereo 24-bit FLAC in, "
        f"48 kHz / 24-bit out, media embedded, {args.runs} run(s), median"
    )
    print(f"decode + write 24-bit WAV stems (soundfile, in process): {ref:7.2f} s")
    for fmt, values in timings.items():
        ours = statistics.median(values)
        print(
            f"export {fmt.upper()} (HTTP, job, stems, session, ZIP, store):  {ours:7.2f} s  "
            f"ratio {ours / ref:5.2f}  ({audio_seconds / ours:5.1f}x real time of audio)"
        )


if __name__ == "__main__":
    main()
