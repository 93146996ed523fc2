"""Asynchronous jobs through the real app: every asynchronous submission (dubbing, DAW export,
speech-to-text with `Prefer: respond-async`) answers the same accepted job with its credits
held, and a cancelled one is announced to a real receiver by its kind's cancelled event
(`dubbing.cancelled`, `daw.cancelled`, `job.cancelled`) and releases them. No worker runs
here: the jobs stay queued until cancelled."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.jobs.schemas import JobAccepted
from soundstage.media.audio import Audio
from soundstage.voices.service import CatalogCounts
from tests.support.audio import audio_bytes
from tests.support.factories import Customer, create_customer
from tests.support.servers import FileServer, Receiver
from tests.support.webhooks import deliveries, drive, register

pytestmark = pytest.mark.services

SECONDS = 2


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FileServer]:
    server = FileServer(tmp_path_factory.mktemp("async-inputs"))
    yield server
    server.server.shutdown()


@pytest.fixture(scope="module")
def tone_url(files: FileServer) -> str:
    t = np.arange(SECONDS * 16_000) / 16_000
    tone = (0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32).reshape(-1, 1)
    return files.put("tone.wav", audio_bytes(Audio(tone, 16_000)))


def submissions(tone_url: str) -> dict[str, tuple[str, dict[str, Any], dict[str, str]]]:
    """Each asynchronous operation: its path, a body and the headers that make it async."""
    return {
        "dubbing": (
            "/api/v1/speech/dubbing",
            {"media_url": tone_url, "source_language": "en", "target_language": "es"},
            {},
        ),
        "daw": (
            "/api/v1/creative/daw",
            {"tracks": [{"name": "Tone", "audio_url": tone_url}]},
            {},
        ),
        "stt": ("/api/v1/speech/stt", {"audio_url": tone_url}, {"Prefer": "respond-async"}),
    }


PRICES = {
    "dubbing": rates.for_duration(Operation.DUBBING_STANDARD, SECONDS * 1000),
    "daw": rates.for_duration(Operation.DAW, SECONDS * 1000),
    "stt": rates.for_duration(Operation.STT, SECONDS * 1000),
}


def balance(client: TestClient, customer: Customer) -> tuple[int, int]:
    body = client.get("/api/v1/credits", headers=customer.auth()).json()
    return body["balance"], body["reserved"]


def submit(client: TestClient, customer: Customer, tone_url: str, kind: str) -> dict[str, Any]:
    path, body, headers = submissions(tone_url)[kind]
    response = client.post(path, headers={**customer.auth(), **headers}, json=body)
    assert response.status_code == 200, response.text
    accepted: dict[str, Any] = response.json()
    return accepted


def test_every_asynchronous_submission_answers_the_same_job_with_its_credits_held(
    client: TestClient, db: Database, demo_catalog: CatalogCounts, tone_url: str
) -> None:
    customer = create_customer(db, credits_each=10_000)
    held = 0
    shapes = set()
    for kind in ("dubbing", "daw", "stt"):
        accepted = submit(client, customer, tone_url, kind)
        shapes.add(frozenset(accepted))
        assert (accepted["object"], accepted["kind"], accepted["status"]) == (
            "job", kind, "processing")  # fmt: skip
        assert accepted["estimated_completion_ms"] > 0
        assert accepted["duration_ms"] == SECONDS * 1000
        # What the answer says is held is what the balance holds.
        assert accepted["credits_reserved"] == PRICES[kind]
        held += PRICES[kind]
        assert balance(client, customer) == (10_000 - held, held)
        job = client.get(f"/api/v1/jobs/{accepted['job_id']}", headers=customer.auth()).json()
        assert job["credits_reserved"] == accepted["credits_reserved"]
        assert job["created_at"] == accepted["created_at"]
    assert shapes == {frozenset(JobAccepted.model_fields)}


def test_a_cancelled_job_is_announced_by_its_kinds_cancelled_event(
    client: TestClient,
    db: Database,
    settings: Settings,
    demo_catalog: CatalogCounts,
    tone_url: str,
    receiver: Receiver,
    make_receiver: Any,
    dispatched: list[str],
) -> None:
    customer = create_customer(db, credits_each=10_000)
    endpoint = register(client, customer, receiver)
    only_daw = make_receiver()
    register(client, customer, only_daw, enabled_events=["daw.cancelled"])
    expected = {"dubbing": "dubbing.cancelled", "daw": "daw.cancelled", "stt": "job.cancelled"}
    job_ids = {}
    for kind in expected:
        job_ids[kind] = submit(client, customer, tone_url, kind)["job_id"]
        cancelled = client.post(f"/api/v1/jobs/{job_ids[kind]}/cancel", headers=customer.auth())
        assert cancelled.status_code == 200, cancelled.text
        assert cancelled.json()["status"] == "cancelled"
        # Cancelling again answers the job again, and announces nothing more.
        again = client.post(f"/api/v1/jobs/{job_ids[kind]}/cancel", headers=customer.auth())
        assert again.json()["status"] == "cancelled"
    assert balance(client, customer) == (10_000, 0)

    drive(db, settings, dispatched)
    assert all(request.error is None for request in receiver.requests)
    received = {request.payload["type"]: request.payload["data"] for request in receiver.requests}
    assert sorted(received) == sorted(expected.values())  # one event per cancelled job
    for kind, event_type in expected.items():
        data = received[event_type]
        assert (data["job_id"], data["kind"], data["status"]) == (
            job_ids[kind], kind, "cancelled")  # fmt: skip
        assert (data["credits_used"], data["result"], data["error"]) == (0, None, None)
    assert [request.payload["type"] for request in only_daw.requests] == ["daw.cancelled"]
    assert {d["event_type"] for d in deliveries(client, customer, endpoint["id"])} == set(
        expected.values()
    )
    events = client.get("/api/v1/events?type=job.cancelled", headers=customer.auth()).json()
    assert [event["data"]["job_id"] for event in events["data"]] == [job_ids["stt"]]
