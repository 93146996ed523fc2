"""Dubbing's contract around the pipeline: the webhook and credits of each tier, failure
charging nothing, bad requests refused before any work, and the supported pairs."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.media.audio import Audio
from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error, every_page
from tests.support.audio import audio_bytes, understated_mkv
from tests.support.audio_fixtures import librivox_clips
from tests.support.dubbing import DUBBING, submit, video_with, wait
from tests.support.factories import Customer, create_customer
from tests.support.servers import FileServer, Receiver
from tests.support.stores import account_media

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]


@pytest.fixture
def rich(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=20_000)


@pytest.fixture
def receiver() -> Any:
    server = Receiver()
    yield server
    server.close()


def subscribe(client: TestClient, customer: Customer, receiver: Receiver) -> None:
    response = client.post(
        "/api/v1/webhooks/endpoints",
        headers=customer.auth(),
        json={"url": receiver.url, "enabled_events": ["dubbing.completed", "dubbing.failed"]},
    )
    assert response.status_code == 200, response.text
    receiver.secret = response.json()["secret"]


def event(receiver: Receiver, timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if receiver.requests:
            received = receiver.requests[0]
            assert received.error is None, received.error
            return dict(received.payload)
        time.sleep(0.1)
    raise TimeoutError("no webhook arrived")


def credits(client: TestClient, customer: Customer) -> dict[str, int]:
    return dict(client.get("/api/v1/credits", headers=customer.auth()).json())


@pytest.mark.slow
def test_premium_dub_is_charged_at_its_rate_and_announced_by_a_signed_webhook(
    client: TestClient, files: FileServer, rich: Customer, receiver: Receiver
) -> None:
    subscribe(client, rich, receiver)
    clip = librivox_clips()[1]
    url = files.put(clip.path.name, clip.path.read_bytes())
    answer = submit(
        client,
        rich,
        media_url=url,
        source_language="en-GB",
        target_language="es",
        tier="premium",
    )
    price = rates.for_duration(Operation.DUBBING_PREMIUM, answer["duration_ms"])
    assert price == 2 * rates.for_duration(Operation.DUBBING_STANDARD, answer["duration_ms"])
    assert answer["credits_reserved"] == price
    assert credits(client, rich)["reserved"] == price
    job = wait(client, rich, answer["job_id"])
    assert job["status"] == "completed", job
    assert job["credits_used"] == price
    assert credits(client, rich) == {
        **credits(client, rich),
        "balance": 20_000 - price,
        "reserved": 0,
    }
    payload = event(receiver)
    assert payload["type"] == "dubbing.completed"
    data = payload["data"]
    assert data["job_id"] == answer["job_id"]
    result = data["result"]
    assert result["output_url"].startswith("http")
    assert "?" in result["output_url"]  # signed
    assert result["source_transcript_url"] != result["target_transcript_url"]
    assert result["tier"] == "premium"
    assert set(result["stage_ms"]) >= {"separating", "transcribing", "synthesizing"}


@pytest.mark.slow
def test_a_failed_dub_charges_nothing_and_sends_dubbing_failed(
    client: TestClient, files: FileServer, rich: Customer, receiver: Receiver
) -> None:
    subscribe(client, rich, receiver)
    # Three seconds of a tone: media that decodes, with no speech to dub.
    t = np.arange(3 * 16_000) / 16_000
    tone = Audio((0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32).reshape(-1, 1), 16_000)
    answer = submit(
        client,
        rich,
        media_url=files.put("tone.wav", audio_bytes(tone)),
        source_language="en",
        target_language="es",
    )
    job = wait(client, rich, answer["job_id"])
    assert job["status"] == "failed"
    assert job["error"]["code"] == "no_speech"
    assert job["credits_used"] in (0, None)
    assert credits(client, rich)["balance"] == 20_000
    assert credits(client, rich)["reserved"] == 0
    payload = event(receiver)
    assert payload["type"] == "dubbing.failed"
    assert payload["data"]["error"]["code"] == "no_speech"


def test_bad_requests_are_refused_before_any_work(
    client: TestClient, files: FileServer, rich: Customer, db: Database
) -> None:
    clip = librivox_clips()[1]
    url = files.put(clip.path.name, clip.path.read_bytes())
    good = {"media_url": url, "source_language": "en", "target_language": "es"}

    def refused(changes: dict[str, Any], status: int, code: str, param: str | None) -> None:
        body = {k: v for k, v in {**good, **changes}.items() if v is not None}
        response = client.post(DUBBING, headers=rich.auth(), json=body)
        assert_error(response, status, code)
        assert response.json()["error"]["param"] == param

    refused({"target_language": "de"}, 422, "unsupported_language_pair", "target_language")
    refused({"target_language": "ja"}, 422, "unsupported_language_pair", "target_language")
    refused({"target_language": "en"}, 422, "unsupported_language_pair", "target_language")
    refused({"target_language": "e!"}, 422, "unsupported_language_pair", "target_language")
    refused({"source_language": "tlh"}, 422, "unsupported_language_pair", "source_language")
    refused({"tier": "gold"}, 422, "parameter_invalid", "tier")
    refused({"preserve_voice": "perhaps"}, 422, "parameter_invalid", "preserve_voice")
    refused({"media_url": "ftp://example.com/a.mp3"}, 422, "parameter_invalid", "media_url")
    refused({"media_url": "http://10.0.0.1/a.wav"}, 422, "url_not_allowed", "media_url")
    refused({"media_url": "http://127.0.0.1:9/a.wav"}, 422, "media_unreachable", "media_url")
    refused({"media_url": files.put("notes.txt", b"not media")}, 422, "invalid_media", "media_url")
    # A QuickTime file (dubbed into a MOV) of FFV1 video, which a MOV cannot hold.
    second = Audio(np.zeros((16_000, 1), dtype=np.float32), 16_000)
    ffv1 = video_with(second, 1, codec="ffv1", size=(64, 48), fps=5)
    brand = ffv1.index(b"ftypisom") + 4
    quicktime = ffv1[:brand] + b"qt  " + ffv1[brand + 4 :]
    refused({"media_url": files.put("ffv1.mov", quicktime)}, 422, "invalid_media", "media_url")
    refused({"target_language": None}, 422, "parameter_missing", "target_language")
    assert credits(client, rich) == {**credits(client, rich), "balance": 20_000, "reserved": 0}
    # A balance short of the media's price: 402, nothing queued.
    poor = create_customer(db, credits_each=10)
    response = client.post(DUBBING, headers=poor.auth(), json=good)
    assert_error(response, 402, "insufficient_credits")
    jobs = client.get("/api/v1/jobs", headers=poor.auth()).json()["data"]
    assert jobs == []


def test_the_supported_pairs_are_listed(client: TestClient, rich: Customer) -> None:
    listed = list(every_page(client, rich, f"{DUBBING}/languages"))  # the list is paged
    pairs = {(p["source_language"], p["target_language"]): p for p in listed}
    assert len(pairs) == len(listed) > 100
    assert pairs[("en", "es")]["translator"] == "apertium"
    assert pairs[("en", "es")]["via"] == []
    assert pairs[("en", "fr")]["via"] == ["es"]
    assert pairs[("de", "en")]["translator"] == "whisper"
    assert pairs[("es", "en")]["voices"] >= 6
    assert ("en", "de") not in pairs
    assert ("en", "ja") not in pairs
    assert client.get(f"{DUBBING}/languages").status_code == 401


def test_a_header_understating_the_length_is_charged_as_decoded(
    client: TestClient, files: FileServer, db: Database
) -> None:
    t = np.arange(4 * 16_000) / 16_000
    tone = Audio((0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32).reshape(-1, 1), 16_000)
    body = {"source_language": "en", "target_language": "es"}
    # A header saying it lasts nothing would be reserved nothing: refused.
    customer = create_customer(db, credits_each=60)
    response = client.post(
        DUBBING,
        headers=customer.auth(),
        json={**body, "media_url": files.put("nothing.mkv", understated_mkv(tone, 0.4))},
    )
    assert_error(response, 422, "invalid_media")
    assert response.json()["error"]["param"] == "media_url"
    # A header saying 1 s is reserved 25 credits at submit; the 4 s it holds cost 100, more
    # than the balance: the job fails 402 once decoded, charged nothing.
    url = files.put("one-second.mkv", understated_mkv(tone, 1000))
    answer = submit(client, customer, media_url=url, **body)
    assert answer["credits_reserved"] == rates.for_duration(Operation.DUBBING_STANDARD, 1000)
    job = wait(client, customer, answer["job_id"])
    assert job["status"] == "failed", job
    assert job["error"]["code"] == "insufficient_credits"
    assert credits(client, customer) == {**credits(client, customer), "balance": 60, "reserved": 0}


def test_a_dub_refused_402_keeps_no_copy_of_the_media(
    client: TestClient, files: FileServer, db: Database, settings: Settings
) -> None:
    clip = librivox_clips()[1]
    url = files.put(clip.path.name, clip.path.read_bytes())
    poor = create_customer(db, credits_each=10)
    response = client.post(
        DUBBING,
        headers=poor.auth(),
        json={"media_url": url, "source_language": "en", "target_language": "es"},
    )
    assert_error(response, 402, "insufficient_credits")
    assert account_media(settings, poor.account_id) == []
    # The same request with the credits for it keeps its copy for the job.
    rich = create_customer(db, credits_each=20_000)
    answer = submit(client, rich, media_url=url, source_language="en", target_language="es")
    assert account_media(settings, rich.account_id) == [clip.path.name]
    client.post(f"/api/v1/jobs/{answer['job_id']}/cancel", headers=rich.auth())
