"""Load: the API under 1,000 concurrent connections on loopback, side by side with a bare FastAPI
app answering the same JSON, in one run. The load is wrk's (Debian's package, `make install`
puts it there): a C client whose 1,000 connections cost the 2-core machine little, so the
figures are the server's, not the client's. Each connection sends its requests back to back
(a refused request is followed at once by the next: harsher than a client that honours
Retry-After). Phases:

1. burst: `GET /api/v1/credits` on every connection (auth, rate limit, a database read);
2. after: one request 1 s after the burst ends (the service must be itself again at once);
3. mix: reads alternating `GET /api/v1/credits` (auth) and `GET /api/v1/voices?limit=10`
   (a list), and one `POST /api/v1/speech/tts` per 100 reads (a short sentence, spoken by the
   embedded worker).

Expected (issue 36): no 500 and no hang (a quick `503 overloaded` past capacity is allowed and
counted), p99 under 1 s at 1,000 connections, the request after the burst under 100 ms.
Prints requests/s against the bare app and the load average while it ran.

    .venv/bin/python bench/load.py [--connections 1000] [--seconds 30]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _service import free_port, served, wait_for_port

SCRIPT = Path(__file__).resolve().parent / "load" / "wrk.lua"
REFERENCE_APP = """
from fastapi import FastAPI
app = FastAPI()
BODY = {"object": "credit_balance", "environment": "sandbox", "balance": 1000000,
        "reserved": 0, "updated_at": "2026-11-22T05:04:46.855Z"}
@app.get("/api/v1/credits")
def credits() -> dict:
    return BODY
@app.get("/api/v1/voices")
def voices() -> dict:
    return {"object": "list", "data": [], "has_more": False}
"""

TTS = {"text": "The load is shared.", "voice_id": "voice_joe", "format": "wav"}


@dataclass(frozen=True)
class Phase:
    statuses: dict[str, int]
    p50_ms: float
    p99_ms: float
    max_ms: float
    errors: dict[str, int]
    requests: int
    seconds: float

    @property
    def ok_per_second(self) -> float:
        return self.statuses.get("200", 0) / self.seconds

    def line(self, name: str) -> str:
        return (
            f"  {name}: {self.requests} answered {self.statuses}, socket errors {self.errors}; "
            f"200s {self.ok_per_second:.0f}/s; latency p50 {self.p50_ms:.0f} ms, "
            f"p99 {self.p99_ms:.0f} ms, max {self.max_ms:.0f} ms"
        )


def wrk(url: str, phase: str, auth: str, args: argparse.Namespace) -> Phase:
    threads = min(2, args.connections)
    command = [
        "wrk",
        f"-t{threads}",
        f"-c{args.connections}",
        f"-d{args.seconds:g}s",
        "--timeout",
        "30s",
        "-s",
        str(SCRIPT),
        url,
        "--",
        phase,
        auth,
        json.dumps(TTS),
    ]
    out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    fields = {
        line.split()[0]: dict(re.findall(r"(\w+)=(\d+)", line))
        for line in out.splitlines()
        if line.split() and line.split()[0] in ("statuses", "latency_us", "errors")
    }
    totals = dict(re.findall(r"(\w+)=(\d+)", out.splitlines()[-1]))
    latency = {k: int(v) / 1000 for k, v in fields["latency_us"].items()}
    return Phase(
        statuses={k: int(v) for k, v in fields["statuses"].items()},
        p50_ms=latency["p50"],
        p99_ms=latency["p99"],
        max_ms=latency["max"],
        errors={k: int(v) for k, v in fields["errors"].items() if int(v)},
        requests=int(totals["requests"]),
        seconds=int(totals["duration_us"]) / 1e6,
    )


def one_request(base_url: str, headers: dict[str, str]) -> tuple[int, float]:
    with httpx.Client(base_url=base_url, headers=headers, timeout=30) as client:
        began = time.perf_counter()
        status = client.get("/api/v1/credits").status_code
        return status, time.perf_counter() - began


def run_phases(base_url: str, auth: str, args: argparse.Namespace) -> tuple[Phase, Phase]:
    burst = wrk(base_url, "burst", auth, args)
    print(burst.line("burst"))
    time.sleep(1)
    status, seconds = one_request(base_url, {"Authorization": auth} if auth else {})
    print(f"  1 s after the burst: {status} in {seconds * 1000:.1f} ms")
    mix = wrk(base_url, "mix", auth, args)
    print(mix.line("mix"))
    return burst, mix


def bare_app(port: int, folder: Path) -> subprocess.Popen[bytes]:
    (folder / "reference_app.py").write_text(REFERENCE_APP)
    command = [sys.executable, "-m", "uvicorn", "reference_app:app", "--port", str(port)]
    return subprocess.Popen([*command, "--log-level", "warning"], cwd=folder)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=1000)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args()
    if shutil.which("wrk") is None:
        sys.exit("wrk is missing: `make install` installs it (Debian package wrk)")
    print(f"load average before: {os.getloadavg()}")
    print(f"{args.connections} connections, {args.seconds:g} s per phase, SQLite, 1 API process")
    limits = {"SOUNDSTAGE_RATE_LIMITS__SANDBOX": "100000000/minute"}
    with served(demo_catalog=True, credits=1_000_000, extra_env=limits) as (client, _):
        # The service is whole once its embedded worker has spoken: until then the worker's
        # start (imports, models) shares the 2 cores with the API's burst.
        client.post("/api/v1/speech/tts", json=TTS).raise_for_status()
        print("soundstage:")
        ours = run_phases(str(client.base_url).rstrip("/"), client.headers["Authorization"], args)
    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        bare = bare_app(port, Path(tmp))
        try:
            wait_for_port(port)
            print("bare FastAPI (same JSON; its TTS path is a 404):")
            bare_phases = run_phases(f"http://127.0.0.1:{port}", "", args)
        finally:
            bare.terminate()
            bare.wait(10)
    ratios = [o.ok_per_second / b.ok_per_second for o, b in zip(ours, bare_phases, strict=True)]
    print(f"200s per second, soundstage / bare: burst {ratios[0]:.2f}, mix {ratios[1]:.2f}")
    print(f"load average after: {os.getloadavg()}")


if __name__ == "__main__":
    main()
