"""Peak memory of a dub and of the voice changer on real speech: how far the worker process's
resident set grows (VmHWM after the job, less VmRSS before it; see bench/job_memory.py, whose
helpers this uses; needs root) while it runs

- `dub`: a dub (en -> es) of `--seconds` of LibriVox speech (looped) in the first channel of
  a FLAC at `--rate` x `--channels`, the other channels silent;
- `changer`: the voice changer on `--seconds` (default 600) of LibriVox speech, 48 kHz
  stereo.

`soundstage serve` with its embedded worker (one process), SQLite in a fresh data directory;
the job kind is warmed with a short job first. Prints MiB (and MiB per minute of input).

    PYTHONPATH=/work/main/src .venv/bin/python bench/speech_memory.py dub --seconds 60
    PYTHONPATH=src .venv/bin/python bench/speech_memory.py changer
"""

from __future__ import annotations

import argparse
import io
import time
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import soundfile
import soxr
from _service import served
from job_memory import describe, growth_mib, upload, worker_pid

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"


def librivox(seconds: float, rate: int) -> np.ndarray:
    """The LibriVox clips one after the other (0.8 s apart), looped to `seconds` at rate."""
    pieces = []
    for path in sorted((FIXTURES / "librivox").glob("*.flac")):
        clip, clip_rate = soundfile.read(path, dtype="float32")
        pieces += [clip, np.zeros(round(0.8 * clip_rate), dtype=np.float32)]
    joined = soxr.resample(np.concatenate(pieces), clip_rate, rate).astype(np.float32)
    frames = round(seconds * rate)
    return np.resize(joined, frames)


def flac(voice: np.ndarray, rate: int, channels: int) -> bytes:
    buffer = io.BytesIO()
    with soundfile.SoundFile(
        buffer, "w", samplerate=rate, channels=channels, format="FLAC", subtype="PCM_16"
    ) as out:
        for start in range(0, voice.size, 10 * rate):
            part = voice[start : start + 10 * rate]
            block = np.zeros((part.size, channels), dtype=np.float32)
            block[:, 0] = part * 0.5
            if channels > 1:
                block[:, 1] = part * 0.3
            out.write(block)
    return buffer.getvalue()


def wait(client: httpx.Client, job_id: str) -> httpx.Response:
    while True:
        response = client.get(f"/api/v1/jobs/{job_id}")
        if response.status_code == 200 and response.json()["status"] in (
            "completed",
            "failed",
            "cancelled",
        ):
            return response
        time.sleep(3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("job", choices=["dub", "changer"])
    parser.add_argument("--seconds", type=float, default=None)
    parser.add_argument("--rate", type=int, default=48_000)
    parser.add_argument("--channels", type=int, default=8)
    parser.add_argument("--tier", default="standard")
    parser.add_argument("--repeat", type=int, default=1, help="measure the job this many times")
    args = parser.parse_args()
    if args.job == "changer":
        seconds, rate, channels = args.seconds or 600, 48_000, 2
    else:
        seconds, rate, channels = args.seconds or 60, args.rate, args.channels
    data = flac(librivox(seconds, rate), rate, channels)
    warm_data = flac(librivox(8, 48_000), 48_000, 1)
    with served(demo_catalog=True, credits=1_000_000) as (client, data_dir):
        warm, url = upload(client, "warm.flac", warm_data), upload(client, "input.flac", data)
        path, body = "/api/v1/speech/voice-changer", {"voice_id": "voice_sally"}
        key = "audio_url"
        if args.job == "dub":
            path, key = "/api/v1/speech/dubbing", "media_url"
            body = {"source_language": "en", "target_language": "es", "tier": args.tier}

        def run(media: str) -> httpx.Response:
            response = client.post(path, json={key: media, **body})
            if args.job == "dub" and response.status_code == 200:
                return wait(client, response.json()["job_id"])
            return response

        warmed = run(warm)
        warmed.raise_for_status()
        pid = worker_pid(data_dir, warmed.json().get("job_id") or warmed.json()["id"])
        for _ in range(args.repeat):
            started = time.perf_counter()
            grown, response = growth_mib(pid, lambda: run(url))
            answer: dict[str, Any] = response.json()
            status = answer.get("status", describe(response))
            if status == "failed":
                status = f"failed {answer.get('error')}"
            tier = args.tier if args.job == "dub" else ""
            print(
                f"{args.job} {seconds:g} s {rate} Hz x {channels} ch {tier}"
                f": peak RSS growth {grown:.1f} MiB ({grown * 60 / seconds:.1f} MiB/min; "
                f"{status}, {time.perf_counter() - started:.1f} s)",
                flush=True,
            )


if __name__ == "__main__":
    main()
