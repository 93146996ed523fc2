"""POST /api/v1/speech/tts/stream through a real HTTP server (the test client would buffer the
whole body), `timestamps: true`, and the voices' public previews."""

from __future__ import annotations

import io
import re
import time
from typing import Any

import av
import httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.jobs.streams import stream_path
from soundstage.voices.previews import sample_text
from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer
from tests.support.streams import HANG_UP_TEXT, charges_of, read_until

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

STREAM = "/api/v1/speech/tts/stream"
# Languages written without spaces between words.
UNSPACED = frozenset({"cmn", "zh", "ja"})
PARAGRAPH = " ".join(
    [
        "The lighthouse keeper climbed the narrow stairs before dawn.",
        "Outside, the sea was grey and restless under a low sky.",
        "He checked the lamp, wiped the glass, and wrote the date in his book.",
        "A fishing boat rounded the point, its engine coughing in the cold.",
        "By seven the fog had lifted and the harbour was busy again.",
        "Gulls argued over scraps on the quay while the market opened.",
        "He walked down to the village for bread, milk and the newspaper.",
        "Nobody there remembered a quieter morning in years.",
    ]
)


@pytest.fixture
def rich(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=20_000)


def decoded_seconds(data: bytes) -> float:
    with av.open(io.BytesIO(data), "r") as container:
        stream = container.streams.audio[0]
        frames = sum(frame.samples for frame in container.decode(stream))
        return frames / stream.rate


def balance(client: TestClient, customer: Customer) -> tuple[int, int]:
    body = client.get("/api/v1/credits", headers=customer.auth()).json()
    return body["balance"], body["reserved"]


def job_status(client: TestClient, customer: Customer, job_id: str) -> dict[str, Any]:
    response = client.get(f"/api/v1/jobs/{job_id}", headers=customer.auth())
    assert response.status_code == 200, response.text
    return dict(response.json())


@pytest.mark.parametrize("fmt", ["mp3", "wav", "flac"])
def test_stream_sends_audio_before_the_text_is_done(
    server: str, client: TestClient, rich: Customer, fmt: str
) -> None:
    body = {"voice_id": "voice_joe", "text": PARAGRAPH, "format": fmt}
    chunks: list[bytes] = []
    with httpx.stream(
        "POST", server + STREAM, json=body, headers=rich.auth(), timeout=120
    ) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith(
            {"mp3": "audio/mpeg", "wav": "audio/wav", "flac": "audio/flac"}[fmt]
        )
        assert "content-length" not in response.headers
        job_id = response.headers["soundstage-job-id"]
        stream = response.iter_bytes()
        chunks.append(next(stream))
        # The first bytes came while the job was still speaking the rest of the text.
        status = job_status(client, rich, job_id)
        assert status["status"] in ("queued", "processing"), status
        chunks.extend(stream)
    data = b"".join(chunks)
    # The response ends with the audio; the job then stores the file.
    job = wait_for_status(client, rich, job_id, "completed")
    assert job["credits_used"] == len(PARAGRAPH)
    # The stream decodes to the stored file's audio (MP3 may carry LAME's padding).
    stored = job["result"]["duration_ms"] / 1000
    assert abs(decoded_seconds(data) - stored) <= (0.08 if fmt == "mp3" else 0.03)
    assert stored > 15
    assert not stream_path(client.app.state.settings, job_id).exists()  # type: ignore[attr-defined]


def test_stream_charges_once_and_errors_before_audio_are_json(
    server: str, client: TestClient, db: Database, demo_catalog: CatalogCounts
) -> None:
    customer = create_customer(db, credits_each=200)
    text = "Short and sweet."
    with httpx.Client(base_url=server, headers=customer.auth(), timeout=60) as http:
        response = http.post(STREAM, json={"voice_id": "voice_kal", "text": text})
        assert response.status_code == 200
        assert decoded_seconds(response.content) > 0.5
        assert balance(client, customer) == (200 - len(text), 0)

        cases: list[tuple[dict[str, Any], int, str]] = [
            ({"text": "x" * 190}, 402, "insufficient_credits"),
            ({"voice_id": "voice_nobody"}, 404, "voice_not_found"),
            ({"speed": 2.5}, 422, "parameter_invalid"),
            ({"text": "x" * 5001}, 422, "parameter_invalid"),
        ]
        for bad, status, code in cases:
            response = http.post(STREAM, json={"voice_id": "voice_kal", "text": text, **bad})
            assert response.status_code == status, response.text
            assert response.headers["content-type"] == "application/json"
            assert response.json()["error"]["code"] == code
        # An idempotency key does not stop the stream (streams are not replayed).
        response = http.post(
            STREAM,
            json={"voice_id": "voice_kal", "text": text},
            headers={"Idempotency-Key": "stream-1"},
        )
        assert response.status_code == 200
        assert decoded_seconds(response.content) > 0.5
    assert balance(client, customer) == (200 - 2 * len(text), 0)


