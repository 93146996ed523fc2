"""Jobs priced by their input's length charge what the input really holds, decoded, not what
its container's header says: a Matroska file whose Segment Duration understates it."""

from __future__ import annotations

import numpy as np
import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.credits import rates
from soundstage.credits.rates import Operation
from soundstage.media.audio import Audio
from tests.support.api import assert_error
from tests.support.audio import understated_mkv
from tests.support.factories import create_customer
from tests.support.servers import FileServer

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

SECONDS = 4


def tone(seconds: float = SECONDS, rate: int = 16_000) -> Audio:
    t = np.arange(round(seconds * rate)) / rate
    return Audio((0.3 * np.sin(2 * np.pi * 440 * t)).astype(np.float32).reshape(-1, 1), rate)


@pytest.mark.slow  # DeepFilterNet and Whisper
@pytest.mark.parametrize(
    ("path", "operation"),
    [("/api/v1/speech/isolator", Operation.ISOLATION), ("/api/v1/speech/stt", Operation.STT)],
)
@pytest.mark.measures
def test_a_header_saying_no_length_is_charged_the_decoded_length(
    client: TestClient, files: FileServer, db: Database, path: str, operation: Operation
) -> None:
    customer = create_customer(db, credits_each=1000)
    # 0.4 ticks of a millisecond: priced from the header, this reserved 0 credits.
    url = files.put(f"lying-{operation}.mkv", understated_mkv(tone(), 0.4))
    response = client.post(path, headers=customer.auth(), json={"audio_url": url})
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["duration_ms"] == SECONDS * 1000
    price = rates.for_duration(operation, SECONDS * 1000)
    assert price > 0
    assert body["credits_used"] == price
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (1000 - price, 0)


def test_a_balance_short_of_the_decoded_length_fails_402_and_charges_nothing(
    client: TestClient, files: FileServer, db: Database
) -> None:
    # The header's second is covered (17 credits), the four seconds held (67) are not.
    customer = create_customer(db, credits_each=40)
    url = files.put("lying-changer.mkv", understated_mkv(tone(), 1000))
    response = client.post(
        "/api/v1/speech/voice-changer",
        headers=customer.auth(),
        json={"audio_url": url, "voice_id": "voice_richard", "format": "wav"},
    )
    assert_error(response, 402, "insufficient_credits")
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert (balance["balance"], balance["reserved"]) == (40, 0)
