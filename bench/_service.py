"""What the service benchmarks share: `soundstage serve` (with its embedded worker, one worker
process, SQLite in a fresh data directory) and a client holding a funded sandbox key."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def wait_for_port(port: int) -> None:
    """Until something listens on 127.0.0.1:`port` (30 s at most)."""
    for _ in range(600):
        with socket.socket() as sock:
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)


@contextmanager
def served(
    *,
    demo_catalog: bool = False,
    credits: int = 0,
    database_url: str | None = None,
    extra_env: dict[str, str] | None = None,
) -> Iterator[tuple[httpx.Client, Path]]:
    """The running service's client (authenticated) and its data directory; the server stops
    on exit. SQLite in the data directory unless `database_url` names another database;
    `extra_env` adds settings (SOUNDSTAGE_* variables)."""
    data_dir = Path(tempfile.mkdtemp())
    env = {
        **os.environ,
        "SOUNDSTAGE_DATA_DIR": str(data_dir),
        "SOUNDSTAGE_LOG_LEVEL": "warning",
        "SOUNDSTAGE_JOBS": '{"worker_processes": 1}',
    }
    for name in ("SOUNDSTAGE_DATABASE_URL", "SOUNDSTAGE_REDIS_URL"):
        env.pop(name, None)
    if database_url:
        env["SOUNDSTAGE_DATABASE_URL"] = database_url
    env.update(extra_env or {})
    cli = [sys.executable, "-m", "soundstage.cli"]
    if demo_catalog:
        subprocess.run([*cli, "catalog", "load-demo"], env=env, check=True, capture_output=True)
    key = json.loads(
        subprocess.run([*cli, "demo", "--json"], env=env, check=True, capture_output=True).stdout
    )["key"]
    port = free_port()
    server = subprocess.Popen([*cli, "serve", "--port", str(port)], env=env)
    try:
        wait_for_port(port)
        client = httpx.Client(
            base_url=f"http://127.0.0.1:{port}",
            headers={"Authorization": f"Bearer {key}"},
            timeout=600,
        )
        if credits:
            client.post("/api/v1/sandbox/credits", json={"amount": credits}).raise_for_status()
        yield client, data_dir
    finally:
        server.terminate()
        server.wait(30)
