"""Fault injection: kill -9 of a worker and of the server mid-job, Redis down, a PostgreSQL
restart and a full disk. Each ends the same way: no job lost, nothing charged twice, every
ledger sums to zero and nothing stays reserved.

The deployments here are real processes (`soundstage serve --no-worker` and `soundstage
worker`) on this session's database, or on a private Redis / PostgreSQL / tmpfs that the
test breaks."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.migrate import upgrade_database
from soundstage.jobs import service as jobs
from soundstage.models import Job
from soundstage.voices.service import CatalogCounts
from tests.support.deployment import (
    Deployment,
    assert_books_balance,
    captures_of,
    wait_until,
)
from tests.support.factories import Customer, create_customer, principal_of
from tests.support.jobs import stored
from tests.support.processes import free_port, wait_for_port

pytestmark = [pytest.mark.services, pytest.mark.slow]

SENTENCES = " ".join(
    [
        "The ferry left the harbour a little after nine in the morning.",
        "Passengers crowded the rail to watch the town grow small behind them.",
        "A child counted the gulls that followed the wake, losing track at forty.",
        "By noon the island rose out of the haze, green and steep and quiet.",
    ]
)


@pytest.fixture
def deployment(settings: Settings) -> Iterator[Deployment]:
    deployed = Deployment(settings)
    yield deployed
    deployed.stop()


def submit(
    db: Database,
    settings: Settings,
    customer: Customer,
    seconds: float,
    price: int,
    kind: str = "test.sleep",
) -> str:
    with db.session() as session:
        return jobs.submit(
            session,
            settings,
            principal_of(customer),
            kind,
            stored({"seconds": seconds, "credits": price}),
            credits_needed=price,
            is_async=True,
        ).id


def job_row(db: Database, job_id: str) -> Job:
    with db.read_session() as session:
        job = session.get(Job, job_id)
        assert job is not None
        session.expunge(job)
        return job


def status_of(db: Database, job_id: str) -> str:
    return job_row(db, job_id).status


def test_kill_9_of_the_server_mid_request_loses_no_job_and_charges_once(
    deployment: Deployment, db: Database, demo_catalog: CatalogCounts
) -> None:
    customer = create_customer(db, credits_each=5000)
    deployment.start_worker()
    deployment.start_server()
    failures: list[BaseException] = []

    def request() -> None:
        try:
            httpx.post(
                deployment.url + "/api/v1/speech/tts",
                json={"voice_id": "voice_joe", "text": SENTENCES},
                headers=customer.auth(),
                timeout=120,
            )
        except httpx.HTTPError as exc:
            failures.append(exc)

    caller = threading.Thread(target=request)
    caller.start()
    job_id = wait_until(lambda: _running_job(db, customer), 60, "the TTS job to start")
    deployment.kill_server()
    caller.join(30)
    assert failures, "the request outlived its server"

    # The worker finishes the job; a new server answers for it.
    wait_until(lambda: status_of(db, job_id) == "completed", 120, "the job to complete")
    deployment.start_server()
    job = deployment.get(f"/api/v1/jobs/{job_id}", customer.auth()).json()
    assert (job["status"], job["credits_used"]) == ("completed", len(SENTENCES))
    assert httpx.get(job["result"]["output_url"], timeout=30).status_code == 200
    assert captures_of(db, job_id) == [len(SENTENCES)]
    assert_books_balance(db, customer.account_id)


def _running_job(db: Database, customer: Customer) -> str | None:
    from sqlalchemy import select

    with db.read_session() as session:
        return session.scalar(
            select(Job.id).where(Job.account_id == customer.account_id, Job.status == "processing")
        )


def test_kill_9_of_a_worker_mid_job_reruns_it_once(
    deployment: Deployment, db: Database, settings: Settings
) -> None:
    customer = create_customer(db, credits_each=1000)
    deployment.start_worker()
    job_id = submit(db, settings, customer, seconds=3, price=120)
    wait_until(lambda: status_of(db, job_id) == "processing", 60, "the job to start")
    deployment.kill_worker()  # the consumer and its processes, at once
    deployment.start_worker()

    wait_until(lambda: status_of(db, job_id) == "completed", 90, "the job to be run again")
    job = job_row(db, job_id)
    assert (job.attempts, job.credits_used) == (2, 120)
    assert captures_of(db, job_id) == [120]
    assert_books_balance(db, customer.account_id)
    # The killed attempt's directory is swept, and the second attempt removes its own just
    # after it commits the completion (so not necessarily before the status is read above).
    work = settings.data_dir / "work"
    wait_until(lambda: not list(work.glob(f"{job_id}*")), 30, "the work directories to go")


def test_kill_9_of_a_worker_mid_stream_charges_once_what_was_sent(
    deployment: Deployment, db: Database, demo_catalog: CatalogCounts
) -> None:
    """A stream cannot be resumed: the job's second attempt fails, and it is charged once
    for the sentences its first attempt released to the stream (the client had them), the
    rest of the reservation released."""
    customer = create_customer(db, credits_each=20_000)
    text = " ".join([SENTENCES] * 10)
    deployment.start_worker()
    deployment.start_server()
    started: dict[str, str] = {}

    def listen() -> None:
        with httpx.stream(
            "POST",
            deployment.url + "/api/v1/speech/tts/stream",
            json={"voice_id": "voice_joe", "text": text, "format": "mp3"},
            headers=customer.auth(),
            timeout=120,
        ) as response:
            assert response.status_code == 200, response.read()
            started["job"] = response.headers["soundstage-job-id"]
            chunks = response.iter_bytes()
            next(chunks)
            deployment.kill_worker()
            deployment.start_worker()
            for _ in chunks:
                pass

    with pytest.raises(httpx.RemoteProtocolError):
        listen()
    job_id = started["job"]
    wait_until(lambda: status_of(db, job_id) == "failed", 90, "the second attempt to fail")
    job = job_row(db, job_id)
    charged = captures_of(db, job_id)
    assert len(charged) == 1
    assert charged == [job.credits_used]
    assert 0 < charged[0] < len(text) // 2, charged
    assert job.error is not None
    assert job.error["code"] == "stream_interrupted"
    assert_books_balance(db, customer.account_id)


# Redis down


@pytest.fixture
def private_redis(tmp_path: Path) -> Iterator[dict[str, Any]]:
    """A redis-server of this test's own, which it may kill and start again (empty, as a
    Redis that keeps nothing on disk comes back)."""
    port = free_port()
    command = [
        shutil.which("redis-server") or "redis-server",
        *("--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"),
        *("--dir", str(tmp_path)),
    ]
    state: dict[str, Any] = {"url": f"redis://127.0.0.1:{port}/0", "port": port}

    def start() -> None:
        state["proc"] = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        wait_for_port(port)

    def kill() -> None:
        state["proc"].send_signal(signal.SIGKILL)
        state["proc"].wait(10)

    state["start"], state["kill"] = start, kill
    start()
    yield state
    if state["proc"].poll() is None:
        kill()


def test_redis_down_answers_503_and_loses_no_job(
    settings: Settings, db: Database, private_redis: dict[str, Any]
) -> None:
    on_redis = settings.model_copy(
        update={"redis_url": private_redis["url"], "redis_namespace": "faults-redis"}
    )
    deployment = Deployment(on_redis)
    customer = create_customer(db, credits_each=1000)
    try:
        deployment.start_worker()
        deployment.start_server()
        first = submit(db, on_redis, customer, seconds=2, price=100)
        wait_until(lambda: status_of(db, first) == "processing", 60, "the first job to start")
        private_redis["kill"]()

        # The API says the dependency is down, in the envelope; it never answers 500.
        response = deployment.get("/api/v1/credits", customer.auth())
        assert response.status_code == 503, response.text
        assert response.json()["error"]["code"] == "service_unavailable"
        assert "retry-after" in response.headers
        # A job submitted now is kept (its row is the truth) though the queue cannot take it.
        second = submit(db, on_redis, customer, seconds=0.2, price=50)
        # The running job does not need Redis to end.
        wait_until(lambda: status_of(db, first) == "completed", 60, "the first job to end")

        private_redis["start"]()  # empty: the queued message was lost with it
        wait_until(lambda: status_of(db, second) == "completed", 90, "the second job to run")
        assert deployment.get("/api/v1/credits", customer.auth()).status_code == 200
    finally:
        deployment.stop()
    assert captures_of(db, first) == [100]
    assert captures_of(db, second) == [50]
    assert_books_balance(db, customer.account_id)


def test_redis_down_mid_stream_cuts_the_transfer_and_charges_what_was_sent(
    settings: Settings, db: Database, demo_catalog: CatalogCounts, private_redis: dict[str, Any]
) -> None:
    """Streams go through Redis when it is set: losing it mid-stream cuts the transfer (the
    client sees an incomplete body, never a 500 or a silently short file), the job ends
    charged once for the sentences released to the stream (the client had the first of
    them), the rest released, and the server answers again once Redis is back."""
    on_redis = settings.model_copy(
        update={"redis_url": private_redis["url"], "redis_namespace": "faults-stream"}
    )
    deployment = Deployment(on_redis)
    customer = create_customer(db, credits_each=20_000)
    # Minutes of audio, seconds of synthesis: Redis goes while the worker still speaks.
    body = {"voice_id": "voice_joe", "text": " ".join([SENTENCES] * 10), "format": "mp3"}
    started: dict[str, str] = {}

    def listen() -> None:
        with httpx.stream(
            "POST",
            deployment.url + "/api/v1/speech/tts/stream",
            json=body,
            headers=customer.auth(),
            timeout=60,
        ) as response:
            assert response.status_code == 200, response.read()
            started["job"] = response.headers["soundstage-job-id"]
            chunks = response.iter_bytes()
            next(chunks)
            private_redis["kill"]()
            for _ in chunks:
                pass

    try:
        deployment.start_worker()
        deployment.start_server()
        with pytest.raises(httpx.RemoteProtocolError):
            listen()
        job_id = started["job"]
        wait_until(lambda: status_of(db, job_id) in ("failed", "cancelled"), 60, "the job to end")
        private_redis["start"]()
        assert deployment.get("/api/v1/credits", customer.auth()).status_code == 200
    finally:
        deployment.stop()
    charged = captures_of(db, job_id)
    assert len(charged) == 1
    assert 0 < charged[0] < len(body["text"]) // 2, charged
    assert_books_balance(db, customer.account_id)


# PostgreSQL restart


@pytest.fixture
def private_postgres() -> Iterator[dict[str, Any]]:
    """A PostgreSQL cluster of this test's own (initdb as the postgres user, trust auth on
    127.0.0.1), which it may restart."""
    binaries = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))
    assert binaries, "PostgreSQL is missing: scripts/ensure-services.sh installs it"
    bin_dir = binaries[-1].parent
    root = Path(tempfile.mkdtemp(prefix="soundstage-pg-", dir="/tmp"))
    root.chmod(0o755)
    shutil.chown(root, "postgres", "postgres")
    data, port = root / "data", free_port()

    def as_postgres(*args: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *args], check=True, capture_output=True)

    as_postgres(str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
    options = f"-p {port} -k {root} -c listen_addresses=127.0.0.1 -c fsync=off"

    def pg_ctl(*args: str) -> None:
        as_postgres(str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), *args)

    pg_ctl("-o", options, "-w", "start")
    try:
        as_postgres(str(bin_dir / "createdb"), "-h", "127.0.0.1", "-p", str(port), "faults")
        yield {
            "url": f"postgresql+psycopg://postgres@127.0.0.1:{port}/faults",
            "restart": lambda: pg_ctl("-o", options, "-m", "fast", "-w", "restart"),
        }
    finally:
        pg_ctl("-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)


def test_a_postgresql_restart_mid_job_loses_nothing(
    settings: Settings, private_postgres: dict[str, Any], tmp_path: Path
) -> None:
    on_postgres = settings.model_copy(
        update={
            "database_url": private_postgres["url"],
            "data_dir": tmp_path / "data",
            "redis_namespace": "faults-postgres",
        }
    )
    upgrade_database(on_postgres)
    db = Database(on_postgres)
    customer = create_customer(db, credits_each=1000)
    deployment = Deployment(on_postgres)
    try:
        deployment.start_worker()
        deployment.start_server()
        job_id = submit(db, on_postgres, customer, seconds=3, price=200)
        wait_until(lambda: status_of(db, job_id) == "processing", 60, "the job to start")
        private_postgres["restart"]()

        wait_until(lambda: status_of(db, job_id) == "completed", 90, "the job to complete")
        answer = wait_until(
            lambda: deployment.get("/api/v1/credits", customer.auth()).status_code == 200,
            30,
            "the API to answer again",
        )
        assert answer
        assert captures_of(db, job_id) == [200]
        assert_books_balance(db, customer.account_id)
    finally:
        deployment.stop()
        db.dispose()


# A full disk


@pytest.fixture
def small_disk(settings: Settings) -> Iterator[Path]:
    """A 16 MiB tmpfs holding a data directory's scratch space, uploads and media."""
    mount = Path(tempfile.mkdtemp(prefix="soundstage-disk-"))
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], check=True)
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)
        shutil.rmtree(mount, ignore_errors=True)


