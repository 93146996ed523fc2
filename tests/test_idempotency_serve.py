"""Idempotency-Key against a real server process: a 100 MB upload is spooled, never held in
memory; a retry after the server was killed mid-request resumes the job it had created."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import httpx
import pytest

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.voices.service import CatalogCounts
from tests.support.factories import create_customer
from tests.support.memory import mark, peak_growth_kib
from tests.support.processes import GENEROUS_LIMITS, free_port, settings_env, wait_for_port

pytestmark = pytest.mark.services

MIB = 1024 * 1024
# Peak RSS growth allowed while the server takes a 100 MB upload with an Idempotency-Key
# (the body used to be held whole, twice: +284 MiB; spooled it is a few MiB).
UPLOAD_RSS_BOUND = 64 * MIB


@contextmanager
def serving(env: dict[str, str]) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "soundstage.cli", "serve", "--no-worker", "--port", str(port)],
        env=env,
    )
    try:
        wait_for_port(port, timeout=60)
        yield server, f"http://127.0.0.1:{port}"
    finally:
        if server.poll() is None:
            server.send_signal(signal.SIGTERM)
            server.wait(30)


def write_wav(path: Path, size: int) -> None:
    data = size - 44
    with path.open("wb") as out:
        out.write(
            b"RIFF"
            + (36 + data).to_bytes(4, "little")
            + b"WAVEfmt "
            + (16).to_bytes(4, "little")
            + (1).to_bytes(2, "little")
            + (1).to_bytes(2, "little")
            + (48000).to_bytes(4, "little")
            + (96000).to_bytes(4, "little")
            + (2).to_bytes(2, "little")
            + (16).to_bytes(2, "little")
            + b"data"
            + data.to_bytes(4, "little")
        )
        block = os.urandom(MIB)
        for _ in range(data // MIB):
            out.write(block)
        out.write(block[: data % MIB])


def test_a_100_mb_upload_with_a_key_is_spooled_not_held(
    settings: Settings, db: Database, tmp_path: Path
) -> None:
    customer = create_customer(db)
    wav = tmp_path / "big.wav"
    write_wav(wav, 100 * 1000 * 1000)
    with serving(settings_env(settings)) as (server, base):

        def upload(key: str, path: Path) -> httpx.Response:
            with path.open("rb") as body:
                return httpx.post(
                    f"{base}/api/v1/uploads",
                    headers={**customer.auth(), "Idempotency-Key": key},
                    files={"file": ("big.wav", body, "audio/wav")},
                    timeout=300,
                )

        small = tmp_path / "small.wav"
        write_wav(small, 64 * 1024)
        assert upload("warm-up", small).status_code == 200  # imports, connections

        since = mark(server.pid)
        first = upload("big", wav)
        growth = peak_growth_kib(since) * 1024
        assert first.status_code == 200, first.text
        assert first.json()["size_bytes"] == 100 * 1000 * 1000
        assert growth < UPLOAD_RSS_BOUND, f"peak RSS grew {growth / MIB:.0f} MiB"

        again = upload("big", wav)
        assert again.headers["Idempotent-Replayed"] == "true"
        assert again.json()["id"] == first.json()["id"]
        # The spool is gone: nothing of the body stays in the data directory's tmp.
        assert sum(f.stat().st_size for f in (settings.data_dir / "tmp").rglob("*")) < MIB


TEXT = (
    "Every take in the booth was recorded twice, once for the producer and once for the "
    "archive, so that nothing said in the studio was ever lost to a crash. "
) * 7


def test_a_retry_after_the_server_was_killed_resumes_the_job_it_created(
    settings: Settings,
    db: Database,
    demo_catalog: CatalogCounts,
    worker: subprocess.Popen[bytes],
) -> None:
    """kill -9 the server while a synchronous TTS request waits for its job (the worker runs
    on); restart; resend with the same key: the answer is that job's, within seconds of the
    key's lease running out, with one job and one charge."""
    customer = create_customer(db, credits_each=5000)
    env = {
        **settings_env(settings),
        "SOUNDSTAGE_IDEMPOTENCY_LEASE_SECONDS": "2",
        "SOUNDSTAGE_IDEMPOTENCY_HEARTBEAT_SECONDS": "0.5",
        "SOUNDSTAGE_RATE_LIMITS": GENEROUS_LIMITS.model_dump_json(),  # it polls
    }
    headers = {**customer.auth(), "Idempotency-Key": "killed"}
    body = {"voice_id": "voice_kal", "text": TEXT, "format": "wav"}

    with serving(env) as (server, base), ThreadPoolExecutor(1) as pool:
        pending = pool.submit(
            httpx.post, f"{base}/api/v1/speech/tts", headers=headers, json=body, timeout=120
        )
        deadline = time.monotonic() + 60
        while not (
            running := httpx.get(
                f"{base}/api/v1/jobs?status=processing", headers=customer.auth()
            ).json()["data"]
        ):
            assert not pending.done(), pending.result().text
            assert time.monotonic() < deadline, "the job never started"
            time.sleep(0.1)
        job_id = running[0]["job_id"]
        server.send_signal(signal.SIGKILL)
        server.wait()
        with pytest.raises(httpx.HTTPError):
            pending.result()

    with serving(env) as (_, base):
        ready = time.monotonic()
        while (
            resent := httpx.post(
                f"{base}/api/v1/speech/tts", headers=headers, json=body, timeout=120
            )
        ).status_code == 409:
            assert time.monotonic() - ready < 10, "the dead request's key was not released"
            time.sleep(float(resent.headers["Retry-After"]))
        answered = time.monotonic() - ready
        assert resent.status_code == 200, resent.text
        assert resent.json()["job_id"] == job_id
        assert resent.json()["credits_used"] == len(TEXT)
        assert answered < 60

        replay = httpx.post(f"{base}/api/v1/speech/tts", headers=headers, json=body, timeout=60)
        assert replay.headers["Idempotent-Replayed"] == "true"
        assert replay.content == resent.content

        jobs = httpx.get(f"{base}/api/v1/jobs", headers=customer.auth()).json()["data"]
        ledger = httpx.get(f"{base}/api/v1/credits/ledger", headers=customer.auth()).json()
        balance = httpx.get(f"{base}/api/v1/credits", headers=customer.auth()).json()
    assert [job["job_id"] for job in jobs] == [job_id]
    assert sorted(entry["type"] for entry in ledger["data"]) == ["capture", "grant", "reserve"]
    assert (balance["balance"], balance["reserved"]) == (5000 - len(TEXT), 0)
