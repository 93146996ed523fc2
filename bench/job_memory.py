"""Peak memory of one audio job: how far the worker process's resident set grows (VmHWM after
the job, less VmRSS before it, with the peak reset in between through /proc/PID/clear_refs,
which needs root) while it runs voice isolation and the voice changer on

- the 60 s FLAC of silence at 384 kHz x 8 channels (200 KB) of issue 17, and
- a 10-minute FLAC at 48 kHz stereo, digital silence by default (`--ten-minutes noise`:
  quiet noise, so that the model runs on both channels: minutes of work per job).

`soundstage serve` with its embedded worker (one process), SQLite in a fresh data directory;
each kind is warmed with a short job first (models load lazily, once per process). Prints MiB.
Run against another checkout with its code first on the path:

    PYTHONPATH=/work/main/src .venv/bin/python bench/job_memory.py     # before
    PYTHONPATH=src .venv/bin/python bench/job_memory.py                # after
"""

from __future__ import annotations

import argparse
import io
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import soundfile
import soxr
from _service import served

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
MIB = 1024 * 1024


def silence_384k() -> bytes:
    buffer = io.BytesIO()
    with soundfile.SoundFile(
        buffer, "w", samplerate=384_000, channels=8, format="FLAC", subtype="PCM_16"
    ) as out:
        second = np.zeros((384_000, 8), dtype=np.float32)
        for _ in range(60):
            out.write(second)
    return buffer.getvalue()


def ten_minutes(content: str) -> bytes:
    rate, rng = 48_000, np.random.default_rng(1)
    buffer = io.BytesIO()
    with soundfile.SoundFile(
        buffer, "w", samplerate=rate, channels=2, format="FLAC", subtype="PCM_16"
    ) as out:
        for _ in range(60):
            block = np.zeros((10 * rate, 2), dtype=np.float32)
            if content == "noise":
                block += rng.standard_normal(block.shape).astype(np.float32) * 0.003
            out.write(block)
    return buffer.getvalue()


def speech_clip() -> bytes:
    speech, rate = soundfile.read(FIXTURES / "pyannote" / "sample.flac", dtype="float32")
    clip = soxr.resample(speech[: 5 * rate], rate, 44_100).astype(np.float32)
    buffer = io.BytesIO()
    soundfile.write(buffer, clip, 44_100, format="WAV")
    return buffer.getvalue()


def upload(client: httpx.Client, name: str, data: bytes) -> str:
    response = client.post("/api/v1/uploads", files={"file": (name, data)})
    response.raise_for_status()
    return str(response.json()["url"])


def worker_pid(data_dir: Path, job_id: str) -> int:
    with sqlite3.connect(data_dir / "soundstage.db") as db:
        (owner,) = db.execute("select lease_owner from job where id = ?", (job_id,)).fetchone()
    return int(owner.split(":")[1])


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise KeyError(field)


def growth_mib(pid: int, run: Callable[[], httpx.Response]) -> tuple[float, httpx.Response]:
    """The peak resident set growth of process pid while run() runs."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := VmRSS
    before = status_kib(pid, "VmRSS")
    response = run()
    return (status_kib(pid, "VmHWM") - before) / 1024, response


def describe(response: httpx.Response) -> str:
    body: dict[str, Any] = response.json()
    if response.status_code == 200:
        return f"200 in {body.get('duration_ms')} ms of audio"
    return f"{response.status_code} {body['error']['code']}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ten-minutes", choices=["noise", "silence"], default="silence")
    args = parser.parse_args()
    inputs = {
        "384 kHz x 8 ch x 60 s silence": silence_384k(),
        f"10 min 48 kHz stereo {args.ten_minutes}": ten_minutes(args.ten_minutes),
    }
    with served(demo_catalog=True, credits=1_000_000) as (client, data_dir):
        warm = upload(client, "warm.wav", speech_clip())
        urls = {
            name: upload(client, f"input-{index}.flac", data)
            for index, (name, data) in enumerate(inputs.items())
        }
        jobs: dict[str, dict[str, Any]] = {
            "isolator": {"path": "/api/v1/speech/isolator", "return_background": True},
            "voice changer": {"path": "/api/v1/speech/voice-changer", "voice_id": "voice_sally"},
        }
        for job, options in jobs.items():
            path = options.pop("path")
            warmed = client.post(path, json={"audio_url": warm, **options})
            warmed.raise_for_status()
            pid = worker_pid(data_dir, warmed.json()["job_id"])
            for name, url in urls.items():
                started = time.perf_counter()
                body = {"audio_url": url, **options}
                grown, response = growth_mib(
                    pid, lambda path=path, body=body: client.post(path, json=body)
                )
                print(
                    f"{job:13s} {name:32s} peak RSS growth {grown:8.1f} MiB "
                    f"({describe(response)}, {time.perf_counter() - started:.1f} s)",
                    flush=True,
                )


if __name__ == "__main__":
    main()
