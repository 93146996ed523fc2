"""Platform overhead per request: GET /api/v1/credits through the whole stack (auth lookup,
per-key rate limit, database read, envelope, headers) against a bare FastAPI app answering the
same JSON, both under uvicorn on loopback, in one run. Prints the latency ratio.

    .venv/bin/python bench/api_overhead.py [--requests 2000]
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

REFERENCE_APP = """
from fastapi import FastAPI
app = FastAPI()
BODY = {"object": "credit_balance", "environment": "sandbox", "balance": 1000000,
        "reserved": 0, "updated_at": "2026-11-22T05:04:46.855538Z"}
@app.get("/api/v1/credits")
def credits() -> dict:
    return BODY
"""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait(port: int) -> None:
    for _ in range(600):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(port)


def measure(
    targets: list[tuple[str, dict[str, str]]], n: int, block: int = 100
) -> list[list[float]]:
    """`n` sequential requests to each target, in alternating blocks of `block` (the machine's
    speed drifts over a run: both sides see the same drift)."""
    clients = [httpx.Client(headers=headers) for _, headers in targets]
    times: list[list[float]] = [[] for _ in targets]
    try:
        for (url, _), client in zip(targets, clients, strict=True):
            for _ in range(50):  # warm-up
                client.get(url).raise_for_status()
        for _ in range(0, n, block):
            for (url, _), client, into in zip(targets, clients, times, strict=True):
                for _ in range(block):
                    start = time.perf_counter()
                    client.get(url).raise_for_status()
                    into.append(time.perf_counter() - start)
    finally:
        for client in clients:
            client.close()
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--requests", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "SOUNDSTAGE_DATA_DIR": tmp,
            "SOUNDSTAGE_LOG_LEVEL": "warning",
            "SOUNDSTAGE_RATE_LIMITS__SANDBOX": "1000000/minute",
        }
        env.pop("SOUNDSTAGE_DATABASE_URL", None)
        cli = [sys.executable, "-m", "soundstage.cli"]
        key = json.loads(
            subprocess.run(
                [*cli, "demo", "--json"], env=env, check=True, capture_output=True, text=True
            ).stdout
        )["key"]
        Path(tmp, "reference_app.py").write_text(REFERENCE_APP)
        ours, ref = free_port(), free_port()
        procs = [
            subprocess.Popen([*cli, "serve", "--no-worker", "--port", str(ours)], env=env),
            subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "uvicorn",
                    "reference_app:app",
                    "--port",
                    str(ref),
                    "--log-level",
                    "warning",
                ],
                cwd=tmp,
            ),
        ]
        try:
            wait(ours)
            wait(ref)
            service, bare = measure(
                [
                    (f"http://127.0.0.1:{ours}/api/v1/credits", {"Authorization": f"Bearer {key}"}),
                    (f"http://127.0.0.1:{ref}/api/v1/credits", {}),
                ],
                args.requests,
            )
        finally:
            for proc in procs:
                proc.terminate()
                proc.wait(10)
    s50, b50 = statistics.median(service) * 1000, statistics.median(bare) * 1000
    s99 = statistics.quantiles(service, n=100)[98] * 1000
    b99 = statistics.quantiles(bare, n=100)[98] * 1000
    print(
        f"requests: {args.requests} each, sequential, keep-alive, in alternating blocks of 100, "
        "SQLite, in-memory rate limits"
    )
    print(f"load average: {os.getloadavg()}")
    print(f"soundstage GET /api/v1/credits: p50 {s50:.2f} ms  p99 {s99:.2f} ms")
    print(f"bare FastAPI same JSON:         p50 {b50:.2f} ms  p99 {b99:.2f} ms")
    print(f"ratio (p50 soundstage / bare): {s50 / b50:.2f}")


if __name__ == "__main__":
    main()
