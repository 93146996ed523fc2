"""`soundstage serve` with its embedded worker (jobs and webhook deliveries), and synchronous
time limits over HTTP (no other worker runs in this module)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx
import pytest
from fastapi import Request
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.deps import PrincipalDep
from soundstage.jobs import service as jobs
from soundstage.webhooks import service as webhooks
from tests.support.api import assert_error
from tests.support.factories import Customer, principal_of
from tests.support.jobs import stored
from tests.support.processes import (
    children_of,
    free_port,
    settings_env,
    wait_for_port,
    wait_until_gone,
)

pytestmark = pytest.mark.services


def test_sync_timeout_is_504_in_the_envelope_and_free(
    settings: Settings, customer: Customer
) -> None:
    impatient = settings.model_copy(
        update={"jobs": settings.jobs.model_copy(update={"sync_timeout_seconds": 0.3})}
    )
    app = create_app(impatient)

    @app.post("/api/v1/probe-sleep")
    async def probe(request: Request, principal: PrincipalDep) -> dict[str, str]:
        job = await jobs.submit_and_wait(
            request.app.state.db,
            impatient,
            principal,
            "test.sleep",
            stored({"seconds": 3}),
            credits_needed=50,
        )
        return {"status": job.status}

    with TestClient(app) as client:
        response = client.post("/api/v1/probe-sleep", headers=customer.auth())
        error = assert_error(response, 504, "job_timeout")
        assert error["type"] == "api_error"
        job_id = error["message"].split()[1]
        job = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth()).json()
        balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (job["status"], job["credits_used"]) == ("cancelled", 0)
    assert (balance["balance"], balance["reserved"]) == (1000, 0)


class _Hooks(BaseHTTPRequestHandler):
    received: list[str] = []  # webhook-id of each request

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.received.append(self.headers["webhook-id"])
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        pass


def test_serve_runs_jobs_with_its_embedded_worker(
    settings: Settings, db: Database, customer: Customer
) -> None:
    port = free_port()
    hooks = ThreadingHTTPServer(("127.0.0.1", 0), _Hooks)
    threading.Thread(target=hooks.serve_forever, daemon=True).start()
    env = {**settings_env(settings), "SOUNDSTAGE_FETCH_ALLOW_HOSTS": "127.0.0.1"}
    server = subprocess.Popen(
        [sys.executable, "-m", "soundstage.cli", "serve", "--port", str(port)], env=env
    )
    try:
        wait_for_port(port, timeout=60)
        with db.session() as session:
            job_id = jobs.submit(
                session,
                settings,
                principal_of(customer),
                "test.echo",
                stored({"value": "served"}),
                credits_needed=0,
                is_async=False,
            ).id
        url = f"http://127.0.0.1:{port}/api/v1/jobs/{job_id}"
        deadline = time.monotonic() + 30
        while (body := httpx.get(url, headers=customer.auth()).json())["status"] != "completed":
            assert time.monotonic() < deadline, body
            time.sleep(0.1)
        assert body["result"] == {"echo": "served"}

        # Media URLs point at the server that issued them, and play from there.
        wav = (
            b"RIFF"
            + (36 + 3200).to_bytes(4, "little")
            + b"WAVEfmt "
            + (16).to_bytes(4, "little")
            + (1).to_bytes(2, "little")
            + (1).to_bytes(2, "little")
            + (16000).to_bytes(4, "little")
            + (32000).to_bytes(4, "little")
            + (2).to_bytes(2, "little")
            + (16).to_bytes(2, "little")
            + b"data"
            + (3200).to_bytes(4, "little")
            + b"\x00" * 3200
        )
        uploaded = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/uploads",
            headers=customer.auth(),
            files={"file": ("a.wav", wav, "audio/wav")},
        ).json()
        assert uploaded["url"].startswith(f"http://127.0.0.1:{port}/media/")
        assert uploaded["duration_ms"] == 100
        assert httpx.get(uploaded["url"]).content == wav
        # Webhooks go out from the embedded worker too.
        endpoint = httpx.post(
            f"http://127.0.0.1:{port}/api/v1/webhooks/endpoints",
            headers=customer.auth(),
            json={"url": f"http://127.0.0.1:{hooks.server_address[1]}/hooks"},
        )
        assert endpoint.status_code == 200, endpoint.text
        with db.session() as session:
            event = webhooks.emit(session, (customer.account_id, "sandbox"), "daw.completed", {})
        deadline = time.monotonic() + 30
        while event.id not in _Hooks.received:
            assert time.monotonic() < deadline, "the webhook was not delivered"
            time.sleep(0.1)
        embedded = children_of(server.pid)
        assert embedded, "serve started no worker process"
    finally:
        server.send_signal(signal.SIGTERM)  # what a process manager sends
        server.wait(30)
        hooks.shutdown()
    wait_until_gone(embedded, what="the embedded worker")
