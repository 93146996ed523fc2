"""The request's bounds, one value inside and one outside each, through the real app: refused
ones are 422 naming the field (402 without credits) and leave no job; accepted ones are
cancelled at once (the export itself is tested in test_export)."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from tests.support.api import assert_error
from tests.support.daw import DAW, UPLOAD, with_upload
from tests.support.factories import Customer, create_customer

pytestmark = pytest.mark.services

URL = UPLOAD
CLIP_MS = 500


@pytest.fixture
def customer(db: Database) -> Customer:
    """Enough credits for a 30 min session (22,500)."""
    return create_customer(db, credits_each=30_000)


def body(**fields: Any) -> dict[str, Any]:
    tracks = fields.pop("tracks", [{"name": "Dialog", "audio_url": URL}])
    return {"tracks": tracks, **fields}


def track(**fields: Any) -> dict[str, Any]:
    return {"name": "Dialog", "audio_url": URL, **fields}


def accepted(client: TestClient, customer: Customer, payload: dict[str, Any]) -> dict[str, Any]:
    payload = with_upload(client, customer, payload)
    response = client.post(DAW, headers=customer.auth(), json=payload)
    assert response.status_code == 200, response.text
    job: dict[str, Any] = response.json()
    cancel = client.post(f"/api/v1/jobs/{job['job_id']}/cancel", headers=customer.auth())
    assert cancel.status_code == 200
    return job


def refused(
    client: TestClient,
    customer: Customer,
    payload: dict[str, Any],
    param: str | None,
    code: str = "parameter_invalid",
) -> dict[str, Any]:
    error = assert_error(client.post(DAW, headers=customer.auth(), json=payload), 422, code)
    assert error["param"] == param, error
    return error


@pytest.mark.parametrize(
    ("inside", "outside", "param"),
    [
        (body(sample_rate=44_100), body(sample_rate=22_050), "sample_rate"),
        (body(sample_rate=48_000), body(sample_rate=96_000), "sample_rate"),
        (body(bit_depth=16), body(bit_depth=32), "bit_depth"),
        (body(bit_depth=24), body(bit_depth=8), "bit_depth"),
        (body(format="omf"), body(format="wav"), "format"),
        (body(format="aaf"), body(format="AAF "), "format"),
        (body(media="linked"), body(media="copied"), "media"),
        (body(gain_mode="clip"), body(gain_mode="pre"), "gain_mode"),
        (body(tracks=[track()] * 1), body(tracks=[]), "tracks"),
        (
            body(tracks=[track(name=f"T{i}") for i in range(64)]),
            body(tracks=[track(name=f"T{i}") for i in range(65)]),
            "tracks",
        ),
        (
            body(tracks=[track(name="x" * 64)]),
            body(tracks=[track(name="x" * 65)]),
            "tracks[0].name",
        ),
        (body(tracks=[track(name="A")]), body(tracks=[track(name="   ")]), "tracks[0].name"),
        (body(tracks=[track(start_ms=0)]), body(tracks=[track(start_ms=-1)]), "tracks[0].start_ms"),
        (
            # Past the session's bound (30 min, test_limits) the schema's ceiling (3 h).
            body(tracks=[track(start_ms=1_800_000 - CLIP_MS)]),
            body(tracks=[track(start_ms=10_800_001)]),
            "tracks[0].start_ms",
        ),
        (
            body(tracks=[track(gain_db=-96)]),
            body(tracks=[track(gain_db=-96.5)]),
            "tracks[0].gain_db",
        ),
        (body(tracks=[track(gain_db=24)]), body(tracks=[track(gain_db=24.5)]), "tracks[0].gain_db"),
        (body(tracks=[track(pan=-1)]), body(tracks=[track(pan=-1.01)]), "tracks[0].pan"),
        (body(tracks=[track(pan=1)]), body(tracks=[track(pan=1.5)]), "tracks[0].pan"),
        (
            body(tracks=[track()]),  # the upload's URL: http on loopback here
            body(tracks=[track(audio_url="ftp://media.example.com/a.mp3")]),
            "tracks[0].audio_url",
        ),
        (body(name="x" * 64), body(name="x" * 65), "name"),
        (body(frame_rate="29.97df"), body(frame_rate="29.97 df"), "frame_rate"),
        (body(start_timecode="23:59:59:24"), body(start_timecode="24:00:00:00"), "start_timecode"),
        (body(start_timecode="00:00:00:24"), body(start_timecode="00:00:00:25"), "start_timecode"),
        (
            body(frame_rate="29.97df", start_timecode="00:10:00;00"),
            body(frame_rate="29.97df", start_timecode="00:11:00;00"),  # skipped by drop-frame
            "start_timecode",
        ),
    ],
)
def test_bounds(
    client: TestClient,
    customer: Customer,
    inside: dict[str, Any],
    outside: dict[str, Any],
    param: str,
) -> None:
    job = accepted(client, customer, inside)
    assert (job["status"], job["kind"]) == ("processing", "daw")
    # Reserved at submit: the session's length as the upload's header tells it.
    end_ms = max(t.get("start_ms", 0) for t in inside["tracks"])
    assert job["duration_ms"] == end_ms + CLIP_MS
    assert job["credits_reserved"] == rates.for_duration(Operation.DAW, end_ms + CLIP_MS)
    refused(client, customer, outside, param)


def test_names_unique_and_fields_known(client: TestClient, customer: Customer) -> None:
    duplicate = body(tracks=[track(name="Dialog"), track(name="Music"), track(name="dialog")])
    error = refused(client, customer, duplicate, "tracks[2].name")
    assert "tracks[0]" in error["message"]
    refused(
        client, customer, body(tracks=[track(volume=3)]), "tracks[0].volume", "parameter_unknown"
    )
    refused(client, customer, {"format": "aaf"}, "tracks", "parameter_missing")
    jobs = client.get("/api/v1/jobs?kind=daw", headers=customer.auth()).json()["data"]
    assert jobs == []  # nothing refused left a job behind


def test_without_credits_the_export_is_402(client: TestClient, db: Database) -> None:
    broke = create_customer(db, credits_each=0)
    response = client.post(DAW, headers=broke.auth(), json=with_upload(client, broke, body()))
    assert_error(response, 402, "insufficient_credits")
    assert client.get("/api/v1/jobs?kind=daw", headers=broke.auth()).json()["data"] == []
