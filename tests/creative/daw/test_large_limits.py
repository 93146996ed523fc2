"""Bounds that only settings wider than the defaults reach (`daw.max_session_ms` up to 3 h,
`daw.max_output_bytes` up to 32 GiB): what a WAVE file holds (4 GiB a stem). The app and the
worker of this module run with the widest settings."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import DawSettings, Settings
from soundstage.core.audio import Audio
from soundstage.core.db import Database
from tests.conftest import create_customer, run_worker
from tests.creative.daw.conftest import export, file_bytes
from tests.speech.conftest import FileServer

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker")]

WIDEST = DawSettings(max_session_ms=3 * 3_600_000, max_output_bytes=32 * 1024**3)


@pytest.fixture(scope="module")
def client(settings: Settings) -> Iterator[TestClient]:
    app = create_app(settings.model_copy(update={"daw": WIDEST}))
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


@pytest.fixture(scope="module")
def worker(settings: Settings) -> Iterator[subprocess.Popen[bytes]]:
    yield from run_worker(settings, SOUNDSTAGE_DAW=WIDEST.model_dump_json())


def test_a_stem_past_4_gib_is_refused_before_anything_is_reserved(
    client: TestClient, db: Database, files: FileServer, tmp_path: Path
) -> None:
    """8 channels of 24-bit audio at 48 kHz for 1 h 2 min 20 s (a cheap silent FLAC of 140 s
    placed at one hour) would be a 4.3 GB stem, whatever the session format."""
    customer = create_customer(db, credits_each=100_000)
    silence = Audio(np.zeros((140 * 8_000, 8), dtype=np.float32), 8_000)
    url = files.put("long-silence.flac", file_bytes(silence, "flac", tmp_path, "PCM_16"))
    track = {"name": "Octo", "audio_url": url, "start_ms": 3_600_000}
    ledger_before = client.get("/api/v1/credits/ledger", headers=customer.auth()).json()["data"]
    for fmt, media in (("aaf", "embedded"), ("aaf", "linked"), ("omf", "linked")):
        job = export(client, customer, {"tracks": [track], "format": fmt, "media": media})
        assert job["status"] == "failed", job
        assert (job["error"]["code"], job["error"]["param"]) == (
            "stem_too_large", "tracks[0].audio_url")  # fmt: skip
        assert job["credits_used"] == 0
    ledger = client.get("/api/v1/credits/ledger", headers=customer.auth()).json()["data"]
    assert ledger == ledger_before
