"""What dead workers and vanished clients leave on disk is swept: a killed worker's work
directory (its fetched inputs) and stream files nobody relays any more."""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.core.timeutil import travel
from soundstage.jobs import service as jobs
from soundstage.jobs import workdirs
from soundstage.jobs.streams import end_path, stream_path
from soundstage.jobs.worker import WorkerEnvironment, sweep
from soundstage.models import IdempotencyRecord
from tests.support.factories import Customer, principal_of
from tests.support.jobs import stored

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker")]


def wait_until(condition: object, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not condition():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out waiting for {condition}"
        time.sleep(0.05)


def submit(
    db: Database, settings: Settings, customer: Customer, kind: str, request: dict[str, Any]
) -> str:
    with db.session() as session:
        job = jobs.submit(
            session,
            settings,
            principal_of(customer),
            kind,
            stored(request),
            credits_needed=0,
            is_async=False,
        )
        return job.id


def job_status(client: TestClient, customer: Customer, job_id: str) -> str:
    return str(client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth()).json()["status"])


def test_a_killed_workers_work_directory_is_swept(
    client: TestClient, db: Database, settings: Settings, customer: Customer, tmp_path: Path
) -> None:
    marker = tmp_path / "attempts"
    job_id = submit(db, settings, customer, "test.sleep", {"seconds": 1.5, "marker": str(marker)})
    work = settings.data_dir / "work"
    wait_until(lambda: marker.exists() and marker.read_text().strip())
    [killed_dir] = list(work.glob(f"{job_id}*"))
    (killed_dir / "input").write_bytes(b"\0" * 1_000_000)  # as if an input had been fetched
    os.kill(int(marker.read_text().split()[0]), signal.SIGKILL)

    # Gone once the sweeper sees its process is dead, before the job's lease even runs out.
    wait_until(lambda: not killed_dir.exists(), timeout=10)
    wait_until(lambda: job_status(client, customer, job_id) == "completed", timeout=60)
    assert list(work.glob(f"{job_id}*")) == []


