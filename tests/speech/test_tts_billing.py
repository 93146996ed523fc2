"""What text-to-speech is billed: the text as spoken, each alias (SSML <sub>, a pronunciation
dictionary's alias rule) in place of what it stands for, never fewer characters than
written; and the 5,000-character bound held on the spoken text too."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.voices.service import CatalogCounts
from tests.support import pronunciation
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer

# Audio through the job system: not `services` (the backends are other tests' to cover).
pytestmark = pytest.mark.usefixtures("worker", "demo_catalog")

TTS = "/api/v1/speech/tts"
# flite's awb: the fastest voice for minutes of speech.
VOICE = "voice_alan"
# An alias of 200 characters (SSML attributes and dictionary aliases hold at most 200).
ALIAS = ("the quick brown fox jumps over the lazy dog and " * 5)[:199] + "."
assert len(ALIAS) == 200


@pytest.fixture
def customer(db: Database, demo_catalog: CatalogCounts) -> Customer:
    return create_customer(db, credits_each=5_000)


def speak(client: TestClient, customer: Customer, text: str, **body: Any) -> dict[str, Any]:
    response = client.post(
        TTS,
        headers=customer.auth(),
        json={"voice_id": VOICE, "format": "wav", "text": text, **body},
    )
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def balance(client: TestClient, customer: Customer) -> int:
    body = client.get("/api/v1/credits", headers=customer.auth()).json()
    assert body["reserved"] == 0
    return int(body["balance"])


def locator(client: TestClient, customer: Customer, grapheme: str) -> dict[str, str]:
    """A dictionary of the customer's own that reads `grapheme` as ALIAS."""
    created = pronunciation.create(client, customer, [pronunciation.alias_rule(grapheme, ALIAS)])
    return {"dictionary_id": created["id"], "version_id": created["latest_version_id"]}


def test_a_sub_alias_is_billed_as_spoken(client: TestClient, customer: Customer) -> None:
    """Ten <sub>s of 10 letters each, read as 200 characters each: 2,009 characters spoken
    (109 written), and as many credits; they were billed 109 (119 credits bought 11.9
    minutes of speech this way)."""
    text = "<speak>" + " ".join([f'<sub alias="{ALIAS}">abcdefghij</sub>'] * 10) + "</speak>"
    spoken = len(" ".join([ALIAS] * 10))
    body = speak(client, customer, text)
    assert body["credits_used"] == body["characters_processed"] == spoken == 2009
    assert balance(client, customer) == 5_000 - spoken
    # What was billed is what was heard: minutes of it, not seconds.
    assert body["duration_ms"] > 60_000


def test_a_dictionary_alias_is_billed_as_spoken(client: TestClient, customer: Customer) -> None:
    text = " ".join(["zork"] * 10)
    body = speak(
        client,
        customer,
        text,
        pronunciation_dictionary_locators=[locator(client, customer, "zork")],
    )
    spoken = len(" ".join([ALIAS] * 10))
    assert body["credits_used"] == body["characters_processed"] == spoken
    assert balance(client, customer) == 5_000 - spoken
    assert body["duration_ms"] > 60_000


def test_never_fewer_than_written(client: TestClient, customer: Customer) -> None:
    """An alias shorter than what it replaces is billed as written."""
    text = '<speak>The <sub alias="W3C">World Wide Web Consortium</sub> met.</speak>'
    body = speak(client, customer, text)
    assert body["credits_used"] == len("The World Wide Web Consortium met.")


def test_the_spoken_text_is_held_to_5000_characters(client: TestClient, db: Database) -> None:
    """One inside the bound: 24 words of a dictionary read as 200 characters each (4,823
    spoken) passes the bound and is refused for the price alone (402 with 4,000 credits,
    nothing synthesized); one outside: 25 of them (5,024) are 422 naming `text`."""
    customer = create_customer(db, credits_each=4_000)
    found = locator(client, customer, "zork")

    def ask(words: int) -> Any:
        return client.post(
            TTS,
            headers=customer.auth(),
            json={
                "voice_id": VOICE,
                "text": " ".join(["zork"] * words),
                "pronunciation_dictionary_locators": [found],
            },
        )

    inside = assert_error(ask(24), 402, "insufficient_credits")
    assert "4823" in inside["message"]
    outside = assert_error(ask(25), 422, "parameter_invalid")
    assert outside["param"] == "text"
    assert "spoken text" in outside["message"]
    assert "5,024" in outside["message"]
    assert balance(client, customer) == 4_000
