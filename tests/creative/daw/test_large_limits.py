"""Bounds that only settings wider than the defaults reach (`daw.max_session_ms` up to 3 h,
`daw.max_output_bytes` up to 32 GiB): what a WAVE file holds (4 GiB a stem). The app of this module
runs with the widest settings; the export is refused at submit, once its track is measured."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.app import create_app
from soundstage.config import DawSettings, Settings
from soundstage.core.db import Database
from soundstage.media.audio import Audio
from tests.support.api import assert_error
from tests.support.daw import DAW, file_bytes
from tests.support.factories import create_customer
from tests.support.servers import FileServer

pytestmark = pytest.mark.services

WIDEST = DawSettings(max_session_ms=3 * 3_600_000, max_output_bytes=32 * 1024**3)


@pytest.fixture(scope="module")
def client(settings: Settings) -> Iterator[TestClient]:
    app = create_app(
        settings.model_copy(update={"daw": WIDEST, "fetch_allow_hosts": ["127.0.0.1"]})
    )
    with TestClient(app, raise_server_exceptions=False) as test_client:
        yield test_client


def test_a_stem_past_4_gib_is_refused_before_anything_is_reserved(
    client: TestClient, db: Database, files: FileServer, tmp_path: Path
) -> None:
    """8 channels of 24-bit audio at 48 kHz for 1 h 2 min 20 s (a cheap silent FLAC of 140 s
    placed at one hour) would be a 4.3 GB stem, whatever the session format: refused at
    submit, once the track is measured."""
    customer = create_customer(db, credits_each=100_000)
    silence = Audio(np.zeros((140 * 8_000, 8), dtype=np.float32), 8_000)
    url = files.put("long-silence.flac", file_bytes(silence, "flac", tmp_path, "PCM_16"))
    track = {"name": "Octo", "audio_url": url, "start_ms": 3_600_000}
    ledger_before = client.get("/api/v1/credits/ledger", headers=customer.auth()).json()["data"]
    for fmt, media in (("aaf", "embedded"), ("aaf", "linked"), ("omf", "linked")):
        response = client.post(
            DAW, headers=customer.auth(), json={"tracks": [track], "format": fmt, "media": media}
        )
        error = assert_error(response, 422, "stem_too_large")
        assert error["param"] == "tracks[0].audio_url"
    ledger = client.get("/api/v1/credits/ledger", headers=customer.auth()).json()["data"]
    assert ledger == ledger_before
    assert client.get("/api/v1/jobs?kind=daw", headers=customer.auth()).json()["data"] == []