def test_stream_files_of_ended_jobs_are_swept(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    """An API node that died mid-stream leaves its job's stream behind; the job ends anyway."""
    job_id = submit(db, settings, customer, "test.echo", {"value": 1})
    wait_until(lambda: job_status(client, customer, job_id) == "completed")
    part, end = stream_path(settings, job_id), end_path(settings, job_id)
    part.parent.mkdir(parents=True, exist_ok=True)
    for path in (part, end):
        path.write_bytes(b"audio")
        a_minute_ago = time.time() - 60
        os.utime(path, (a_minute_ago, a_minute_ago))
    # A stream of a running job stays, however old.
    running = submit(db, settings, customer, "test.sleep", {"seconds": 4})
    wait_until(lambda: job_status(client, customer, running) == "processing")
    live = stream_path(settings, running)
    live.write_bytes(b"audio")
    os.utime(live, (time.time() - 60, time.time() - 60))

    wait_until(lambda: not part.exists() and not end.exists(), timeout=10)
    assert live.exists()
    wait_until(lambda: job_status(client, customer, running) == "completed")
    wait_until(lambda: not live.exists(), timeout=60)


def test_expired_idempotency_keys_and_stale_upload_files_are_swept(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    """Keys are kept 24 h, then purged with their stored answers; what a dead API process
    left in the data directory's tmp/ goes after an hour, a live upload's file stays."""
    response = client.post(
        "/api/v1/sandbox/credits",
        headers={**customer.auth(), "Idempotency-Key": "kept-then-purged"},
        json={"amount": 1},
    )
    assert response.status_code == 200, response.text
    tmp = settings.data_dir / "tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    left, live = tmp / "left-by-a-dead-server", tmp / "an-upload-in-progress"
    for path in (left, live):
        path.mkdir()
        (path / "upload").write_bytes(b"\0" * 1000)
    two_hours_ago = time.time() - 7200
    os.utime(left, (two_hours_ago, two_hours_ago))

    def stored_keys() -> int:
        with db.read_session() as session:
            return len(
                session.scalars(
                    select(IdempotencyRecord).where(
                        IdempotencyRecord.api_key_id == customer.sandbox_key_id
                    )
                ).all()
            )

    env = WorkerEnvironment(settings, db, os.getpid())
    sweep(env)
    assert stored_keys() == 1
    assert not left.exists()
    assert live.exists()
    with travel(timedelta(hours=24, seconds=1)):
        sweep(env)
    assert stored_keys() == 0
    shutil.rmtree(live)


def test_a_work_directory_is_not_left_when_its_owner_cannot_be_written(
    settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The disk fills between the directory and its owner file (seen in the full-disk fault
    # test): the directory goes with the error, never left for a sweeper that cannot place it.
    def disk_full(_path: Path, *_args: Any, **_kwargs: Any) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_text", disk_full)
    with pytest.raises(OSError, match="No space left") as raised:
        workdirs.create(settings, "job_diskfull", "owner-1")
    assert raised.value.errno == errno.ENOSPC
    assert [p.name for p in workdirs.work_root(settings).glob("job_diskfull.*")] == []


def test_an_owner_file_being_written_is_never_taken_for_no_owner(
    settings: Settings, db: Database
) -> None:
    # A sweep that reads the owner file between its creation and its content sees it empty:
    # the directory (a running attempt's) stays until the grace for unnamed ones has passed.
    workdir = workdirs.work_root(settings) / "job_beingwritten.x1"
    workdir.mkdir()
    (workdir / workdirs.OWNER_FILE).write_text("")
    workdirs.remove_orphans(db, settings)
    assert workdir.is_dir()
    workdirs.remove_orphans(db, settings, now=time.time() + 3600)
    assert not workdir.exists()


def test_a_worker_killed_before_naming_its_directory_leaves_nothing_behind(
    settings: Settings, db: Database
) -> None:
    """Killed between making its work directory and writing the owner file: the directory's
    name carries the dead process's pid, so the next sweep removes it at once; a live
    process's unnamed directory stays (it is about to write its owner)."""
    dead = subprocess.Popen(["true"])
    dead.wait()
    root = workdirs.work_root(settings)
    orphan, running = root / f"job_killedearly.{dead.pid}.x1", root / f"job_alive.{os.getpid()}.x2"
    orphan.mkdir()
    running.mkdir()
    workdirs.remove_orphans(db, settings)
    assert not orphan.exists()
    assert running.is_dir()
    created = workdirs.create(settings, "job_pid", "host:1:abcd")
    assert created.name.startswith(f"job_pid.{os.getpid()}.")
    shutil.rmtree(created)
    shutil.rmtree(running)


def test_a_new_work_directory_names_its_owner_and_nothing_else(settings: Settings) -> None:
    workdir = workdirs.create(settings, "job_named", "host:1:abcd")
    try:
        assert sorted(p.name for p in workdir.iterdir()) == [workdirs.OWNER_FILE]
        assert (workdir / workdirs.OWNER_FILE).read_text() == "host:1:abcd"
    finally:
        shutil.rmtree(workdir)


def test_a_killed_process_not_yet_reaped_counts_as_gone(settings: Settings, db: Database) -> None:
    """A worker killed with its parent becomes a zombie until init reaps it: it still answers
    signal 0, but its directory is over all the same."""
    killed = subprocess.Popen(["sleep", "60"])
    try:
        killed.send_signal(signal.SIGKILL)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{killed.pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
            assert time.monotonic() < deadline, "the child never became a zombie"
            time.sleep(0.01)
        os.kill(killed.pid, 0)  # still there, as far as signals go
        orphan = workdirs.work_root(settings) / f"job_zombie.{killed.pid}.x3"
        orphan.mkdir()
        workdirs.remove_orphans(db, settings)
        assert not orphan.exists()
    finally:
        killed.wait()