def test_an_abandoned_stream_is_cancelled_and_charged_for_what_it_sent(
    server: str, client: TestClient, db: Database, demo_catalog: CatalogCounts
) -> None:
    customer = create_customer(db, credits_each=5000)
    text = (PARAGRAPH + " ") * 4
    with httpx.stream(
        "POST",
        server + STREAM,
        json={"voice_id": "voice_joe", "text": text},
        headers=customer.auth(),
        timeout=60,
    ) as response:
        assert response.status_code == 200
        job_id = response.headers["soundstage-job-id"]
        next(response.iter_bytes())
    # The client hung up after the first bytes: the job is cancelled, charged for the
    # sentences released to the stream by then (at least the first), the rest released.
    charged = charges_of(server, customer, job_id)
    assert job_status(client, customer, job_id)["status"] == "cancelled"
    first = len("The lighthouse keeper climbed the narrow stairs before dawn.")
    assert len(charged) == 1
    assert first <= charged[0] < len(text) // 2, charged
    assert balance(client, customer) == (5000 - charged[0], 0)


@pytest.mark.parametrize("share", [0.5, 0.9])
def test_a_client_that_hangs_up_pays_for_the_audio_it_was_sent(
    server: str, db: Database, demo_catalog: CatalogCounts, share: float
) -> None:
    """Every byte of audio handed to a client is paid for: a client that reads `share` of
    the audio then closes the connection is charged at least that share of the price (it
    was free when the charge waited for the last, short, sentence)."""
    customer = create_customer(db, credits_each=1000)
    body = {"voice_id": "voice_alan", "text": HANG_UP_TEXT, "format": "wav"}

    def open_stream() -> Any:
        return httpx.stream("POST", server + STREAM, json=body, headers=customer.auth(), timeout=60)

    # flite reads a text the same way every time: a first stream read whole says how many
    # bytes the audio has.
    with open_stream() as response:
        whole = len(response.read())
        first = response.headers["soundstage-job-id"]
    assert charges_of(server, customer, first) == [len(HANG_UP_TEXT)]

    with open_stream() as response:
        job_id = response.headers["soundstage-job-id"]
        read_until(response.iter_raw(), round(whole * share))
    charged = charges_of(server, customer, job_id)
    assert len(charged) == 1
    assert share * len(HANG_UP_TEXT) <= charged[0] <= len(HANG_UP_TEXT), (share, charged)


def test_a_stream_read_to_its_last_byte_is_charged_though_the_client_hangs_up(
    server: str, client: TestClient, db: Database, demo_catalog: CatalogCounts
) -> None:
    """With `timestamps`, the job still aligns the words and stores the file after the last
    audio byte: a client that hangs up then holds all the audio, so it has been charged (the
    last bytes are released only once the charge is made) and the job goes on to complete."""
    customer = create_customer(db, credits_each=1000)
    text = "Every byte of this sentence reached the client. Then it hung up at once."
    body = {"voice_id": "voice_alan", "text": text, "format": "wav", "timestamps": True}

    def open_stream() -> Any:
        return httpx.stream("POST", server + STREAM, json=body, headers=customer.auth(), timeout=60)

    # flite reads a text the same way every time: a first stream read to its end says how
    # many bytes the whole audio has.
    with open_stream() as response:
        whole = response.read()
        first = response.headers["soundstage-job-id"]
    assert wait_for_status(client, customer, first, "completed")["credits_used"] == len(text)

    with open_stream() as response:
        job_id = response.headers["soundstage-job-id"]
        received = b""
        for chunk in response.iter_raw():
            received += chunk
            if len(received) >= len(whole):
                break
    # Hung up the moment every byte had come.
    assert received == whole
    captures = [
        t
        for t in client.get("/api/v1/credits/ledger?limit=20", headers=customer.auth()).json()[
            "data"
        ]
        if t["type"] == "capture" and t["reference"] == job_id
    ]
    assert [t["amount"] for t in captures] == [len(text)]
    job = wait_for_status(client, customer, job_id, "completed")
    assert job["credits_used"] == len(text)
    assert [w["word"] for w in job["result"]["words"]][:2] == ["Every", "byte"]
    assert balance(client, customer) == (1000 - 2 * len(text), 0)


