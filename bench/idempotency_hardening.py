"""Issue 17's idempotency and rate-limit figures, against whichever code PYTHONPATH names
(run once with this worktree's `src`, once with the old checkout's):

- `upload`: the API process's peak RSS growth while it takes a 100 MB multipart upload with
  an `Idempotency-Key` (one, then four at once), and without a key for reference;
- `crash`: kill -9 the server in the middle of a synchronous TTS request sent with a key,
  restart it, resend: seconds until the resend gets the job's answer (and how many jobs ran);
- `window`: requests let through around a window edge against "10 per 2 s".

    PYTHONPATH=src:. .venv/bin/python bench/idempotency_hardening.py upload|crash|window
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path

import httpx

CLI = [sys.executable, "-m", "soundstage.cli"]
MIB = 1024 * 1024


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _wait_for_port(port: int) -> None:
    for _ in range(1200):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(port)


def _environment(data_dir: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SOUNDSTAGE_")}
    env.update(SOUNDSTAGE_DATA_DIR=str(data_dir), SOUNDSTAGE_LOG_LEVEL="warning", **extra)
    return env


@contextmanager
def _server(env: dict[str, str], port: int, *, worker: bool = False) -> Iterator[int]:
    args = [*CLI, "serve", "--port", str(port)] + ([] if worker else ["--no-worker"])
    server = subprocess.Popen(args, env=env)
    try:
        _wait_for_port(port)
        yield server.pid
    finally:
        if server.poll() is None:
            server.terminate()
            server.wait(30)


def _demo_key(env: dict[str, str]) -> str:
    out = subprocess.run([*CLI, "demo", "--json"], env=env, check=True, capture_output=True)
    return str(json.loads(out.stdout)["key"])


def _status(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(field)


def _wav(path: Path, size: int) -> None:
    frames = (size - 44) // 2
    header = (
        b"RIFF"
        + (36 + frames * 2).to_bytes(4, "little")
        + b"WAVEfmt "
        + (16).to_bytes(4, "little")
        + (1).to_bytes(2, "little")
        + (1).to_bytes(2, "little")
        + (48000).to_bytes(4, "little")
        + (96000).to_bytes(4, "little")
        + (2).to_bytes(2, "little")
        + (16).to_bytes(2, "little")
        + b"data"
        + (frames * 2).to_bytes(4, "little")
    )
    with path.open("wb") as out:
        out.write(header)
        block = os.urandom(MIB)
        for _ in range(frames * 2 // MIB):
            out.write(block)
        out.write(block[: frames * 2 % MIB])


def upload(size_mb: int) -> None:
    data_dir = Path(tempfile.mkdtemp())
    env = _environment(data_dir, SOUNDSTAGE_MEDIA__UPLOAD_MAX_BYTES=str(1024 * MIB))
    key = _demo_key(env)
    wav = data_dir / "big.wav"
    _wav(wav, size_mb * 1000 * 1000)
    port = _free_port()
    with _server(env, port) as pid:
        base = f"http://127.0.0.1:{port}"

        def send(idempotency_key: str | None) -> int:
            headers = {"Authorization": f"Bearer {key}"}
            if idempotency_key:
                headers["Idempotency-Key"] = idempotency_key
            with wav.open("rb") as body:
                return httpx.post(
                    f"{base}/api/v1/uploads",
                    headers=headers,
                    files={"file": ("big.wav", body, "audio/wav")},
                    timeout=600,
                ).status_code

        def measure(label: str, keys: list[str | None]) -> None:
            Path(f"/proc/{pid}/clear_refs").write_text("5")  # reset the peak (VmHWM)
            before = _status(pid, "VmRSS")
            started = time.monotonic()
            with ThreadPoolExecutor(len(keys)) as pool:
                statuses = list(pool.map(send, keys))
            seconds = time.monotonic() - started
            growth = (_status(pid, "VmHWM") - before) / MIB
            print(
                f"{label}: statuses {statuses}, peak RSS growth {growth:+.0f} MiB, {seconds:.1f} s"
            )

        send(None)  # warm up (imports, first connections)
        measure(f"{size_mb} MB upload, no key", [None])
        measure(f"{size_mb} MB upload, Idempotency-Key", ["one"])
        measure(f"4 x {size_mb} MB uploads at once, Idempotency-Key", ["a", "b", "c", "d"])
        replay = httpx.post(
            f"{base}/api/v1/uploads",
            headers={"Authorization": f"Bearer {key}", "Idempotency-Key": "one"},
            files={"file": ("big.wav", wav.open("rb"), "audio/wav")},
            timeout=600,
        )
        print(
            f"replay: {replay.status_code}, Idempotent-Replayed: "
            f"{replay.headers.get('Idempotent-Replayed')}"
        )


TEXT = ("The quick brown fox jumps over the lazy dog while the studio lights hum softly. ") * 60


def crash(wait_seconds: float) -> None:
    data_dir = Path(tempfile.mkdtemp())
    env = _environment(data_dir, SOUNDSTAGE_JOBS='{"worker_processes": 1}')
    subprocess.run([*CLI, "catalog", "load-demo"], env=env, check=True, capture_output=True)
    key = _demo_key(env)
    auth = {"Authorization": f"Bearer {key}"}
    body = {"voice_id": "voice_kal", "text": TEXT[:5000], "format": "wav"}
    worker = subprocess.Popen([*CLI, "worker"], env=env)
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    try:
        server = subprocess.Popen([*CLI, "serve", "--no-worker", "--port", str(port)], env=env)
        _wait_for_port(port)
        started = time.monotonic()
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(
                httpx.post,
                f"{base}/api/v1/speech/tts",
                headers={**auth, "Idempotency-Key": "crash"},
                json=body,
                timeout=600,
            )
            while not httpx.get(f"{base}/api/v1/jobs?status=processing", headers=auth).json()[
                "data"
            ]:
                if pending.done():
                    raise SystemExit(f"the request ended first: {pending.result().text}")
                time.sleep(0.05)
            os.kill(server.pid, signal.SIGKILL)
            server.wait()
            killed = time.monotonic()
            print(f"killed the server {killed - started:.1f} s into the request")
            try:
                pending.result()
            except httpx.HTTPError as exc:
                print(f"the first request ended with {type(exc).__name__}")
        with _server(env, port):
            ready = time.monotonic()
            statuses: list[int] = []
            while True:
                again = httpx.post(
                    f"{base}/api/v1/speech/tts",
                    headers={**auth, "Idempotency-Key": "crash"},
                    json=body,
                    timeout=600,
                )
                statuses.append(again.status_code)
                if again.status_code != 409 or time.monotonic() - ready > wait_seconds:
                    break
                time.sleep(0.5)
            answered = time.monotonic()
            answered_at = time.time()
            jobs = httpx.get(f"{base}/api/v1/jobs?limit=100", headers=auth).json()["data"]
            ledger = httpx.get(f"{base}/api/v1/credits/ledger?limit=100", headers=auth).json()
        print(
            f"resends: {len(statuses)} ({statuses.count(409)} x 409), last answer "
            f"{statuses[-1]} {again.json().get('job_id', again.json().get('error'))}"
        )
        if again.status_code == 200:
            completed = datetime.fromisoformat(jobs[0]["completed_at"].replace("Z", "+00:00"))
            print(
                f"the job completed {answered_at - completed.timestamp():.1f} s before the "
                "resend got its answer"
            )
        print(
            f"the answer came {answered - ready:.1f} s after the restart "
            f"({answered - killed:.1f} s after the kill); jobs: {[j['job_id'] for j in jobs]}; "
            f"ledger: {[(e.get('type'), e.get('amount')) for e in ledger['data']]}"
        )
    finally:
        worker.send_signal(signal.SIGINT)
        worker.wait(30)


def window() -> None:
    """One request, nine more 1.5 s later, then ten right after the 2 s edge of the first
    request's window: how many of the twenty passed, and the most within any 2 s."""
    data_dir = Path(tempfile.mkdtemp())
    env = _environment(data_dir, SOUNDSTAGE_RATE_LIMITS__SANDBOX="10/2 seconds")
    key = _demo_key(env)
    port = _free_port()
    with (
        _server(env, port),
        httpx.Client(
            base_url=f"http://127.0.0.1:{port}", headers={"Authorization": f"Bearer {key}"}
        ) as client,
    ):
        passed: list[float] = []

        def hit() -> None:
            if client.get("/api/v1/credits").status_code == 200:
                passed.append(time.monotonic())

        first = time.monotonic()
        hit()
        time.sleep(max(0.0, first + 1.5 - time.monotonic()))
        for _ in range(9):
            hit()
        time.sleep(max(0.0, first + 2.2 - time.monotonic()))
        for _ in range(10):
            hit()
        busiest = max(sum(1 for t in passed if start <= t < start + 2.0) for start in passed)
        print(
            f"against 10 per 2 s: {len(passed)} of 20 passed; at most {busiest} passed "
            f"within one 2 s span"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("what", choices=["upload", "crash", "window"])
    parser.add_argument("--size-mb", type=int, default=100)
    parser.add_argument("--wait-seconds", type=float, default=60)
    args = parser.parse_args()
    if args.what == "upload":
        upload(args.size_mb)
    elif args.what == "crash":
        crash(args.wait_seconds)
    else:
        window()


if __name__ == "__main__":
    main()
