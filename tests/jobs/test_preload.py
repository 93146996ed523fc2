"""Models preloaded by each worker process as it starts (`jobs.preload_models`), before its
first job: the first transcription or sound effect finds them loaded. The suite's workers
preload nothing (tests/conftest.py): a worker that does is started here."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from tests.support.factories import create_customer, principal_of
from tests.support.jobs import submit, wait_for
from tests.support.processes import REPO_ROOT, settings_env

pytestmark = [pytest.mark.services, pytest.mark.slow]


@pytest.fixture
def worker(settings: Settings, tmp_path: Path) -> Iterator[tuple[subprocess.Popen[bytes], Path]]:
    """A `soundstage worker` with one process that preloads (the English-only tiny.en as its
    default speech-to-text model: the smaller load), logging at info to a file."""
    jobs = settings.jobs.model_copy(update={"preload_models": True})
    env = settings_env(settings) | {
        "SOUNDSTAGE_JOBS": jobs.model_dump_json(),
        "SOUNDSTAGE_STT__DEFAULT_MODEL": "tiny.en",
        "SOUNDSTAGE_LOG_LEVEL": "info",
    }
    log = tmp_path / "worker.log"
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "soundstage.cli", "worker", "--processes", "1"],
            env=env,
            cwd=REPO_ROOT,
            stderr=out,
        )
    try:
        yield proc, log
    finally:
        proc.terminate()  # the graceful stop
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()


def test_a_worker_process_has_the_default_models_before_its_first_job(
    settings: Settings,
    db: Database,
    client: TestClient,
    worker: tuple[subprocess.Popen[bytes], Path],
) -> None:
    proc, log = worker
    customer = create_customer(db)
    # Submitted at once: the process takes it only once its models are loaded.
    job_id = submit(db, settings, principal_of(customer), "test.models", {})
    job = wait_for(client, customer, job_id, "completed", "failed", timeout=120)
    assert job["status"] == "completed", job
    assert set(job["result"]["loaded"]) >= {
        "speech-to-text model: tiny.en",
        "text embedder: minilm",
    }
    written = log.read_text()
    preloaded = written.index("preloaded models in")
    assert "preloading models: speech-to-text model, sound-effect prompt index" in written
    assert "speech-to-text model, sound-effect prompt index" in written[preloaded:]
    assert preloaded < written.index(f"job {job_id} (test.models) attempt 1")
    assert proc.poll() is None