def fill(disk: Path) -> Path:
    """Take all but a few KiB of the disk; remove the file returned to free it."""
    filler = disk / "filler"
    with filler.open("wb") as out:
        try:
            while True:
                out.write(b"\0" * 65536)
                out.flush()
        except OSError:
            pass
    return filler


def test_a_full_disk_fails_jobs_uncharged_and_answers_503(
    settings: Settings, db: Database, small_disk: Path, tmp_path: Path
) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    for name in ("work", "tmp", "media"):
        (small_disk / name).mkdir()
        (data_dir / name).symlink_to(small_disk / name)
    on_small_disk = settings.model_copy(
        update={"data_dir": data_dir, "redis_namespace": "faults-disk"}
    )
    customer = create_customer(db, credits_each=1000)
    deployment = Deployment(on_small_disk)
    try:
        deployment.start_worker()
        deployment.start_server()
        filler = fill(small_disk)
        full = submit(db, on_small_disk, customer, 0, 10, kind="test.tone")
        failed = wait_until(lambda: _ended(db, full), 60, "the job to end")
        assert failed.status == "failed"
        assert failed.error is not None
        assert (failed.error["code"], failed.error["status"]) == ("storage_full", 503)
        assert failed.credits_used == 0

        upload = httpx.post(
            deployment.url + "/api/v1/uploads",
            headers=customer.auth(),
            files={"file": ("a.wav", b"RIFF" + b"\0" * 200_000, "audio/wav")},
            timeout=30,
        )
        assert upload.status_code == 503, upload.text
        assert upload.json()["error"]["code"] == "storage_full"

        filler.unlink()
        again = submit(db, on_small_disk, customer, 0, 10, kind="test.tone")
        done = wait_until(lambda: _ended(db, again), 60, "the job to end")
        assert (done.status, done.credits_used) == ("completed", 10)
    finally:
        deployment.stop()
    assert captures_of(db, full) == []
    assert captures_of(db, again) == [10]
    assert_books_balance(db, customer.account_id)
    assert os.listdir(small_disk / "work") == []


def _ended(db: Database, job_id: str) -> Job | None:
    job = job_row(db, job_id)
    return job if job.status in jobs.TERMINAL else None
