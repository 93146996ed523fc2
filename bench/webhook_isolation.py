"""Another account's short TTS while 20 webhook endpoints hang: latency alone, then right
after one event fans out to the 20 endpoints (each answers after `--sleep` seconds).

    PYTHONPATH=src:. .venv/bin/python bench/webhook_isolation.py [--sleep 5]

`soundstage serve` with its embedded worker (one job process), SQLite, the demo catalog. The
endpoints belong to another account, 10 in sandbox and 10 in production (the cap is 16 per
account and environment); the event is emitted from this process, as a job's completion
would be.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
from bench._service import served

TEXT = "Hello!"  # 6 characters
ENDPOINTS_PER_ENVIRONMENT = 10


class SlowReceiver(BaseHTTPRequestHandler):
    sleep_seconds = 5.0
    lock = threading.Lock()
    in_flight = 0
    most_in_flight = 0

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length", "0")))
        with self.lock:
            SlowReceiver.in_flight += 1
            SlowReceiver.most_in_flight = max(SlowReceiver.most_in_flight, self.in_flight)
        time.sleep(self.sleep_seconds)
        with self.lock:
            SlowReceiver.in_flight -= 1
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def speak(client: httpx.Client) -> float:
    started = time.monotonic()
    response = client.post("/api/v1/speech/tts", json={"voice_id": "voice_joe", "text": TEXT})
    response.raise_for_status()
    return time.monotonic() - started


def cli(data_dir: Path, *args: str) -> Any:
    env = {**os.environ, "SOUNDSTAGE_DATA_DIR": str(data_dir)}
    command = [sys.executable, "-m", "soundstage.cli", *args, "--json"]
    return json.loads(subprocess.run(command, env=env, check=True, capture_output=True).stdout)


def emit_to_all(data_dir: Path, account_id: str) -> None:
    from soundstage.config import Settings
    from soundstage.core.db import Database
    from soundstage.webhooks import service

    settings = Settings(data_dir=data_dir)
    try:  # the old code handed deliveries to the job queue after commit
        from soundstage.jobs.queue import install_dispatcher  # type: ignore[attr-defined]
    except ImportError:
        pass
    else:
        install_dispatcher(settings)
    db = Database(settings)
    with db.session() as session:
        for environment in ("sandbox", "production"):
            service.emit(session, (account_id, environment), "daw.completed", {})
    db.dispose()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sleep", type=float, default=5.0, help="seconds each endpoint hangs")
    args = parser.parse_args()
    SlowReceiver.sleep_seconds = args.sleep
    receiver = ThreadingHTTPServer(("127.0.0.1", 0), SlowReceiver)
    receiver.daemon_threads = True
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    hook_url = f"http://127.0.0.1:{receiver.server_address[1]}/hooks"
    os.environ["SOUNDSTAGE_FETCH_ALLOW_HOSTS"] = "127.0.0.1"

    with served(demo_catalog=True, credits=100_000) as (client, data_dir):
        for _ in range(3):
            speak(client)  # warm: the voice is loaded once per job process
        alone = [speak(client) for _ in range(5)]

        owner = cli(data_dir, "accounts", "create", "--name", "Slow receivers")["account_id"]
        for environment in ("sandbox", "production"):
            key = cli(data_dir, "keys", "create", "--account", owner, "--environment", environment)[
                "key"
            ]
            for n in range(ENDPOINTS_PER_ENVIRONMENT):
                client.post(
                    "/api/v1/webhooks/endpoints",
                    headers={"Authorization": f"Bearer {key}"},
                    json={"url": f"{hook_url}?n={n}"},
                ).raise_for_status()

        emit_to_all(data_dir, owner)
        time.sleep(1.0)  # the deliveries start
        first = speak(client)
        after = [speak(client) for _ in range(4)]
        most = SlowReceiver.most_in_flight

    baseline = statistics.median(alone)
    print(f"TTS of {len(TEXT)} characters, voice_joe, one job process, SQLite")
    print(f"alone:                      median {baseline:.3f} s (of 5)")
    print(
        f"with 20 endpoints hanging {args.sleep:g} s: first {first:.3f} s "
        f"({first / baseline:.1f}x), next 4 median {statistics.median(after):.3f} s"
    )
    print(f"webhook requests in flight at once: {most}")
    receiver.shutdown()


if __name__ == "__main__":
    main()
