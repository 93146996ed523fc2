"""The DAW export's output bounds (settings `daw.*`): the session's length (the end of the last
clip, 30 min) and the export's size (2 GiB), refused at submit with 422 naming the field: from
the request and the uploads' known durations before anything is fetched, then from every input
as fetched and measured (the job checks them again as decoded)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.creative.daw import limits
from soundstage.creative.daw.schemas import DawExportRequest
from soundstage.media.audio import Audio
from tests.support.api import assert_error
from tests.support.audio import wav_bytes
from tests.support.daw import DAW, file_bytes
from tests.support.factories import Customer, create_customer
from tests.support.servers import FileServer
from tests.support.stores import account_media_sizes

pytestmark = pytest.mark.services

URL = "https://media.example.com/track.wav"
LIMIT_MS = 30 * 60_000
CLIP_MS = 500


def media_bytes(settings: Settings, customer: Customer) -> int:
    return sum(account_media_sizes(settings, customer.account_id))


def daw_jobs(client: TestClient, customer: Customer) -> list[Any]:
    jobs: list[Any] = client.get("/api/v1/jobs?kind=daw", headers=customer.auth()).json()["data"]
    return jobs


def accepted(client: TestClient, customer: Customer, body: dict[str, Any]) -> None:
    response = client.post(DAW, headers=customer.auth(), json=body)
    assert response.status_code == 200, response.text
    job_id = response.json()["job_id"]
    assert client.post(f"/api/v1/jobs/{job_id}/cancel", headers=customer.auth()).status_code == 200


def refused(
    client: TestClient, customer: Customer, body: dict[str, Any], code: str, param: str
) -> None:
    error = assert_error(client.post(DAW, headers=customer.auth(), json=body), 422, code)
    assert error["param"] == param, error


def test_the_issue_request_is_refused_at_submit_and_stores_nothing(
    client: TestClient, settings: Settings, db: Database
) -> None:
    """Issue 17: one 64 KB upload used twice, the second at 30 min, made a 1 GB ZIP."""
    customer = create_customer(db, credits_each=100_000)
    clip = wav_bytes(seconds=2.0472)  # 65,554 bytes
    uploaded = client.post(
        "/api/v1/uploads", headers=customer.auth(), files={"file": ("clip.wav", clip)}
    )
    assert uploaded.status_code == 200, uploaded.text
    url = uploaded.json()["url"]
    stored = media_bytes(settings, customer)
    body = {
        "tracks": [
            {"name": "A", "audio_url": url},
            {"name": "B", "audio_url": url, "start_ms": 1_800_000},
        ]
    }
    refused(client, customer, body, "session_too_long", "tracks[1].start_ms")
    assert daw_jobs(client, customer) == []
    assert media_bytes(settings, customer) == stored
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (100_000, 0)


@pytest.fixture(scope="module")
def clip_url(files: FileServer) -> str:
    """Another server's 0.5 s clip, fetched and measured at submit."""
    return files.put("clip.wav", wav_bytes(seconds=CLIP_MS / 1000))


@pytest.fixture
def rich(db: Database) -> Customer:
    return create_customer(db, credits_each=100_000)


def test_the_session_ends_at_the_end_of_its_last_clip(
    client: TestClient, rich: Customer, clip_url: str
) -> None:
    """An upload's duration is known before anything is fetched; another server's file's
    once it is fetched at submit: both bound the session the same way."""
    clip = client.post(
        "/api/v1/uploads", headers=rich.auth(), files={"file": ("clip.wav", wav_bytes())}
    ).json()
    fits = LIMIT_MS - clip["duration_ms"]

    def at(start_ms: int, url: str = clip["url"]) -> dict[str, Any]:
        return {"tracks": [{"name": "A", "audio_url": url, "start_ms": start_ms}]}

    accepted(client, rich, at(fits))
    refused(client, rich, at(fits + 1), "session_too_long", "tracks[0].start_ms")
    accepted(client, rich, at(LIMIT_MS - CLIP_MS, clip_url))
    refused(client, rich, at(LIMIT_MS - CLIP_MS + 1, clip_url), "session_too_long",
            "tracks[0].start_ms")  # fmt: skip


def test_the_export_size_is_bounded_at_submit(
    client: TestClient, rich: Customer, clip_url: str
) -> None:
    """A 29 min session of mono 24-bit stems at 48 kHz: 250 MB a stem, twice with media
    embedded. Four fit in 2 GiB (2.00 GB), five do not (2.51 GB); linked, five do."""

    def tracks(count: int, **options: Any) -> dict[str, Any]:
        clips = [{"name": f"T{i}", "audio_url": clip_url} for i in range(count - 1)]
        last = {"name": "Last", "audio_url": clip_url, "start_ms": 29 * 60_000 - CLIP_MS}
        return {"tracks": [*clips, last], **options}

    accepted(client, rich, tracks(4))
    refused(client, rich, tracks(5), "export_too_large", "tracks")
    accepted(client, rich, tracks(5, media="linked"))
    # A panned track needs two channels: one panned track of the four passes the bound.
    panned = tracks(4)
    panned["tracks"][0]["pan"] = 0.5
    refused(client, rich, panned, "export_too_large", "tracks")


def test_the_bounds_come_from_settings(settings: Settings) -> None:
    wide = settings.model_copy(
        update={"daw": settings.daw.model_copy(update={"max_session_ms": 7_200_000})}
    )
    body = DawExportRequest.model_validate(
        {"tracks": [{"name": "A", "audio_url": URL, "start_ms": 3_600_000}], "media": "linked"}
    )
    limits.check_request(None, wide, body)  # type: ignore[arg-type]  # no own media: no query
    assert limits.estimated_bytes(48_000, [1, 2], 24, "embedded") == 2 * 48_000 * 3 * 3
    assert limits.estimated_bytes(48_000, [1, 2], 16, "linked") == 48_000 * 2 * 3


def test_a_session_longer_than_known_before_the_fetch_is_refused_at_submit(
    client: TestClient, settings: Settings, db: Database, files: FileServer, tmp_path: Path
) -> None:
    """Another server's 31 min file (silence at 8 kHz: a small FLAC) is fetched and measured
    at submit: 422 naming the track, and no job, reservation or stored bytes are left."""
    customer = create_customer(db, credits_each=100_000)
    silence = Audio(np.zeros((31 * 60 * 8_000, 1), dtype=np.float32), 8_000)
    url = files.put("long.flac", file_bytes(silence, "flac", tmp_path, "PCM_16"))
    refused(
        client,
        customer,
        {"tracks": [{"name": "Long", "audio_url": url}]},
        "session_too_long",
        "tracks[0].audio_url",
    )
    assert daw_jobs(client, customer) == []
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (100_000, 0)
    assert media_bytes(settings, customer) == 0
