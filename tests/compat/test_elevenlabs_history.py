"""ElevenLabs' history through the official SDK against a live server: the speech just made
through the SDK is listed (newest first, paged, filtered), read, its audio fetched and decoded,
deleted, and then 404 in ElevenLabs' shape."""

from __future__ import annotations

import time
from typing import Any

import pytest
from elevenlabs import ElevenLabs
from elevenlabs.core.api_error import ApiError
from elevenlabs.errors import UnprocessableEntityError
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from tests.support.elevenlabs import ONCE, decode_output, sdk
from tests.support.factories import Customer, create_customer
from tests.support.jobs import wait_for_job

FIRST = "Good morning."
SECOND = "See you soon."
# ElevenLabs' George, read by the catalog's voice_alan (compat.voice_aliases).
GEORGE = "JBFqnCBsd6RMkjVDRZzb"


def speak(eleven: ElevenLabs, client: TestClient, customer: Customer, voice: str, text: str) -> str:
    """Speech made through the SDK, its job waited for (a streamed job stores its file after
    the last byte): its job id."""
    with eleven.text_to_speech.with_raw_response.convert(
        voice, text=text, output_format="mp3_44100_128", request_options=ONCE
    ) as raw:
        job_id: str = raw.headers["soundstage-job-id"]
        assert b"".join(raw.data)
    assert wait_for_job(client, customer, job_id)["status"] == "completed"
    return job_id


@pytest.fixture(scope="module")
def made(live_url: str, client: TestClient, db: Database) -> tuple[Customer, list[str]]:
    """A customer's two speeches, by voice_kal then by George: their job ids, oldest first."""
    customer = create_customer(db, credits_each=1_000)
    eleven = sdk(live_url, customer.sandbox_key)
    first = speak(eleven, client, customer, "voice_kal", FIRST)
    time.sleep(0.01)  # two instants apart, whatever the clock's resolution
    return customer, [first, speak(eleven, client, customer, GEORGE, SECOND)]


def history_ids(eleven: ElevenLabs, **query: Any) -> list[str]:
    page = eleven.history.list(**query, request_options=ONCE)
    return [item.history_item_id for item in page.history]


def test_the_history_lists_what_was_said(live_url: str, made: tuple[Customer, list[str]]) -> None:
    customer, (first, second) = made
    eleven = sdk(live_url, customer.sandbox_key)
    page = eleven.history.list(request_options=ONCE)
    assert [item.history_item_id for item in page.history] == [second, first]
    assert (page.has_more, page.last_history_item_id) == (False, first)
    newest, oldest = page.history
    assert page.scanned_until == oldest.date_unix
    assert (newest.voice_id, newest.text, newest.source) == ("voice_alan", SECOND, "TTS")
    assert oldest.model_dump(exclude={"date_unix", "voice_name"}) == {
        "history_item_id": first,
        "request_id": first,
        "voice_id": "voice_kal",
        "model_id": "soundstage_tts",
        "voice_category": "premade",
        "text": FIRST,
        "character_count_change_from": 0,
        "character_count_change_to": len(FIRST),
        "content_type": "audio/mpeg",
        "state": "created",
        "settings": None,
        "feedback": None,
        "share_link_id": None,
        "source": "TTS",
        "alignments": None,
        "dialogue": None,
        "output_format": None,
    }
    assert oldest.voice_name
    assert abs(oldest.date_unix - time.time()) < 600
    assert eleven.history.get(first, request_options=ONCE) == oldest


def test_pages_and_filters(live_url: str, made: tuple[Customer, list[str]]) -> None:
    customer, (first, second) = made
    eleven = sdk(live_url, customer.sandbox_key)
    page = eleven.history.list(page_size=1, request_options=ONCE)
    assert ([i.history_item_id for i in page.history], page.has_more) == ([second], True)
    rest = eleven.history.list(
        page_size=1, start_after_history_item_id=page.last_history_item_id, request_options=ONCE
    )
    assert ([i.history_item_id for i in rest.history], rest.has_more) == ([first], False)
    assert history_ids(eleven, sort_direction="asc") == [first, second]
    assert history_ids(eleven, voice_id="voice_kal") == [first]
    assert history_ids(eleven, voice_id=GEORGE) == [second]
    assert history_ids(eleven, search="MORNING") == [first]
    assert history_ids(eleven, source="TTS", model_id="eleven_multilingual_v2") == [second, first]
    assert history_ids(eleven, source="STS") == []
    assert history_ids(eleven, model_id="soundstage_sts") == []
    now = int(time.time())
    assert history_ids(eleven, date_after_unix=now + 60) == []
    assert history_ids(eleven, date_before_unix=now + 60, date_after_unix=now - 600) == [
        second,
        first,
    ]


def test_the_audio_is_the_speech(live_url: str, made: tuple[Customer, list[str]]) -> None:
    customer, (first, _) = made
    eleven = sdk(live_url, customer.sandbox_key)
    audio = b"".join(eleven.history.get_audio(first, request_options=ONCE))
    decoded = decode_output(audio, "mp3_44100_128")
    assert 0.3 < decoded.seconds < 5


def test_bad_queries_are_422(live_url: str, customer: Customer) -> None:
    eleven = sdk(live_url, customer.sandbox_key)
    for query in ({"page_size": 0}, {"page_size": 1001}, {"sort_direction": "sideways"}):
        with pytest.raises(UnprocessableEntityError) as refused:
            eleven.history.list(**query, request_options=ONCE)
        assert refused.value.body["detail"]["status"] == "parameter_invalid"
    with pytest.raises(UnprocessableEntityError) as empty:
        eleven.history.list(date_after_unix=100, date_before_unix=100, request_options=ONCE)
    assert "date_before_unix" in empty.value.body["detail"]["message"]
    assert eleven.history.list(page_size=1000, request_options=ONCE).history == []


def test_another_account_sees_nothing(
    live_url: str, db: Database, made: tuple[Customer, list[str]]
) -> None:
    _, (first, _) = made
    stranger = sdk(live_url, create_customer(db).sandbox_key)
    assert stranger.history.list(request_options=ONCE).history == []
    for call in (stranger.history.get, stranger.history.delete):
        with pytest.raises(ApiError) as unknown:
            call(first, request_options=ONCE)
        assert unknown.value.status_code == 404
        assert unknown.value.body["detail"]["status"] == "history_item_not_found"


def test_a_deleted_item_is_gone(live_url: str, client: TestClient, db: Database) -> None:
    customer = create_customer(db, credits_each=1_000)
    eleven = sdk(live_url, customer.sandbox_key)
    first = speak(eleven, client, customer, "voice_kal", FIRST)
    second = speak(eleven, client, customer, "voice_kal", SECOND)
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    deleted = eleven.history.delete(first, request_options=ONCE)
    assert deleted.status == "ok"
    for call in (eleven.history.get, eleven.history.delete):
        with pytest.raises(ApiError) as gone:
            call(first, request_options=ONCE)
        assert gone.value.status_code == 404
        assert gone.value.body == {
            "detail": {
                "status": "history_item_not_found",
                "message": f"No such history item: {first}",
            }
        }
    with pytest.raises(ApiError) as no_audio:
        b"".join(eleven.history.get_audio(first, request_options=ONCE))
    assert no_audio.value.status_code == 404
    assert history_ids(eleven) == [second]
    assert client.get("/api/v1/credits", headers=customer.auth()).json() == balance
