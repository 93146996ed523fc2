"""Disk taken by a tiny DAW request (issue 17, defect 4): one 64 KB upload used twice, the
second copy at `start_ms: 1800000`. Prints the request's size, the answer, the seconds from
the POST to the job's end and the bytes the service then stores (its media directory).

    PYTHONPATH=src .venv/bin/python bench/daw_disk.py
"""

from __future__ import annotations

import io
import json
import time
import wave
from pathlib import Path

from _service import served


def upload_bytes(size: int = 64 * 1024) -> bytes:
    """A mono 16-bit 16 kHz WAVE of `size` bytes (about two seconds)."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(16_000)
        out.writeframes(b"\x10\x00" * ((size - 44) // 2))
    return buffer.getvalue()


def stored_bytes(data_dir: Path) -> int:
    return sum(p.stat().st_size for p in (data_dir / "media").rglob("*") if p.is_file())


def main() -> None:
    with served(credits=1_000_000) as (client, data_dir):
        upload = client.post("/api/v1/uploads", files={"file": ("clip.wav", upload_bytes())})
        upload.raise_for_status()
        url = upload.json()["url"]
        before = stored_bytes(data_dir)
        body = json.dumps(
            {
                "tracks": [
                    {"name": "A", "audio_url": url},
                    {"name": "B", "audio_url": url, "start_ms": 1_800_000},
                ]
            }
        ).encode()
        start = time.perf_counter()
        response = client.post(
            "/api/v1/creative/daw", content=body, headers={"Content-Type": "application/json"}
        )
        outcome = f"HTTP {response.status_code}"
        if response.status_code == 200:
            job_id = response.json()["job_id"]
            while True:
                job = client.get(f"/api/v1/jobs/{job_id}").raise_for_status().json()
                if job["status"] in ("completed", "failed", "cancelled"):
                    break
                time.sleep(0.5)
            outcome += f", job {job['status']}, {job['credits_used']} credits"
        else:
            error = response.json()["error"]
            outcome += f" {error['code']} (param {error['param']})"
        elapsed = time.perf_counter() - start
        added = stored_bytes(data_dir) - before
    print(f"request body: {len(body)} bytes; upload: {len(upload_bytes())} bytes")
    print(f"answer: {outcome}")
    print(f"seconds from POST to the job's end: {elapsed:.2f}")
    print(f"bytes stored by the export: {added:,} ({added / 1e9:.3f} GB)")


if __name__ == "__main__":
    main()