def wait_for_status(
    client: TestClient, customer: Customer, job_id: str, *statuses: str
) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while (job := job_status(client, customer, job_id))["status"] not in statuses:
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
    return job


@pytest.mark.measures
def test_timestamps_align_every_word_to_the_audio(client: TestClient, rich: Customer) -> None:
    text = "Please send the report to Anna before Friday, and copy the whole team."
    response = client.post(
        "/api/v1/speech/tts",
        headers=rich.auth(),
        json={"voice_id": "voice_joe", "text": text, "timestamps": True, "format": "wav"},
    )
    assert response.status_code == 200, response.text
    body = response.json()
    words = body["words"]
    assert [w["word"] for w in words] == text.split()
    starts = [w["start_ms"] for w in words]
    assert starts == sorted(starts)
    assert all(0 <= w["start_ms"] <= w["end_ms"] <= body["duration_ms"] for w in words)
    # Speech starts near the beginning and the last word ends near the end of the audio.
    assert words[0]["start_ms"] < 500
    assert body["duration_ms"] - words[-1]["end_ms"] < 800
    # Each word lasts a plausible time for one word.
    assert all(40 <= w["end_ms"] - w["start_ms"] <= 1500 for w in words)

    plain = client.post(
        "/api/v1/speech/tts", headers=rich.auth(), json={"voice_id": "voice_joe", "text": text}
    ).json()
    assert "words" not in plain


@pytest.mark.measures
def test_timestamps_follow_the_speed(client: TestClient, rich: Customer) -> None:
    text = "One two three four five six seven eight nine ten."

    def last_end(speed: float) -> tuple[int, int]:
        response = client.post(
            "/api/v1/speech/tts",
            headers=rich.auth(),
            json={"voice_id": "voice_kal", "text": text, "timestamps": True, "speed": speed},
        )
        assert response.status_code == 200, response.text
        body = response.json()
        assert len(body["words"]) == 10
        return body["words"][-1]["end_ms"], body["duration_ms"]

    slow_end, slow_total = last_end(0.5)
    fast_end, fast_total = last_end(2.0)
    assert fast_end < slow_end / 2.5
    assert fast_end <= fast_total
    assert slow_end <= slow_total


def test_every_voice_has_a_public_preview_that_plays(
    client: TestClient, settings: Settings, rich: Customer
) -> None:
    voices = client.get("/api/v1/voices?limit=100", headers=rich.auth()).json()["data"]
    assert len(voices) >= 26
    for voice in voices[:4] + [v for v in voices if v["voice_id"] == "voice_joe"]:
        url = voice["preview_url"]
        assert url == f"{settings.public_base_url}/previews/{voice['voice_id']}.mp3"
        # No key: a browser's <audio> element fetches it.
        response = client.get(url.removeprefix(settings.public_base_url))
        assert response.status_code == 200, response.text
        assert response.headers["content-type"] == "audio/mpeg"
        # It says the sample text of the voice's language: at a speaking rate between 80 and
        # 250 words a minute, or for a language written without spaces 2 to 10 characters a
        # second (a cut or an empty preview, or a wrong text, falls outside).
        text = sample_text(voice["language"])
        seconds = decoded_seconds(response.content)
        if voice["language"].split("-")[0] in UNSPACED:
            characters = len(re.sub(r"\W", "", text))
            assert characters / 10 <= seconds <= characters / 2, (characters, seconds)
        else:
            words = len(text.split())
            assert words / 250 * 60 <= seconds <= words / 80 * 60, (words, seconds)
        with av.open(io.BytesIO(response.content), "r") as container:
            samples = np.concatenate(
                [frame.to_ndarray().reshape(-1) for frame in container.decode(audio=0)]
            )
        assert float(np.sqrt(np.mean(np.square(samples)))) > 0.01
        again = client.get(url.removeprefix(settings.public_base_url))
        assert again.content == response.content
    missing = client.get("/previews/voice_nobody.mp3")
    assert_error(missing, 404, "voice_not_found")
