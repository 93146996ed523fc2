"""No DNS oracle through the API: an input URL whose name does not resolve and one whose name
resolves to a private address get byte-identical error bodies (but for the request id), on
every surface that fetches a user's URL: fetched at submit (`Prefer: respond-async`), fetched
by the worker (synchronous), and ElevenLabs' `source_url`."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.voices.service import CatalogCounts
from tests.support.api import Answer
from tests.support.factories import Customer

pytestmark = pytest.mark.services

# RFC 6761: `.invalid` never resolves. `localhost` resolves to a loopback address.
UNRESOLVED = "http://nowhere.invalid/a.wav"
PRIVATE = "http://localhost/a.wav"
STT = "/api/v1/speech/stt"


def without_request_id(response: Answer) -> bytes:
    body = response.content
    request_id = response.headers["Request-Id"]
    assert request_id.encode() in body or b"request_id" not in body
    return body.replace(request_id.encode(), b"req_")


def native_async(client: TestClient, customer: Customer, url: str) -> Answer:
    headers = {**customer.auth(), "Prefer": "respond-async"}
    return client.post(STT, headers=headers, json={"audio_url": url})


def native_sync(client: TestClient, customer: Customer, url: str) -> Answer:
    return client.post(STT, headers=customer.auth(), json={"audio_url": url})


def dubbing(client: TestClient, customer: Customer, url: str) -> Answer:
    body = {"media_url": url, "source_language": "en", "target_language": "es"}
    return client.post("/api/v1/speech/dubbing", headers=customer.auth(), json=body)


def elevenlabs(client: TestClient, customer: Customer, url: str) -> Answer:
    return client.post(
        "/elevenlabs/v1/speech-to-text",
        headers={"xi-api-key": customer.sandbox_key},
        data={"model_id": "scribe_v1", "source_url": url},
    )


@pytest.mark.parametrize(
    ("send", "param"),
    [
        (native_async, "audio_url"),
        (native_sync, "audio_url"),
        (dubbing, "media_url"),
        # The surface's errors name the native job's field, as its other fetch errors do.
        (elevenlabs, "audio_url"),
    ],
    ids=["stt-async", "stt-sync", "dubbing", "elevenlabs"],
)
def test_an_unresolved_name_and_a_private_address_answer_alike(
    client: TestClient,
    customer: Customer,
    worker: subprocess.Popen[bytes],
    demo_catalog: CatalogCounts,
    send: Callable[[TestClient, Customer, str], Answer],
    param: str,
) -> None:
    unresolved, private = send(client, customer, UNRESOLVED), send(client, customer, PRIVATE)
    assert unresolved.status_code == private.status_code == 422, private.text
    assert without_request_id(unresolved) == without_request_id(private)
    body: dict[str, Any] = private.json()
    error = body.get("error") or body["detail"]
    assert error["message"] == f"{param} must resolve to public internet addresses only"
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (1000, 0)
